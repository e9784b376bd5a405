import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import { DriverAdapterError } from '@prisma/driver-adapter-utils';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPg } from '@prisma/adapter-pg';
import { Client } from 'pg';
import type { ClientConfig, QueryResult } from 'pg';
import { ensureDatabase } from './database';

export type ShadowKind = 'pglite' | 'postgres';

/** Where the schema engine replays the committed migrations to learn the schema they produce. */
export interface ShadowDatabase {
  kind: ShadowKind;
  /** Said to the developer, so they know what the diff was computed against. */
  description: string;
  factory: SqlMigrationAwareDriverAdapterFactory;
  /** Releases connections and removes whatever the shadow left behind. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Throwaway in-memory PostgreSQL (PGlite, compiled to WebAssembly) for both of the engine's
 * connections, so a diff needs no server at all.
 */
export function pgliteShadow(): ShadowDatabase {
  const instances: PGlite[] = [];
  const open = async (): Promise<SqlDriverAdapter> => {
    // Loaded on demand: services import this package for pgAdapter and never need PGlite.
    const [{ PGlite }, { PrismaPGlite }] = await Promise.all([import('@electric-sql/pglite'), import('pglite-prisma-adapter')]);
    const db = new PGlite();
    instances.push(db);
    const adapter = (await new PrismaPGlite(db).connect()) as unknown as SqlDriverAdapter;
    // pglite-prisma-adapter 0.7.2 does not await `exec` in executeScript: a migration that fails
    // would look applied (yielding a wrong diff) and crash the process later as an unhandled rejection.
    adapter.executeScript = async (script: string) => {
      try {
        await db.exec(script);
      } catch (error) {
        throw toDriverAdapterError(error);
      }
    };
    return adapter;
  };
  let closed = false;
  return {
    kind: 'pglite',
    description: 'PGlite (in memory)',
    factory: { provider: 'postgres', adapterName: 'pglite-prisma-adapter', connect: open, connectToShadowDb: open },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(instances.map((db) => db.close().catch(() => undefined)));
    },
  };
}

/**
 * A private schema on a real PostgreSQL server, for migrations PGlite cannot run (extensions it
 * does not ship, for instance). Both engine connections resolve unqualified names to that schema,
 * the way our migrations are applied in production; the schema is dropped on close.
 */
export async function postgresSchemaShadow(databaseUrl: string): Promise<ShadowDatabase> {
  const schema = `patchbay_shadow_${process.pid}_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(databaseUrl);
  await withClient(databaseUrl, (client) => client.query(`CREATE SCHEMA "${schema}"`));
  const adapters: SqlDriverAdapter[] = [];
  const open = async (): Promise<SqlDriverAdapter> => {
    const factory = new PrismaPg({ connectionString: databaseUrl, max: 2, options: `-c search_path="${schema}"`, Client: CatalogCharAsTextClient }, { schema });
    const adapter = await factory.connect();
    adapters.push(adapter);
    return adapter;
  };
  const url = new URL(databaseUrl);
  let closed = false;
  return {
    kind: 'postgres',
    description: `temporary schema "${schema}" on ${url.host}${url.pathname} (dropped afterwards)`,
    factory: { provider: 'postgres', adapterName: '@prisma/adapter-pg', connect: open, connectToShadowDb: open },
    async close() {
      if (closed) return;
      closed = true;
      // The engine may already have disposed the shadow connection; a second dispose only complains.
      await Promise.all(adapters.map((adapter) => adapter.dispose().catch(() => undefined)));
      await withClient(databaseUrl, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    },
  };
}

const CHAR_OID = 18;
const TEXT_OID = 25;

/**
 * The engine reads PostgreSQL's catalogs, whose one-byte `"char"` columns (pg_class.relkind,
 * pg_constraint.contype...) @prisma/adapter-pg 7.10 refuses as an unsupported column type. Their
 * text form is a one-character string, so we report them as text. Our own tables never use `"char"`.
 */
class CatalogCharAsTextClient extends Client {
  constructor(config?: ClientConfig) {
    super(config);
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    (this as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        // pg-pool passes a callback; PrismaPg's transactions use the promise form.
        args[args.length - 1] = (error: unknown, result: QueryResult) => callback(error, error ? result : relabelCharColumns(result));
        return query(...args);
      }
      const pending = query(...args);
      return pending instanceof Promise ? pending.then(relabelCharColumns) : pending;
    };
  }
}

function relabelCharColumns(result: QueryResult): QueryResult {
  for (const field of result?.fields ?? []) if (field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
  return result;
}

async function withClient<T>(databaseUrl: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Reports a PostgreSQL error the way Prisma's own adapters do, so the engine names the failing migration and the reason. */
function toDriverAdapterError(error: unknown): unknown {
  const e = error as { code?: unknown; severity?: unknown; message?: unknown; detail?: unknown; column?: unknown; hint?: unknown };
  if (typeof e?.code !== 'string' || typeof e.message !== 'string') return error;
  return new DriverAdapterError({
    kind: 'postgres',
    code: e.code,
    severity: typeof e.severity === 'string' ? e.severity : 'ERROR',
    message: e.message,
    detail: typeof e.detail === 'string' ? e.detail : undefined,
    column: typeof e.column === 'string' ? e.column : undefined,
    hint: typeof e.hint === 'string' ? e.hint : undefined,
  });
}
