import { pgAdapter, pgPool } from '@patchbay/db';
import { PrismaClient } from './generated/prisma/client';
import { DB_SCHEMA } from './config';

export type { PrismaClient } from './generated/prisma/client';
export type Db = PrismaClient;
/** The pool under Prisma, for the one statement sent to pg itself: the usage records' INSERT (see storeUsageRecords). */
export interface SqlPool {
  query(text: string, values: unknown[]): Promise<unknown>;
  /** A named statement: each connection parses and plans it once, then runs the plan it kept. */
  query(statement: { name: string; text: string; values: unknown[] }): Promise<unknown>;
}

export function createPrisma(databaseUrl: string, poolSize = 10): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl, DB_SCHEMA, poolSize) });
}

/**
 * Prisma and the pg pool it runs on (one set of connections). `close()` ends both: Prisma's
 * `$disconnect()` ends the pool only when Prisma has connected, and a process whose pool alone ran
 * queries would otherwise keep its idle connections open.
 */
export function createDatabase(databaseUrl: string, poolSize = 10): { prisma: PrismaClient; sql: SqlPool; close(): Promise<void> } {
  const pool = pgPool(databaseUrl, DB_SCHEMA, poolSize);
  const prisma = new PrismaClient({ adapter: pgAdapter(pool, DB_SCHEMA) });
  return {
    prisma,
    sql: pool,
    async close() {
      await prisma.$disconnect();
      if (!pool.ended) await pool.end();
    },
  };
}
