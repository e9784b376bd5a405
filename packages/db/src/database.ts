import { Client } from 'pg';

/**
 * Creates the database named in the URL when it does not exist yet (connecting to the
 * server's `postgres` database to do so). Lets `pnpm start` and the tests run on a bare server.
 */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) return;
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } catch (err) {
        // Another process created it between our check and our create.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await client.end();
  }
}

/** Whether a PostgreSQL server answers at this URL (used by `pnpm start` to decide on embedded PostgreSQL). */
export async function canConnect(databaseUrl: string, timeoutMs = 1500): Promise<boolean> {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString(), connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
