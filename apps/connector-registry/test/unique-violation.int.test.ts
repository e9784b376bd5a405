import { randomUUID } from 'node:crypto';
import { pgPool } from '@patchbay/db';
import { isUniqueViolation, normalizeError } from '@patchbay/errors';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { DB_SCHEMA } from '../src/config';
import { createPrisma, type Db } from '../src/db';

/**
 * The shared error middleware's mapping checked against errors the database clients really raise
 * (Prisma 7 through @prisma/adapter-pg, and node-postgres itself), not shapes written by hand: a
 * unique violation the code did not foresee is the client's 409, and a transaction that could not
 * get a connection in time is a 503, never a 500.
 */
let db: Db;
let packId: string;
const connectorId = randomUUID();
const row = () => ({ toolPackId: packId, connectorId, connectorSlug: 'github', isCustom: false, authScope: 'INDIVIDUAL' as const, toolNames: [], position: 0 });

beforeAll(async () => {
  db = createPrisma(TEST_DATABASE_URL, 2);
  packId = (await db.toolPack.create({ data: { organizationId: randomUUID(), environment: 'production', name: 'p', description: '' } })).id;
  await db.toolPackConnector.create({ data: row() });
});
afterAll(async () => {
  await db.toolPack.delete({ where: { id: packId } });
  await db.$disconnect();
});

async function errorOf(operation: () => Promise<unknown>): Promise<unknown> {
  try {
    await operation();
  } catch (err) {
    return err;
  }
  throw new Error('the operation was expected to fail');
}

describe('a real unique violation is a 409 conflict from the shared error mapping', () => {
  it.each<[string, () => Promise<unknown>]>([
    ['Prisma create', () => db.toolPackConnector.create({ data: row() })],
    ['Prisma createMany inside an interactive transaction', () => db.$transaction((tx) => tx.toolPackConnector.createMany({ data: [row()] }))],
    ['Prisma raw statement', () => db.$executeRaw`INSERT INTO tool_pack_connectors (id, tool_pack_id, connector_id, connector_slug, is_custom, auth_scope, tool_names, position) VALUES (gen_random_uuid(), ${packId}::uuid, ${connectorId}::uuid, 'github', false, 'INDIVIDUAL', '{}', 0)`],
    [
      'node-postgres on the service\'s pool',
      async () => {
        const pool = pgPool(TEST_DATABASE_URL, DB_SCHEMA, 1);
        try {
          await pool.query("INSERT INTO tool_pack_connectors (id, tool_pack_id, connector_id, connector_slug, is_custom, auth_scope, tool_names, position) VALUES (gen_random_uuid(), $1, $2, 'github', false, 'INDIVIDUAL', '{}', 0)", [packId, connectorId]);
        } finally {
          await pool.end();
        }
      },
    ],
  ])('%s', async (_label, operation) => {
    const err = await errorOf(operation);
    expect(isUniqueViolation(err)).toBe(true);
    const mapped = normalizeError(err);
    expect(mapped.status).toBe(409);
    expect(mapped.code).toBe('conflict');
  });

  it('a transaction that cannot get a pool connection within maxWait is a 503, not a 500', async () => {
    const one = createPrisma(TEST_DATABASE_URL, 1);
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const holder = one.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const err = await errorOf(() => one.$transaction(async (tx) => tx.$queryRaw`SELECT 1`, { maxWait: 100 }));
      release();
      await holder;
      expect(normalizeError(err).status).toBe(503);
    } finally {
      await one.$disconnect();
    }
  });
});
