import { randomUUID } from 'node:crypto';
import { pgAdapter, pgPool, prismaOnPool } from './adapter';

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

  it('a pool survives the server dropping an idle connection (a database restart) before Prisma has connected', async () => {
    const pool = pgPool(databaseUrl, 'public', 1);
    const admin = pgPool(databaseUrl, 'public', 1);
    try {
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // pg removes the dropped connection and emits 'error' on the pool: without the pool's own
      // listener (none is added here) that would be an uncaught error.
      const deadline = Date.now() + 5_000;
      while (pool.totalCount > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(pool.totalCount).toBe(0);
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await Promise.all([pool.end(), admin.end()]);
    }
  });

  it('prismaOnPool gives the client the adapter on the pool it returns, and close() ends that pool when only the pool ran queries', async () => {
    // A stand-in for a generated PrismaClient: the adapter it was given and a $disconnect that never connected.
    const database = prismaOnPool((adapter) => ({ adapter, $disconnect: async () => undefined }), databaseUrl, 'public', 1);
    expect(database.prisma.adapter.provider).toBe('postgres');
    const named = { name: 'adapter_test_one', text: 'SELECT $1::int AS one', values: [1] };
    expect((await database.sql.query(named)).rows).toEqual([{ one: 1 }]);
    expect((await database.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'adapter_test_one'`, [])).rows).toEqual([{ n: 1 }]);
    await database.close();
    await expect(database.sql.query('SELECT 1', [])).rejects.toThrow(/after calling end/);
  });
});
