import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { applyMigrations, ensureDatabase } from '@patchbay/db';
import { SecretBox } from '@patchbay/secrets';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { DB_SCHEMA, MIGRATIONS_DIR } from '../src/config';
import { createPrisma, type Db } from '../src/db';
import { clientSecretContext } from '../src/domain/application-credentials';
import { linkFlowContext } from '../src/domain/link-tokens';
import { connectionSecretContext, storeCredential } from '../src/domain/store-credential';

/**
 * The rekey command runs over every row of a database, so it gets a database of its own: other test
 * files seal their rows with keys this test does not know.
 */
const REKEY_DB_URL = (() => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_rekey_${process.pid}`;
  return url.toString();
})();
const CLI = path.resolve(__dirname, '..', 'dist', 'cli', 'rekey.js');

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const keyC = randomBytes(32);
const onlyA = new SecretBox({ a: keyA }, 'a');
const onlyB = new SecretBox({ b: keyB }, 'b');
const onlyC = new SecretBox({ c: keyC }, 'c');

let db: Db;
let admin: Db;
beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the app first (pnpm build)`);
  await ensureDatabase(REKEY_DB_URL);
  await applyMigrations({ databaseUrl: REKEY_DB_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
  db = createPrisma(REKEY_DB_URL, 2);
  admin = createPrisma(TEST_DATABASE_URL, 1);
}, 60_000);
afterAll(async () => {
  await db.$disconnect();
  await admin.$executeRawUnsafe(`DROP DATABASE IF EXISTS "${new URL(REKEY_DB_URL).pathname.slice(1)}" WITH (FORCE)`);
  await admin.$disconnect();
});

interface CliRun {
  code: number;
  lines: Array<Record<string, unknown>>;
}

/** `node dist/cli/rekey.js` with the given keys, as an operator runs it. */
function runRekey(keys: Record<string, Buffer>, active: string): Promise<CliRun> {
  const env = {
    ...process.env,
    DATABASE_URL: REKEY_DB_URL,
    PATCHBAY_ENCRYPTION_KEYS: Object.entries(keys).map(([id, key]) => `${id}:${key.toString('base64')}`).join(','),
    PATCHBAY_ENCRYPTION_ACTIVE_KEY: active,
    REKEY_BATCH_SIZE: '2',
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI], { env }, (err, stdout) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, lines: stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) });
    });
  });
}

const done = (run: CliRun, column: string) => run.lines.find((l) => l.event === 'done' && l.column === column);

