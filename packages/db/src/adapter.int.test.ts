import { randomUUID } from 'node:crypto';
import { pgAdapter, pgPool } from './adapter';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test';

describe('pgAdapter on a pool the service shares', () => {
  it('runs Prisma on the pool, both see the same schema, and disposing the adapter ends the pool', async () => {
    const schema = `adapter_test_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const pool = pgPool(databaseUrl, schema, 2);
    const adapter = await pgAdapter(pool, schema).connect();
    try {
      await pool.query(`CREATE SCHEMA "${schema}"`);
      // Unqualified names resolve to the schema, through the pool and through the adapter alike.
      await pool.query('CREATE TABLE marks (n int)');
      await pool.query('INSERT INTO marks (n) SELECT * FROM json_to_recordset($1::json) AS r(n int)', [JSON.stringify([{ n: 1 }, { n: 2 }])]);
      const read = await adapter.queryRaw({ sql: 'SELECT sum(n)::int AS total FROM marks', args: [], argTypes: [] });
      expect(read.rows).toEqual([[3]]);
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await adapter.dispose();
    }
    expect(pool.ended).toBe(true);
  });
});
