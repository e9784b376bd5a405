import { TEST_DATABASE_URL } from '@patchbay/testing';
import { createPrisma } from '../src/db';
import { call, createKey, createOrg, eventually, startHarness, type Harness } from './harness';

/** An organization's own vendor key (BYOK): sealed, never returned, used first, counted as byok usage. */
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

test('a BYOK key is sealed at rest, never returned, used for its vendor, and its traffic counts in byok_usage', async () => {
  const org = await createOrg(h);
  const own = h.openai.apiKeys.secondary;
  const put = await call(h.edgeUrl, org.mgmtKey, 'PUT', '/v1/vendor-keys/openai', { api_key: own });
  expect(put.status).toBe(200);
  expect(JSON.stringify(put.body)).not.toContain(own);
  const listed = await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/vendor-keys');
  expect(listed.body.data).toEqual([expect.objectContaining({ vendor: 'openai', key_last4: own.slice(-4) })]);
  expect(JSON.stringify(listed.body)).not.toContain(own);
  const db = createPrisma(TEST_DATABASE_URL, 1);
  try {
    const row = await db.vendorKey.findFirstOrThrow({ where: { organizationId: org.organizationId } });
    expect(row.sealedKey).not.toContain(own);
  } finally {
    await db.$disconnect();
  }

  const created = await createKey(h, org);
  h.openai.reset();
  h.openai.script({ text: 'byok', usage: { inputTokens: 1000, outputTokens: 100 } });
  expect((await call(h.edgeUrl, created.key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
  expect(h.openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${own}`);
  await eventually(async () => {
    const read = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${created.hash}`);
    expect(read.body.data.byok_usage_daily).toBeCloseTo(0.0035, 9);
    expect(read.body.data.usage_daily).toBeCloseTo(0.0035, 9);
  }, 5000);

  // Removing it falls back to the platform's key at once.
  expect((await call(h.edgeUrl, org.mgmtKey, 'DELETE', '/v1/vendor-keys/openai')).status).toBe(200);
  expect((await call(h.edgeUrl, created.key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
  expect(h.openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${h.openai.apiKeys.valid}`);
});

test('a vendor without BYOK support or an unknown vendor is 404; a malformed base_url is 400', async () => {
  const org = await createOrg(h);
  expect((await call(h.edgeUrl, org.mgmtKey, 'PUT', '/v1/vendor-keys/nope', { api_key: 'x' })).status).toBe(404);
  expect((await call(h.edgeUrl, org.mgmtKey, 'PUT', '/v1/vendor-keys/openai', { api_key: 'x', base_url: 'ftp://x' })).status).toBe(400);
});
