import { pgAdapter, prismaOnPool, type PrismaOnPool } from '@patchbay/db';
import { PrismaClient } from './generated/prisma/client';
import { DB_SCHEMA } from './config';

export type { PrismaClient } from './generated/prisma/client';
export type { SqlPool } from '@patchbay/db';
export type Db = PrismaClient;
/** A Prisma interactive-transaction client, so domain functions can run inside the caller's transaction. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;
/** Prisma and the pg pool it runs on. */
export type Database = PrismaOnPool<PrismaClient>;

export function createPrisma(databaseUrl: string, poolSize = 10): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl, DB_SCHEMA, poolSize) });
}

/** Prisma and the pg pool it runs on, for the statement sent to pg itself: the tool-call records' INSERT (see storeToolCallRecords). */
export function createDatabase(databaseUrl: string, poolSize = 10): Database {
  return prismaOnPool((adapter) => new PrismaClient({ adapter }), databaseUrl, DB_SCHEMA, poolSize);
}
