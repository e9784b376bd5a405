import { pgAdapter, prismaOnPool, type PrismaOnPool } from '@patchbay/db';
import { PrismaClient } from './generated/prisma/client';
import { DB_SCHEMA } from './config';

export type { PrismaClient } from './generated/prisma/client';
export type { SqlPool } from '@patchbay/db';
export type Db = PrismaClient;

export function createPrisma(databaseUrl: string, poolSize = 10): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl, DB_SCHEMA, poolSize) });
}

/** Prisma and the pg pool it runs on, for the statements sent to pg itself: the usage records' INSERT (see storeUsageRecords), the response store. */
export function createDatabase(databaseUrl: string, poolSize = 10): PrismaOnPool<PrismaClient> {
  return prismaOnPool((adapter) => new PrismaClient({ adapter }), databaseUrl, DB_SCHEMA, poolSize);
}