describe('rekey command', () => {
  it('re-seals every secret sealed with an old key: afterwards a box with only the new key opens everything; a second run finds nothing', async () => {
    const org = randomUUID();
    const scope = { organizationId: org, environment: 'production' as const };
    const connections: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const { connection } = await db.$transaction((tx) =>
        storeCredential(tx, onlyA, { ...scope, connectorSlug: `c${i}`, authScope: 'ORGANIZATION', authType: 'api_key', secret: { values: { api_key: `secret-${i}` } } }),
      );
      connections.push(connection.id);
    }
    const app = await db.applicationCredential.create({ data: { ...scope, connectorSlug: 'github', clientId: 'cid', scopes: [] } });
    await db.applicationCredential.update({ where: { id: app.id }, data: { clientSecretSealed: onlyA.seal('client-secret', clientSecretContext(app.id)) } });
    await db.applicationCredential.create({ data: { ...scope, connectorSlug: 'slack', clientId: 'public-client', scopes: [] } });
    const custom = randomUUID();
    await db.customConnector.create({
      data: { id: custom, ...scope, slug: 'mcp', name: 'MCP', description: '', url: 'https://mcp.example.com/mcp', authType: 'secret', secretSealed: onlyA.seal('mcp-secret', `custom-connector:${custom}`) },
    });
    const user = randomUUID();
    const link = await db.linkToken.create({ data: { ...scope, tokenHash: randomUUID(), registeredUserId: user, connectorSlug: 'github', expiresAt: new Date(Date.now() + 3_600_000) } });
    await db.linkToken.update({ where: { id: link.id }, data: { pkceVerifierSealed: onlyA.sealJson({ code_verifier: 'verifier', values: {} }, linkFlowContext(link.id)) } });

    const first = await runRekey({ a: keyA, b: keyB }, 'b');
    expect(first.code).toBe(0);
    expect(done(first, 'connections.credential_sealed')).toMatchObject({ found: 5, resealed: 5, failed: 0 });
    expect(done(first, 'application_credentials.client_secret_sealed')).toMatchObject({ found: 1, resealed: 1, failed: 0 });
    expect(done(first, 'custom_connectors.secret_sealed')).toMatchObject({ found: 1, resealed: 1, failed: 0 });
    expect(done(first, 'link_tokens.pkce_verifier_sealed')).toMatchObject({ found: 1, resealed: 1, failed: 0 });
    // Batches of 2: progress was printed along the way.
    expect(first.lines.filter((l) => l.event === 'progress' && l.column === 'connections.credential_sealed').length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(first.lines)).not.toContain('secret-');

    // Key A can now be retired: only B opens everything.
    for (const [i, id] of connections.entries()) {
      const row = await db.connection.findUniqueOrThrow({ where: { id } });
      expect(SecretBox.keyIdOf(row.credentialSealed)).toBe('b');
      expect(onlyB.openJson(row.credentialSealed, connectionSecretContext(id))).toEqual({ values: { api_key: `secret-${i}` } });
    }
    const appRow = await db.applicationCredential.findUniqueOrThrow({ where: { id: app.id } });
    expect(onlyB.open(appRow.clientSecretSealed as string, clientSecretContext(app.id))).toBe('client-secret');
    const customRow = await db.customConnector.findUniqueOrThrow({ where: { id: custom } });
    expect(onlyB.open(customRow.secretSealed as string, `custom-connector:${custom}`)).toBe('mcp-secret');
    const linkRow = await db.linkToken.findUniqueOrThrow({ where: { id: link.id } });
    expect(onlyB.openJson(linkRow.pkceVerifierSealed as string, linkFlowContext(link.id))).toEqual({ code_verifier: 'verifier', values: {} });

    const second = await runRekey({ a: keyA, b: keyB }, 'b');
    expect(second.code).toBe(0);
    expect(second.lines.find((l) => l.event === 'summary')).toEqual({ event: 'summary', resealed: 0, failed: 0 });
  });

  it('a value sealed with a key that is not configured is reported by id (never its value) and the command exits 1; the rest is re-sealed', async () => {
    const scope = { organizationId: randomUUID(), environment: 'production' as const };
    const { connection: lost } = await db.$transaction((tx) =>
      storeCredential(tx, onlyC, { ...scope, connectorSlug: 'lost', authScope: 'ORGANIZATION', authType: 'api_key', secret: { values: { api_key: 'unreachable' } } }),
    );
    const { connection: fine } = await db.$transaction((tx) =>
      storeCredential(tx, onlyA, { ...scope, connectorSlug: 'fine', authScope: 'ORGANIZATION', authType: 'api_key', secret: { values: { api_key: 'fine' } } }),
    );
    try {
      const run = await runRekey({ a: keyA, b: keyB }, 'b');
      expect(run.code).toBe(1);
      expect(done(run, 'connections.credential_sealed')).toMatchObject({ found: 2, resealed: 1, failed: 1, failed_ids: [lost.id] });
      expect(JSON.stringify(run.lines)).not.toContain('unreachable');
      const fineRow = await db.connection.findUniqueOrThrow({ where: { id: fine.id } });
      expect(onlyB.openJson(fineRow.credentialSealed, connectionSecretContext(fine.id))).toEqual({ values: { api_key: 'fine' } });
    } finally {
      await db.connection.delete({ where: { id: lost.id } });
    }
  });

  it('refuses to start without keys, naming the variable', async () => {
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const env = { ...process.env, DATABASE_URL: REKEY_DB_URL, PATCHBAY_ENCRYPTION_KEYS: '' };
      execFile(process.execPath, [CLI], { env }, (err, _stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stderr }));
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PATCHBAY_ENCRYPTION_KEYS');
  });
});
