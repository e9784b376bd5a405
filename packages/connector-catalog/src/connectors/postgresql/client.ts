import { BlockedDestinationError, outboundPolicyFromEnv, resolvePublicHost } from '@patchbay/outbound';
import { isIP } from 'node:net';
import { Client, types as pgTypes, type ClientConfig, type CustomTypesConfig } from 'pg';
import Cursor from 'pg-cursor';
import { ToolError } from '../../core/tool-error';
import type { ToolContext } from '../../core/types';

export interface ConnectionTarget {
  host: string;
  port: number;
  user: string;
  password: string | undefined;
  database: string;
  sslmode: string;
}

/**
 * Parameters that would make the connection string reach something else than its own host (a Unix
 * socket, another host) or read files on Patchbay's machine (node-postgres reads sslcert, sslkey
 * and sslrootcert from disk): refused rather than ignored.
 */
const REFUSED_PARAMS = ['host', 'hostaddr', 'sslcert', 'sslkey', 'sslrootcert', 'sslcrl', 'sslcrldir', 'passfile', 'service', 'servicefile', 'replication'];
const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

function badConnectionString(why: string): ToolError {
  return new ToolError('credential_rejected', `The stored PostgreSQL connection string ${why}. The user must reconnect with a connection string like postgresql://user:password@host:5432/database.`);
}

/** Reads a postgresql:// URL (libpq's URI form). Only what the connector uses; never echoes the password. */
export function parseConnectionString(value: string): ConnectionTarget {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw badConnectionString('is not a valid postgresql:// URL');
  }
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') throw badConnectionString('must start with postgresql://');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw badConnectionString('has no host (Unix sockets are not supported)');
  if (host.includes(',')) throw badConnectionString('lists several hosts; give one');
  for (const name of REFUSED_PARAMS) if (url.searchParams.has(name)) throw badConnectionString(`uses the ${name} parameter, which this connector does not support`);
  const sslmode = url.searchParams.get('sslmode') ?? 'prefer';
  if (!SSL_MODES.includes(sslmode)) throw badConnectionString(`has an unknown sslmode (${sslmode})`);
  const port = url.port ? Number(url.port) : 5432;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw badConnectionString('has badly percent-encoded characters');
    }
  };
  const user = decode(url.username);
  if (!user) throw badConnectionString('has no user name');
  const database = decode(url.pathname.replace(/^\//, '')) || user;
  return { host, port, user, password: url.password ? decode(url.password) : undefined, database, sslmode };
}

/**
 * Dates, times, intervals and bytea come back as PostgreSQL prints them: node-postgres would turn
 * `timestamp without time zone` into a Date in Patchbay's own time zone, and bytea into a Buffer.
 */
const RAW_TEXT_TYPES = new Set([17, 1082, 1083, 1114, 1184, 1186, 1266]);
const typeParsers: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (RAW_TEXT_TYPES.has(oid) ? (value: string) => value : pgTypes.getTypeParser(oid, format))) as CustomTypesConfig['getTypeParser'],
};

