import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

/**
 * The pool under a service's Prisma client, for the few statements a service sends to pg itself (a
 * hot INSERT where Prisma's per-query cost matters). `pg.Pool` is one.
 */
export interface SqlPool {
  query<Row = unknown>(text: string, values: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
  /** A named statement: each connection parses and plans it once, then runs the plan it kept. */
  query<Row = unknown>(statement: { name: string; text: string; values: unknown[] }): Promise<{ rows: Row[]; rowCount: number | null }>;
}

/** A service's Prisma client and the pg pool it runs on (one set of connections). */
export interface PrismaOnPool<Client> {
  prisma: Client;
  sql: SqlPool;
  /** Ends both: Prisma's `$disconnect()` ends the pool only when Prisma has connected. */
  close(): Promise<void>;
}

/** Connections on the app's own schema: unqualified names in migrations and queries resolve to that schema. */
function poolConfig(databaseUrl: string, schema: string, poolSize: number): pg.PoolConfig {
  return { connectionString: databaseUrl, max: poolSize, options: `-c search_path="${schema}"` };
}

/** A `pg` pool on the app's own schema. */
export function pgPool(databaseUrl: string, schema: string, poolSize = 10): pg.Pool {
  const pool = new pg.Pool(poolConfig(databaseUrl, schema, poolSize));
  // An idle connection the server drops (a restart, a failover) is an 'error' on the pool, which pg
  // then removes from it; unheard, that event would end the process, even before Prisma (which
  // listens once connected) has run a query. The next query meets the outage and reports it.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * The driver adapter each app hands to its generated PrismaClient: a `pg` pool on the app's own
 * schema, its own, or one the app also sends queries to itself (a hot statement where Prisma's
 * per-query cost matters). Prisma's `$disconnect()` ends that pool once Prisma has connected; a
 * service whose pool alone ran queries ends it itself (prismaOnPool's `close()`).
 */
export function pgAdapter(database: string | pg.Pool, schema: string, poolSize = 10): PrismaPg {
  if (typeof database === 'string') return new PrismaPg(poolConfig(database, schema, poolSize), { schema });
  return new PrismaPg(database, { schema, disposeExternalPool: true });
}

/**
 * A service's generated PrismaClient (made by `createClient` around the adapter) on a pg pool the
 * service also queries itself: one set of connections on its schema. `close()` ends both, since a
 * process whose pool alone ran queries would otherwise keep its idle connections open.
 */
export function prismaOnPool<Client extends { $disconnect(): Promise<void> }>(
  createClient: (adapter: PrismaPg) => Client,
  databaseUrl: string,
  schema: string,
  poolSize = 10,
): PrismaOnPool<Client> {
  const pool = pgPool(databaseUrl, schema, poolSize);
  const prisma = createClient(pgAdapter(pool, schema));
  return {
    prisma,
    sql: pool,
    async close() {
      await prisma.$disconnect();
      if (!pool.ended) await pool.end();
    },
  };
}
