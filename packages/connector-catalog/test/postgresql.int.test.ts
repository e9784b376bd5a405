import { Client } from 'pg';
import { expectOutputMatchesSchema } from './output-schema';
import { expectToolError, runTool } from './run-tool';

// The "fake" is the real local PostgreSQL: the test creates its own schema and drops it afterwards.
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test';
const SCHEMA = `pb_pg_connector_${process.pid}`;
const cred = (connectionString = DATABASE_URL) => ({ auth_type: 'api_key' as const, values: { connection_string: connectionString } });
const run = async (tool: string, input: unknown, options: { connectionString?: string; limits?: Record<string, number> } = {}) => {
  const output = await runTool('postgresql', tool, { input }, { credential: cred(options.connectionString), baseUrl: 'postgresql://', limits: options.limits });
  expectOutputMatchesSchema('postgresql', tool, output);
  return output as any;
};
/** The same connection string with another user, database, port or parameters. */
const variant = (change: (url: URL) => void) => {
  const url = new URL(DATABASE_URL);
  change(url);
  return url.toString();
};

let admin: Client;
const savedFlag = process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK;
const countCustomers = async () => Number((await admin.query(`SELECT count(*) FROM ${SCHEMA}.customers`)).rows[0].count);

beforeAll(async () => {
  // The test database is on 127.0.0.1: reaching it needs the local-development flag.
  process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK = 'true';
  admin = new Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  await admin.query(`
    CREATE TABLE ${SCHEMA}.customers (
      id serial PRIMARY KEY,
      name text NOT NULL,
      email varchar(120),
      balance numeric(10,2) NOT NULL DEFAULT 0,
      signed_up timestamp NOT NULL DEFAULT '2026-01-02 03:04:05',
      prefs jsonb,
      avatar bytea
    )`);
  await admin.query(`COMMENT ON TABLE ${SCHEMA}.customers IS 'People who buy things'`);
  await admin.query(`COMMENT ON COLUMN ${SCHEMA}.customers.email IS 'Contact address'`);
  await admin.query(`CREATE TABLE ${SCHEMA}.orders (id bigserial PRIMARY KEY, customer_id int NOT NULL REFERENCES ${SCHEMA}.customers(id), total numeric(10,2) NOT NULL)`);
  await admin.query(`CREATE VIEW ${SCHEMA}.big_spenders AS SELECT * FROM ${SCHEMA}.customers WHERE balance > 100`);
  await admin.query(`INSERT INTO ${SCHEMA}.customers (name, email, balance, prefs, avatar) SELECT 'Customer ' || i, 'c' || i || '@example.com', i * 25.5, jsonb_build_object('tier', i % 3), '\\xdeadbeef'::bytea FROM generate_series(1, 12) AS i`);
  await admin.query(`INSERT INTO ${SCHEMA}.orders (customer_id, total) VALUES (1, 9.99), (1, 20.00), (2, 5.00)`);
});

afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.end();
  if (savedFlag === undefined) delete process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK;
  else process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK = savedFlag;
});

