import { randomBytes, randomUUID } from 'node:crypto';
import { KeyVerifier, hashAccessKey, httpKeyLoader } from '@patchbay/auth';
import { applyMigrations, ensureDatabase } from '@patchbay/db';
import { createLogger } from '@patchbay/service-kit';
import { TEST_DATABASE_URL, TEST_SERVICE_TOKEN, type TestOrganization } from '@patchbay/testing';
import type { Express } from 'express';
import { createApp } from '../src/app';
import { DB_SCHEMA, MIGRATIONS_DIR } from '../src/config';
import { createPrisma, type Db } from '../src/db';
import { request, startHarness, withAccount, type Harness } from './harness';

/**
 * What this proves, and what it does not: the "replica" is a second database on the same server,
 * migrated like the primary but never replicated, so the two hold different events of the same linked
 * account on purpose. An event only the replica has can come back only from an endpoint that reads
 * DATABASE_READ_URL (the app's `readDb`, as main.ts wires it); one only the primary has, only from one
 * that reads DATABASE_URL. Streaming replication and its lag are PostgreSQL's; this pins which endpoint
 * reads which database, and that an event by id (and the account token) is read from the primary.
 */
const REPLICA_URL = (() => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_read_replica`;
  return url.toString();
})();

let h: Harness;
let replica: Db;
let app: Express;
let verifier: KeyVerifier;
let org: TestOrganization;
beforeAll(async () => {
  await ensureDatabase(REPLICA_URL);
  await applyMigrations({ databaseUrl: REPLICA_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
  replica = createPrisma(REPLICA_URL, 2);
  h = await startHarness();
  verifier = new KeyVerifier({ loader: httpKeyLoader({ baseUrl: h.accessKeys.url, serviceToken: TEST_SERVICE_TOKEN }) });
  app = createApp({ services: { ...h.services, readDb: replica }, logger: createLogger('test', 'silent'), verifier });
  org = await h.newOrganization();
}, 120_000);
afterAll(async () => {
  await verifier?.close();
  await replica?.$disconnect();
  await h?.close();
});

/** The same linked account row in a database (its account token's hash included). */
async function insertAccount(db: Db, id: string, token: string): Promise<void> {
  await db.$executeRaw`
    INSERT INTO linked_accounts (id, organization_id, environment, platform, status, end_user_origin_id, end_user_organization_name,
      account_token_hash, credentials_sealed, sync_frequency_seconds)
    VALUES (${id}::uuid, ${org.organization_id}::uuid, 'production', 'hubspot', 'COMPLETE', ${`replica-${id}`}, 'Replica test', ${hashAccessKey(token)}, 'none', 86400)`;
}

async function insertEvent(db: Db, accountId: string, name: string): Promise<string> {
  const id = randomUUID();
  await db.$executeRaw`
    INSERT INTO events (id, linked_account_id, remote_id, created_at, modified_at, name, field_mappings, remote_data, hash, run_writes)
    VALUES (${id}::uuid, ${accountId}::uuid, ${`remote-${id}`}, now(), now(), ${name},
      '{"organization_defined_targets": {}, "linked_account_defined_targets": {}}'::jsonb, '[]'::jsonb, ${id}, 1)`;
  return id;
}

describe('DATABASE_READ_URL: the event list reads the replica, an event by id the primary', () => {
  it('lists the replica\'s events of the account and finds an event by id on the primary only', async () => {
    const accountId = randomUUID();
    const token = `pbat_${randomBytes(32).toString('base64url')}`;
    await insertAccount(h.db, accountId, token);
    await insertAccount(replica, accountId, token);
    const onPrimary = await insertEvent(h.db, accountId, 'Only on the primary');
    const onReplica = [await insertEvent(replica, accountId, 'Only on the replica'), await insertEvent(replica, accountId, 'Only on the replica')];
    const auth = withAccount(org.master_key, token);

    const list = await request(app).get('/api/mktg/v1/events').set(auth);
    expect(list.status).toBe(200);
    expect(list.body.results.map((e: { id: string }) => e.id).sort()).toEqual([...onReplica].sort());

    // Read-your-writes where the API promises it: an event by id is there as soon as the primary has it.
    const byId = await request(app).get(`/api/mktg/v1/events/${onPrimary}`).set(auth);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ id: onPrimary, name: 'Only on the primary' });
    expect((await request(app).get(`/api/mktg/v1/events/${onReplica[0]}`).set(auth)).status).toBe(404);

    // An event's contacts are a list too: the replica's event answers, the primary-only one is not there yet.
    expect((await request(app).get(`/api/mktg/v1/events/${onReplica[0]}/contacts`).set(auth)).status).toBe(200);
    expect((await request(app).get(`/api/mktg/v1/events/${onPrimary}/contacts`).set(auth)).status).toBe(404);
  });
});
