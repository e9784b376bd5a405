import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

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
 * service whose pool alone ran queries ends it itself (model-gateway's createDatabase).
 */
export function pgAdapter(database: string | pg.Pool, schema: string, poolSize = 10): PrismaPg {
  if (typeof database === 'string') return new PrismaPg(poolConfig(database, schema, poolSize), { schema });
  return new PrismaPg(database, { schema, disposeExternalPool: true });
}
