import { TEST_DATABASE_URL } from '@patchbay/testing';
import { createPrisma, type Db } from '../src/db';
import { call, createOrg, startHarness, type Harness, type TestOrg } from './harness';

/**
 * A change to an organization's gateway data (projects, customers, vendor keys, tags, the blocklist, routing
 * policies, guardrails) commits in one transaction with its cache invalidation in the outbox: a change whose
 * invalidation cannot be recorded is not made, so no replica can keep serving the old data for the cache's
 * lifetime after a crash between the two (issue 24's "staged after commit" gap).
 */
let h: Harness;
let org: TestOrg;
let db: Db;
const fn = `refuse_invalidation_${process.pid}`;

beforeAll(async () => {
  h = await startHarness();
  org = await createOrg(h, { paymentMethod: true });
  db = createPrisma(TEST_DATABASE_URL, 1);
}, 120_000);
afterAll(async () => {
  await db?.$executeRawUnsafe(`DROP TRIGGER IF EXISTS ${fn} ON event_outbox`).catch(() => undefined);
  await db?.$executeRawUnsafe(`DROP FUNCTION IF EXISTS ${fn}()`).catch(() => undefined);
  await db?.$disconnect();
  await h?.close();
});

test('a change whose invalidation cannot be recorded is not made; once it can, change and invalidation commit together', async () => {
  expect((await call(h.edgeUrl, org.mgmtKey, 'PUT', '/v1/blocklist', { models: ['acme/*'] })).status).toBe(200);
  const tagsBefore = (await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/tags')).body.data.length;

  // The outbox refuses this organization's invalidations (and nothing else's).
  await db.$executeRawUnsafe(
    `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.payload->>'organizationId' = '${org.organizationId}' THEN RAISE EXCEPTION 'outbox refused for the test'; END IF; RETURN NEW; END $$`,
  );
  await db.$executeRawUnsafe(`CREATE TRIGGER ${fn} BEFORE INSERT ON event_outbox FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
  try {
    const blocked = await call(h.edgeUrl, org.mgmtKey, 'PUT', '/v1/blocklist', { models: ['other/*'] });
    expect(blocked.status).toBeGreaterThanOrEqual(500);
    expect(JSON.stringify(blocked.body)).not.toMatch(/outbox refused|at .*\.ts:\d+/);
    const tag = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/tags', { key: 'team', value: 'atomic' });
    expect(tag.status).toBeGreaterThanOrEqual(500);
    const project = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/projects', { name: 'Not made' });
    expect(project.status).toBeGreaterThanOrEqual(500);
  } finally {
    await db.$executeRawUnsafe(`DROP TRIGGER IF EXISTS ${fn} ON event_outbox`);
    await db.$executeRawUnsafe(`DROP FUNCTION IF EXISTS ${fn}()`);
  }
  // None of the three changes was made.
  expect((await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/blocklist')).body).toEqual({ models: ['acme/*'] });
  expect((await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/tags')).body.data.length).toBe(tagsBefore);
  expect((await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/projects')).body.data.map((p: { name: string }) => p.name)).not.toContain('Not made');

  // With the outbox taking them again, the same change is made, and a model call sees it at once.
  expect((await call(h.edgeUrl, org.mgmtKey, 'PUT', '/v1/blocklist', { models: ['openai/*'] })).status).toBe(200);
  expect((await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/blocklist')).body).toEqual({ models: ['openai/*'] });
  const key = (await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/keys', { name: 'after the change' })).body as { key: string };
  const refused = await call(h.edgeUrl, key.key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  expect([refused.status, refused.body.error?.code]).toEqual([403, 'blocked_by_policy']);
});
