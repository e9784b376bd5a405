/**
 * Recognizes errors that mean a dependency (Redis, PostgreSQL, another service) is down or
 * unreachable right now, as opposed to a bug. Those are 503 `service_unavailable` with
 * Retry-After for the client, whichever route they surface in: the shared error middleware
 * asks this once, so no route has to.
 *
 * Matching is by the shapes the clients we use produce (ioredis, node-postgres, Prisma's driver
 * adapter, BullMQ, undici/node sockets), found anywhere in the chain of causes.
 */

/** Socket-level failures: the peer is not there, went away, or did not answer. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/** PostgreSQL SQLSTATEs that mean the server is unavailable (not that the query is wrong). */
function isUnavailableSqlState(code: string): boolean {
  return (
    code.startsWith('08') || // connection_exception
    code === '57P01' || // admin_shutdown
    code === '57P02' || // crash_shutdown
    code === '57P03' || // cannot_connect_now
    code === '53300' || // too_many_connections
    code === '53100' || // disk_full
    code === '40P01' // deadlock_detected: retrying succeeds
  );
}

/** Prisma's codes for a database it cannot reach or a pool it cannot get a connection from. */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1011', 'P1017', 'P2024', 'P2037']);

/** The kinds Prisma's driver adapters give connection failures. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'TransactionWriteConflict']);

const NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError', 'CountersUnavailableError', 'PrismaClientInitializationError', 'ConnectionTimeoutError']);

const MESSAGES = [
  /^Connection is closed\.?$/, // ioredis, command on a closed connection
  /Stream isn't writeable and enableOfflineQueue options is false/, // ioredis
  /Reached the max retries per request limit/, // ioredis
  // ioredis Cluster while the topology changes (a node died, a failover is under way): it followed
  // MOVED/ASK or retried a dead node until its bound. The slot has a master again within seconds.
  /^Too many Cluster redirections/,
  /^CLUSTERDOWN /, // a node's reply while the cluster cannot serve a slot
  /^Connection terminated( unexpectedly| due to connection timeout)?/, // node-postgres
  /timeout exceeded when trying to connect/, // pg-pool
  /Can't reach database server/, // Prisma P1001 text
  /Timed out fetching a new connection from the connection pool/, // Prisma P2024 text
  // Prisma P2028 when its transaction waited longer than maxWait for a pool connection, or ran past its
  // timeout (both mean the database is busier than the pool can serve now; the work was rolled back).
  /Unable to start a transaction in the given time/,
  /cannot be executed on an expired transaction/,
];

function own(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function matchesOne(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const name = own(err, 'name');
  if (typeof name === 'string' && NAMES.has(name)) return true;
  const code = own(err, 'code');
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || PRISMA_UNAVAILABLE.has(code))) return true;
  // node-postgres errors carry the SQLSTATE in `code` with a `severity`; the adapter keeps it as `originalCode`.
  if (typeof code === 'string' && typeof own(err, 'severity') === 'string' && isUnavailableSqlState(code)) return true;
  const originalCode = own(err, 'originalCode');
  if (typeof originalCode === 'string' && isUnavailableSqlState(originalCode)) return true;
  const kind = own(err, 'kind');
  if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
  if (kind === 'postgres' && typeof code === 'string' && isUnavailableSqlState(code)) return true;
  const message = own(err, 'message');
  return typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message));
}

/** The error and everything it wraps (cause, Prisma's meta.driverAdapterError, AggregateError's errors), bounded. */
function chainOf(err: unknown): unknown[] {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < 16) {
    const next = queue.shift();
    if (typeof next !== 'object' || next === null || seen.has(next)) continue;
    seen.add(next);
    queue.push(own(next, 'cause'));
    const meta = own(next, 'meta');
    queue.push(own(meta, 'driverAdapterError'));
    const errors = own(next, 'errors');
    if (Array.isArray(errors)) queue.push(...errors.slice(0, 4));
  }
  return [...seen];
}

/** Whether the error means a dependency is unavailable right now (retrying later can succeed). */
export function isDependencyUnavailable(err: unknown): boolean {
  return chainOf(err).some(matchesOne);
}

/**
 * PostgreSQL aborted the transaction to break a deadlock (40P01) or a serialization conflict
 * (40001); Prisma says P2034, its driver adapter TransactionWriteConflict. The whole transaction
 * can run again and go through: see retryOnTransactionConflict in @patchbay/db.
 */
export function isTransactionConflict(err: unknown): boolean {
  return chainOf(err).some((e) => {
    const codes = [own(e, 'code'), own(e, 'originalCode')];
    return codes.some((c) => c === '40P01' || c === '40001' || c === 'P2034') || own(e, 'kind') === 'TransactionWriteConflict';
  });
}

/** SQLSTATEs PostgreSQL gives for text it cannot store (a NUL byte): the client's input, not our fault. */
export function isUnstorableText(err: unknown): boolean {
  return chainOf(err).some((e) => {
    const codes = [own(e, 'code'), own(e, 'originalCode'), own(own(e, 'meta'), 'code')];
    return codes.some((c) => c === '22021' || c === '22P05' || c === '54001');
  });
}

/**
 * Prisma's "record required but not found" (P2025): the row an update or delete needed was deleted
 * between the request's read and its write, by another request. For the client that is a 404.
 */
export function isRecordGone(err: unknown): boolean {
  return chainOf(err).some((e) => own(e, 'code') === 'P2025');
}

/**
 * A unique constraint refused a row (SQLSTATE 23505): another request wrote the same value first, or
 * the same value came twice. Prisma says P2002 for model queries; its pg driver adapter gives
 * `kind: 'UniqueConstraintViolation'` with `originalCode: '23505'` (under P2010 for raw queries);
 * node-postgres itself gives `code: '23505'` with a `severity`. A client's 409, never a 500.
 */
export function isUniqueViolation(err: unknown): boolean {
  return chainOf(err).some((e) => {
    const code = own(e, 'code');
    if (code === 'P2002' || own(e, 'originalCode') === '23505' || own(e, 'kind') === 'UniqueConstraintViolation') return true;
    return code === '23505' && (typeof own(e, 'severity') === 'string' || own(e, 'kind') === 'postgres');
  });
}
