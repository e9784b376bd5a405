import { pgAdapter } from '@patchbay/db';
import { PrismaClient } from './generated/prisma/client';
import { DB_SCHEMA } from './config';

export type { PrismaClient } from './generated/prisma/client';
export type Db = PrismaClient;
/** A Prisma interactive-transaction client, so domain functions can run inside the caller's transaction. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export function createPrisma(databaseUrl: string, poolSize = 10): PrismaClient {
  return new PrismaClient({ adapter: pgAdapter(databaseUrl, DB_SCHEMA, poolSize) });
}