describe('postgresql connector', () => {
  it('list_tables lists schemas and tables, leaving out pg_catalog and information_schema', async () => {
    const all = await run('list_tables', {});
    expect(all.schemas).toContain(SCHEMA);
    expect(all.schemas).not.toContain('pg_catalog');
    expect(all.schemas).not.toContain('information_schema');
    expect(all.tables.some((t: { schema: string }) => t.schema === 'pg_catalog' || t.schema === 'information_schema')).toBe(false);
    const mine = await run('list_tables', { schema: SCHEMA });
    // estimated_rows is the planner's estimate (null until the table is analyzed), so only its presence is checked.
    expect(mine.tables.map(({ estimated_rows: _estimate, ...t }: { estimated_rows: number | null }) => t)).toEqual([
      { schema: SCHEMA, name: 'big_spenders', type: 'view', comment: null },
      { schema: SCHEMA, name: 'customers', type: 'table', comment: 'People who buy things' },
      { schema: SCHEMA, name: 'orders', type: 'table', comment: null },
    ]);
    expect(mine.tables.every((t: { estimated_rows: unknown }) => t.estimated_rows === null || typeof t.estimated_rows === 'number')).toBe(true);
    expect(mine.truncated).toBe(false);
  });

  it('describe_table returns columns with types and nullability, the primary key and foreign keys', async () => {
    const customers = await run('describe_table', { schema: SCHEMA, table: 'customers' });
    expect(customers).toMatchObject({ schema: SCHEMA, name: 'customers', type: 'table', comment: 'People who buy things', primary_key: ['id'], foreign_keys: [] });
    expect(customers.columns).toEqual([
      { name: 'id', type: 'integer', nullable: false, default: `nextval('${SCHEMA}.customers_id_seq'::regclass)`, comment: null },
      { name: 'name', type: 'text', nullable: false, default: null, comment: null },
      { name: 'email', type: 'character varying(120)', nullable: true, default: null, comment: 'Contact address' },
      { name: 'balance', type: 'numeric(10,2)', nullable: false, default: '0', comment: null },
      { name: 'signed_up', type: 'timestamp without time zone', nullable: false, default: "'2026-01-02 03:04:05'::timestamp without time zone", comment: null },
      { name: 'prefs', type: 'jsonb', nullable: true, default: null, comment: null },
      { name: 'avatar', type: 'bytea', nullable: true, default: null, comment: null },
    ]);
    const orders = await run('describe_table', { schema: SCHEMA, table: 'orders' });
    expect(orders.foreign_keys).toEqual([{ name: 'orders_customer_id_fkey', definition: `FOREIGN KEY (customer_id) REFERENCES ${SCHEMA}.customers(id)` }]);
  });

  it('describe_table reports an unknown table as not found', async () => {
    const err = await expectToolError(run('describe_table', { schema: SCHEMA, table: 'nope' }), 'not_found');
    expect(err.message).toContain(`"${SCHEMA}"."nope"`);
  });

  it('run_query returns columns with their types and rows as objects, with parameters', async () => {
    const res = await run('run_query', { sql: `SELECT id, name, balance, signed_up, prefs, avatar, id::int8 AS big FROM ${SCHEMA}.customers WHERE id <= $1 AND name LIKE $2 ORDER BY id`, params: [2, 'Customer%'] });
    expect(res.columns).toEqual([
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'text' },
      { name: 'balance', type: 'numeric' },
      { name: 'signed_up', type: 'timestamp without time zone' },
      { name: 'prefs', type: 'jsonb' },
      { name: 'avatar', type: 'bytea' },
      { name: 'big', type: 'bigint' },
    ]);
    expect(res.rows).toEqual([
      { id: 1, name: 'Customer 1', balance: '25.50', signed_up: '2026-01-02 03:04:05', prefs: { tier: 1 }, avatar: '\\xdeadbeef', big: '1' },
      { id: 2, name: 'Customer 2', balance: '51.00', signed_up: '2026-01-02 03:04:05', prefs: { tier: 2 }, avatar: '\\xdeadbeef', big: '2' },
    ]);
    expect(res).toMatchObject({ row_count: 2, truncated: false });
  });

  it('run_query keeps both of two columns with the same name', async () => {
    const res = await run('run_query', { sql: `SELECT c.id, o.id FROM ${SCHEMA}.customers c JOIN ${SCHEMA}.orders o ON o.customer_id = c.id ORDER BY o.id LIMIT 1` });
    expect(res.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'id_2']);
    expect(res.rows).toEqual([{ id: 1, id_2: '1' }]);
  });

  it('run_query fetches at most limits.maxRows rows and says when it truncated', async () => {
    const capped = await run('run_query', { sql: `SELECT id FROM ${SCHEMA}.customers ORDER BY id` }, { limits: { maxRows: 5 } });
    expect(capped.rows.map((r: { id: number }) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(capped).toMatchObject({ row_count: 5, truncated: true });
    const exact = await run('run_query', { sql: `SELECT id FROM ${SCHEMA}.customers ORDER BY id` }, { limits: { maxRows: 12 } });
    expect(exact).toMatchObject({ row_count: 12, truncated: false });
    const huge = await run('run_query', { sql: 'SELECT i FROM generate_series(1, 1000000) AS i' }, { limits: { maxRows: 3 } });
    expect(huge).toMatchObject({ rows: [{ i: 1 }, { i: 2 }, { i: 3 }], truncated: true });
  });

  it('run_query also stops at limits.maxResponseBytes', async () => {
    const res = await run('run_query', { sql: "SELECT repeat('x', 1000) AS filler FROM generate_series(1, 50)" }, { limits: { maxResponseBytes: 5000 } });
    expect(res.row_count).toBe(4);
    expect(res.truncated).toBe(true);
  });

  it('run_query refuses INSERT, UPDATE, DELETE and DROP: the connector is read-only', async () => {
    for (const sql of [
      `INSERT INTO ${SCHEMA}.customers (name) VALUES ('Mallory')`,
      `UPDATE ${SCHEMA}.customers SET name = 'Mallory'`,
      `DELETE FROM ${SCHEMA}.orders`,
      `DROP TABLE ${SCHEMA}.orders`,
      `CREATE TABLE ${SCHEMA}.evil (id int)`,
      `SELECT nextval('${SCHEMA}.customers_id_seq')`,
      `WITH gone AS (DELETE FROM ${SCHEMA}.orders RETURNING id) SELECT * FROM gone`,
    ]) {
      const err = await expectToolError(run('run_query', { sql }), 'forbidden');
      expect(err.message).toContain('read-only');
    }
    expect(await countCustomers()).toBe(12);
    expect(Number((await admin.query(`SELECT count(*) FROM ${SCHEMA}.orders`)).rows[0].count)).toBe(3);
  });

  it('run_query cannot escape the read-only transaction with several statements or SET TRANSACTION', async () => {
    const err = await expectToolError(run('run_query', { sql: `COMMIT; DELETE FROM ${SCHEMA}.orders` }), 'invalid_input');
    expect(err.message).toContain('cannot insert multiple commands into a prepared statement');
    const escape = await expectToolError(run('run_query', { sql: `DO $$ BEGIN SET TRANSACTION READ WRITE; DELETE FROM ${SCHEMA}.orders; END $$` }), 'forbidden');
    expect(escape.message).toContain('read-only');
    expect(Number((await admin.query(`SELECT count(*) FROM ${SCHEMA}.orders`)).rows[0].count)).toBe(3);
  });

  it('run_query cancels a slow query at the statement timeout', async () => {
    const err = await expectToolError(run('run_query', { sql: 'SELECT pg_sleep(10)' }, { limits: { timeoutMs: 300 } }), 'timeout');
    expect(err.message).toContain('300 ms');
  });

  it('run_query reports syntax errors and unknown tables as invalid input with PostgreSQL\'s message', async () => {
    const syntax = await expectToolError(run('run_query', { sql: 'SELEC 1' }), 'invalid_input');
    expect(syntax.message).toContain('syntax error at or near "SELEC"');
    const missing = await expectToolError(run('run_query', { sql: `SELECT * FROM ${SCHEMA}.nope` }), 'invalid_input');
    expect(missing.message).toContain(`relation "${SCHEMA}.nope" does not exist`);
  });

  it('explain_query shows the plan without running the statement', async () => {
    const text = await run('explain_query', { sql: `SELECT * FROM ${SCHEMA}.customers WHERE id = $1`, params: [3] });
    expect(text.plan).toMatch(/Scan .*on customers/);
    const json = await run('explain_query', { sql: `DELETE FROM ${SCHEMA}.orders`, format: 'json' });
    expect(json.plan[0].Plan['Node Type']).toBe('ModifyTable');
    expect(Number((await admin.query(`SELECT count(*) FROM ${SCHEMA}.orders`)).rows[0].count)).toBe(3);
    await expectToolError(run('explain_query', { sql: `ANALYZE DELETE FROM ${SCHEMA}.orders` }), 'invalid_input');
  });

  it('refuses input that fails the schema', async () => {
    const err = await expectToolError(run('run_query', { sql: '', params: [{ a: 1 }] }), 'invalid_input');
    expect(err.message).toContain('input.sql must NOT have fewer than 1 characters');
    await expectToolError(run('describe_table', {}), 'invalid_input');
  });

  it('maps an unknown role (28000) and an unknown database to a rejected credential', async () => {
    const role = await expectToolError(run('list_tables', {}, { connectionString: variant((u) => { u.username = 'no_such_role'; u.password = 'hunter2'; }) }), 'credential_rejected');
    expect(role.message).toContain('no_such_role');
    expect(role.message).not.toContain('hunter2');
    await expectToolError(run('list_tables', {}, { connectionString: variant((u) => { u.pathname = '/no_such_database_here'; }) }), 'credential_rejected');
  });

  it('maps a refused connection to a provider error', async () => {
    const err = await expectToolError(run('list_tables', {}, { connectionString: variant((u) => { u.port = '1'; }) }), 'provider_error');
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('refuses connection strings that point at sockets or files, without reading them', async () => {
    for (const change of [(u: URL) => u.searchParams.set('sslrootcert', '/etc/passwd'), (u: URL) => u.searchParams.set('host', '/var/run/postgresql'), (u: URL) => { u.protocol = 'mysql:'; }]) {
      await expectToolError(run('list_tables', {}, { connectionString: variant(change) }), 'credential_rejected');
    }
  });

  it('sslmode=require insists on TLS', async () => {
    const require = variant((u) => u.searchParams.set('sslmode', 'require'));
    if ((await admin.query('SHOW ssl')).rows[0].ssl === 'on') {
      await expect(run('run_query', { sql: 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()' }, { connectionString: require })).resolves.toMatchObject({ rows: [{ ssl: true }] });
    } else {
      const err = await expectToolError(run('list_tables', {}, { connectionString: require }), 'provider_error');
      expect(err.message).toContain('does not support TLS');
    }
  });

  it('refuses a private database host without PATCHBAY_ALLOW_PRIVATE_NETWORK', async () => {
    delete process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK;
    try {
      const err = await expectToolError(run('run_query', { sql: 'SELECT 1' }), 'blocked_destination');
      expect(err.message).toContain('PATCHBAY_ALLOW_PRIVATE_NETWORK=true');
      await expectToolError(run('list_tables', {}, { connectionString: variant((u) => { u.hostname = 'localhost'; }) }), 'blocked_destination');
      await expectToolError(run('list_tables', {}, { connectionString: 'postgresql://u:p@[::1]:5432/db' }), 'blocked_destination');
      await expectToolError(run('list_tables', {}, { connectionString: 'postgresql://u:p@169.254.169.254:5432/db' }), 'blocked_destination');
    } finally {
      process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK = 'true';
    }
  });
});