/** TLS as libpq's sslmode means it; SNI carries the host name although we connect to a checked address. */
function tlsFor(target: ConnectionTarget): ClientConfig['ssl'] {
  if (target.sslmode === 'disable') return false;
  const servername = isIP(target.host) ? undefined : target.host;
  const verify = target.sslmode === 'verify-ca' || target.sslmode === 'verify-full';
  return { rejectUnauthorized: verify, ...(servername ? { servername } : {}) };
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

async function connect(config: ClientConfig): Promise<Client> {
  const client = new Client(config);
  // An idle client that loses its connection emits 'error'; unhandled, that would crash the process.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * Opens one connection for one tool call, to an address of the connection string's host that
 * passed the outbound check (so a private database needs PATCHBAY_ALLOW_PRIVATE_NETWORK=true and
 * the address cannot change between the check and the connection). No pool: each call connects,
 * runs and disconnects, so a changed or revoked credential applies at once and nothing stays open
 * between an agent's calls.
 */
async function openClient(ctx: ToolContext, target: ConnectionTarget): Promise<Client> {
  let addresses: string[];
  try {
    addresses = await resolvePublicHost(target.host, outboundPolicyFromEnv());
  } catch (err) {
    if (err instanceof BlockedDestinationError) throw new ToolError('blocked_destination', `The database host is not allowed: ${err.message}`);
    throw err;
  }
  const base: ClientConfig = {
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.database,
    application_name: 'patchbay',
    connectionTimeoutMillis: ctx.limits.timeoutMs,
    types: typeParsers,
  };
  const ssl = tlsFor(target);
  let lastError: unknown;
  // Like libpq, try the host's addresses in turn when one cannot be reached (an IPv6 address first on a machine without IPv6).
  for (const address of addresses) {
    try {
      return await connect({ ...base, host: address, ssl });
    } catch (err) {
      // libpq's default sslmode=prefer (and allow) falls back to an unencrypted connection.
      const refusedTls = (err as Error).message === 'The server does not support SSL connections';
      if (refusedTls && (target.sslmode === 'prefer' || target.sslmode === 'allow')) return connect({ ...base, host: address, ssl: false });
      if (!NETWORK_CODES.has(String((err as { code?: unknown }).code))) throw err;
      lastError = err;
    }
  }
  throw lastError;
}

/** Closes the socket at once, for a call that is cancelled or overdue while PostgreSQL is silent. */
function destroy(client: Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** PostgreSQL's and node-postgres's failures as tool errors (SQLSTATE classes per the PostgreSQL manual, appendix A). */
export function toToolError(err: unknown, ctx: ToolContext, target: ConnectionTarget): ToolError {
  if (err instanceof ToolError) return err;
  const e = err as { code?: unknown; message?: string; hint?: string };
  const message = (e.message ?? 'unknown error').slice(0, 500);
  const code = typeof e.code === 'string' ? e.code : '';
  const hint = e.hint ? ` Hint: ${e.hint}` : '';
  const where = `${target.host}:${target.port}`;
  if (/^[0-9A-Z]{5}$/.test(code)) {
    if (code === '28P01' || code === '28000') return new ToolError('credential_rejected', `PostgreSQL rejected the stored credentials: ${message}. The user must reconnect with a valid connection string.`);
    if (code === '3D000') return new ToolError('credential_rejected', `PostgreSQL says: ${message}. The connection string names a database that does not exist; the user must reconnect with the right one.`);
    if (code === '25006' || code === '25001') return new ToolError('forbidden', `This connector is read-only (${message}): it runs every statement in a read-only transaction, so only queries that read data can run.`);
    if (code === '57014') return new ToolError('timeout', `The query was cancelled after the ${ctx.limits.timeoutMs} ms limit (statement_timeout); make it cheaper (filters, LIMIT, indexed columns) or ask for less.`);
    if (code === '42501') return new ToolError('forbidden', `PostgreSQL refused: ${message}. The database role of this connection lacks that privilege.`);
    if (code === '53300') return new ToolError('rate_limited', `PostgreSQL has no free connection slot (${message}); retry later.`);
    if (/^(42|22|21|0A|2F|38|39|44|P0|2B|3F|34|26|0L|0P|27)/.test(code)) return new ToolError('invalid_input', `PostgreSQL rejected the query: ${message}.${hint}`);
    if (code === '40001' || code === '40P01') return new ToolError('provider_error', `PostgreSQL aborted the transaction (${message}); retry.`);
    return new ToolError('provider_error', `PostgreSQL error ${code}: ${message}.${hint}`);
  }
  if (NETWORK_CODES.has(code)) return new ToolError('provider_error', `The PostgreSQL server at ${where} could not be reached (${code}); check that it accepts connections from Patchbay, or retry later.`);
  if (/connection timeout|timeout expired/i.test(message)) return new ToolError('timeout', `The PostgreSQL server at ${where} did not accept the connection within ${ctx.limits.timeoutMs} ms; retry later.`);
  if (message === 'The server does not support SSL connections') return new ToolError('provider_error', `The PostgreSQL server at ${where} does not support TLS, which sslmode=${target.sslmode} requires.`);
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)) return new ToolError('provider_error', `The TLS certificate of the PostgreSQL server at ${where} could not be verified (${code}); with sslmode=require the connection is encrypted without verifying it.`);
  if (/terminated|closed/i.test(message)) return new ToolError('provider_error', `The PostgreSQL server at ${where} closed the connection (${message}); retry later.`);
  return new ToolError('provider_error', `The call to PostgreSQL at ${where} failed: ${message}`);
}

/**
 * Runs `work` inside `BEGIN READ ONLY` with `SET LOCAL statement_timeout` from limits.timeoutMs,
 * then always rolls back and disconnects. If PostgreSQL stops answering altogether, the socket is
 * closed a little after the statement timeout should have fired.
 */
export async function withReadOnlyTransaction<T>(ctx: ToolContext, work: (client: Client) => Promise<T>): Promise<T> {
  const target = parseConnectionString(ctx.credential.values.connection_string ?? '');
  let client: Client;
  try {
    client = await openClient(ctx, target);
  } catch (err) {
    throw toToolError(err, ctx, target);
  }
  let overdue = false;
  const backstop = setTimeout(() => {
    overdue = true;
    destroy(client);
  }, ctx.limits.timeoutMs + 2000);
  const cancel = () => destroy(client);
  ctx.signal.addEventListener('abort', cancel, { once: true });
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(ctx.limits.timeoutMs))}`);
    return await work(client);
  } catch (err) {
    if (overdue) throw new ToolError('timeout', `The PostgreSQL server at ${target.host}:${target.port} stopped answering; the call was abandoned after ${ctx.limits.timeoutMs} ms.`);
    if (ctx.signal.aborted) throw new ToolError('timeout', 'The call to PostgreSQL was cancelled.');
    throw toToolError(err, ctx, target);
  } finally {
    clearTimeout(backstop);
    ctx.signal.removeEventListener('abort', cancel);
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

export interface FetchedRows {
  fields: Array<{ name: string; dataTypeID: number }>;
  rows: unknown[][];
  /** More rows existed than were fetched. */
  more: boolean;
}

/**
 * Runs one statement through a cursor and fetches at most `maxRows` rows (plus one, to know whether
 * there were more). The cursor uses the extended protocol, which takes exactly one statement, so
 * `COMMIT; DELETE ...` cannot end the read-only transaction.
 */
export async function fetchRows(client: Client, sql: string, params: unknown[], maxRows: number): Promise<FetchedRows> {
  const cursor = client.query(new Cursor(sql, params, { rowMode: 'array', types: typeParsers }));
  try {
    const { rows, fields } = await new Promise<{ rows: unknown[][]; fields: FetchedRows['fields'] }>((resolve, reject) => {
      cursor.read(maxRows + 1, (err, rows, result) => {
        if (err) reject(err);
        else resolve({ rows: rows as unknown[][], fields: (result?.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })) });
      });
    });
    return { fields, rows: rows.slice(0, maxRows), more: rows.length > maxRows };
  } finally {
    await cursor.close().catch(() => undefined);
  }
}
