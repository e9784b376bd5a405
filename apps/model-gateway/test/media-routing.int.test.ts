import { randomUUID } from 'node:crypto';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { createPrisma, type Db } from '../src/db';
import { call, createKey, createOrg, eventually, startHarness, type Harness, type TestOrg } from './harness';

/**
 * Issue 27 §2: on the media endpoints "budgets, key limits, routing policies and failover apply as for
 * chat". A routing policy of image (or speech) models routes a media request and fails over between its
 * models, and every media attempt feeds the shared circuit breaker (a vendor failing its image requests
 * opens the breaker, and the next request skips it). Its own harness: the breaker state is per
 * (model, vendor), under a prefix of this file's, so no other test's media route is skipped.
 */
let h: Harness;
let org: TestOrg;
let db: Db;
let imagePolicy: string;
let speechPolicy: string;

beforeAll(async () => {
  h = await startHarness({ GATEWAY_ROUTE_HEALTH_PREFIX: `patchbay:test:media-routing:${randomUUID()}:`, GATEWAY_BREAKER_FAILURES: '2', GATEWAY_BREAKER_COOLDOWN_MS: '600000' });
  org = await createOrg(h);
  db = createPrisma(TEST_DATABASE_URL, 2);
  const images = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/routing-policies', { name: 'Pictures', strategy: 'priority', targets: [{ model: 'openai/gpt-image-1' }, { model: 'google/gemini-2.5-flash-image' }] });
  expect(images.status).toBe(201);
  imagePolicy = images.body.id;
  const speech = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/routing-policies', { name: 'Voices', strategy: 'priority', targets: [{ model: 'openai/tts-1' }, { model: 'google/gemini-2.5-flash-preview-tts' }] });
  expect(speech.status).toBe(201);
  speechPolicy = speech.body.id;
}, 120_000);

afterAll(async () => {
  await db?.$disconnect();
  await h?.close();
});

beforeEach(() => {
  h.openai.reset();
  h.gemini.reset();
});

const records = (keyHash: string) => db.usageRecord.findMany({ where: { keyHash }, orderBy: { createdAt: 'asc' } });
const imageCalls = () => h.openai.requests.filter((r) => r.path.endsWith('/images/generations')).length;

describe('routing policies on the media endpoints', () => {
  test('a policy of image models named by routing_policy_id fails over from a failing first model, each attempt recorded', async () => {
    const k = await createKey(h, org);
    h.openai.setFault({ kind: 'overloaded' }, { operation: 'images.generations' });
    const res = await call(h.edgeUrl, k.key, 'POST', '/v1/images/generations', { prompt: 'a lighthouse', routing_policy_id: imagePolicy });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: 'google/gemini-2.5-flash-image', vendor: 'google' });
    await eventually(async () => expect(await records(k.hash)).toHaveLength(2), 5000);
    const [failed, served] = await records(k.hash);
    expect(failed).toMatchObject({ model: 'openai/gpt-image-1', outcome: 'failed', costMicros: 0n });
    expect(served).toMatchObject({ model: 'google/gemini-2.5-flash-image', outcome: 'finished', billedUnit: 'per_image', billedUnits: 1 });
  });

  test('a key bound to a policy of speech models routes its model-less speech through it, failing over to Gemini TTS (X-Svc-Routing-Policy-Id also names it); its chat is unaffected', async () => {
    const bound = await createKey(h, org, { routing_policy_id: speechPolicy });
    h.openai.setFault({ kind: 'server_error' }, { operation: 'audio.speech' });
    const spoken = await fetch(`${h.edgeUrl}/v1/openai/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${bound.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hello there', voice: 'alloy' }) });
    expect(spoken.status).toBe(200);
    expect(spoken.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(await spoken.arrayBuffer()).subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(h.openai.requests.filter((r) => r.path.endsWith('/audio/speech'))).toHaveLength(1);
    expect(h.gemini.requests.at(-1)!.path).toContain('gemini-2.5-flash-preview-tts');
    const viaHeader = await call(h.edgeUrl, (await createKey(h, org)).key, 'POST', '/v1/audio/speech', { input: 'again', voice: 'nova' }, { 'X-Svc-Routing-Policy-Id': speechPolicy });
    expect(viaHeader.status).toBe(200);
    const chat = await call(h.edgeUrl, bound.key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(200);
  });

  test('unsupported_endpoint_for_model: a policy of image models named on the speech endpoint, and on chat', async () => {
    const k = await createKey(h, org);
    const speech = await call(h.edgeUrl, k.key, 'POST', '/v1/audio/speech', { input: 'hi', voice: 'alloy', routing_policy_id: imagePolicy });
    expect(speech.status).toBe(400);
    expect(speech.body.error).toMatchObject({ code: 'unsupported_endpoint_for_model', param: 'routing_policy_id' });
    const chat = await call(h.edgeUrl, k.key, 'POST', '/v1/chat/completions', { routing_policy_id: imagePolicy, messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(400);
    expect(chat.body.error).toMatchObject({ code: 'unsupported_endpoint_for_model' });
  });

  test('the dry run of a policy of image models resolves it as an image request: both models in order, no vendor called', async () => {
    const res = await call(h.edgeUrl, org.mgmtKey, 'POST', `/v1/routing-policies/${imagePolicy}/dry-run`, { request: { input: 'a lighthouse' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'routed', vendor_called: false });
    expect(res.body.routes.map((r: { model: string; vendor: string }) => `${r.model}@${r.vendor}`)).toEqual(['openai/gpt-image-1@openai', 'google/gemini-2.5-flash-image@google']);
    expect(h.openai.requests).toHaveLength(0);
  });

  test('a policy mixing chat and image models is refused naming the target', async () => {
    const res = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/routing-policies', { name: 'Mixed', strategy: 'priority', targets: [{ model: 'openai/gpt-image-1' }, { model: 'openai/gpt-4o' }] });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('targets[1].model');
  });
});

describe('the circuit breaker on media routes', () => {
  test('a vendor failing its image requests opens the breaker: the next request skips it and goes to the policy\'s next model', async () => {
    const k = await createKey(h, org);
    h.openai.setFault({ kind: 'overloaded' }, { operation: 'images.generations' });
    const image = () => call(h.edgeUrl, k.key, 'POST', '/v1/images/generations', { prompt: 'a harbour', routing_policy_id: imagePolicy });
    // Two failures within the window open it (GATEWAY_BREAKER_FAILURES=2; the first test's failure of this
    // route may be one of them); every request is still answered by the policy's next model. The failures
    // are written as the requests end: once the breaker reads open, OpenAI is not called at all.
    await eventually(async () => {
      const before = imageCalls();
      const res = await image();
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ model: 'google/gemini-2.5-flash-image' });
      expect(imageCalls()).toBe(before);
    }, 5000);
    expect(imageCalls()).toBeGreaterThanOrEqual(1);
    // The vendor is healthy again, but the route stays skipped until the cooldown ends: the breaker did it, not the fault.
    h.openai.clearFaults();
    const before = imageCalls();
    expect((await image()).body).toMatchObject({ model: 'google/gemini-2.5-flash-image' });
    expect(imageCalls()).toBe(before);
    // A concrete model has one route: it is still tried (breakers only reorder among several routes).
    expect((await call(h.edgeUrl, k.key, 'POST', '/v1/images/generations', { prompt: 'direct', model: 'openai/gpt-image-1' })).body).toMatchObject({ model: 'openai/gpt-image-1' });
  });
});
