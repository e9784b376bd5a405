import { pgAdapter } from '@patchbay/db';
import { PrismaClient } from './generated/prisma/client';
import { DB_SCHEMA } from './config';

export type { PrismaClient } from './generated/prisma/client';
export type Db = PrismaClient;

export function createPrisma(databaseUrl: string, poolSize = 10): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl, DB_SCHEMA, poolSize) });
}
