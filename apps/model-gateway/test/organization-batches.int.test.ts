import { memberSession, type MemberSession } from '@patchbay/testing';
import OpenAI, { toFile } from 'openai';
import { call, createKey, createOrg, eventually, startHarness, type Harness, type TestOrg } from './harness';

/**
 * GET /v1/organization/batches (the console's batches page): every key's and customer's batches of the
 * session's environment, with the key and customer that made each, and a finished batch's output and error
 * lines; guarded by view_api_keys like the keys it lists; never another organization's or environment's.
 * OpenAI's /v1/batches stays each key's own.
 */
jest.setTimeout(240_000);
let h: Harness;
let org: TestOrg;
let workers: { close(): Promise<void> };
beforeAll(async () => {
  h = await startHarness();
  org = await createOrg(h, { paymentMethod: true });
  workers = h.runtime.startBatchWorkers({ concurrency: 2 });
}, 300_000);
afterAll(async () => {
  await workers?.close();
  await h?.close();
});

const jsonl = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
const line = (customId: string, model = 'openai/gpt-4o') => ({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, max_tokens: 50, messages: [{ role: 'user', content: `line ${customId}` }] } });

async function runBatch(key: string, lines: unknown[], headers: Record<string, string> = {}): Promise<OpenAI.Batches.Batch> {
  const client = new OpenAI({ apiKey: key, baseURL: `${h.edgeUrl}/v1/openai`, maxRetries: 0, defaultHeaders: headers });
  const file = await client.files.create({ file: await toFile(Buffer.from(jsonl(lines)), 'input.jsonl'), purpose: 'batch' });
  const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  let done!: OpenAI.Batches.Batch;
  await eventually(async () => {
    done = await client.batches.retrieve(created.id);
    expect(done.status).toBe('completed');
  }, 60_000);
  return done;
}

const asMember = (session: MemberSession, pathname: string) => call(h.gatewayUrl, null, 'GET', pathname, undefined, session.headers('GET', `${h.gatewayUrl}${pathname}`));

describe("the organization's batches, for the console", () => {
  let ownKey: { key: string; hash: string };
  let ownBatch: OpenAI.Batches.Batch;
  let customerBatch: OpenAI.Batches.Batch;
  const customerId = '5b8f3c1e-2d7a-4e9b-8c6f-1a2b3c4d5e6f';

  beforeAll(async () => {
    h.openai.script({ text: 'batched answer', usage: { inputTokens: 5, outputTokens: 2 }, times: Infinity, match: { operation: 'chat.completions' } });
    ownKey = await createKey(h, org, { name: 'batch maker' });
    expect((await call(h.gatewayUrl, org.mgmtKey, 'POST', '/v1/customers', { id: customerId, name: 'Batch customer' })).status).toBe(201);
    const customerKey = (await call(h.gatewayUrl, org.mgmtKey, 'POST', `/v1/customers/${customerId}/api-keys`, { name: 'customer batch key' })).body as { key: string };
    // One line of the organization's batch names a model nobody serves: its error file has a line too.
    ownBatch = await runBatch(ownKey.key, [line('a'), line('b'), line('c', 'openai/no-such-model')]);
    customerBatch = await runBatch(customerKey.key, [line('x')]);
  });

  it('lists every key\'s and customer\'s batches, newest first, naming the key and customer; view_api_keys is enough', async () => {
    const viewer = await memberSession(h.accessKeys, org.organizationId, { permissions: ['view_api_keys'] });
    const list = await asMember(viewer, '/v1/organization/batches');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', environment: 'production', has_more: false });
    expect(list.body.data.map((b: { id: string }) => b.id)).toEqual([customerBatch.id, ownBatch.id]);
    expect(list.body.data[1]).toMatchObject({ key_hash: ownKey.hash, customer_id: null, status: 'completed', request_counts: { total: 3, completed: 2, failed: 1 } });
    expect(list.body.data[0]).toMatchObject({ customer_id: customerId, request_counts: { total: 1, completed: 1, failed: 0 } });

    // Paged by the last id; filtered by status and key.
    const first = await asMember(viewer, '/v1/organization/batches?limit=1');
    expect([first.body.data.length, first.body.has_more]).toEqual([1, true]);
    const second = await asMember(viewer, `/v1/organization/batches?limit=1&after=${first.body.last_id}`);
    expect(second.body.data.map((b: { id: string }) => b.id)).toEqual([ownBatch.id]);
    expect((await asMember(viewer, `/v1/organization/batches?key_hash=${ownKey.hash}`)).body.data.map((b: { id: string }) => b.id)).toEqual([ownBatch.id]);
    expect((await asMember(viewer, '/v1/organization/batches?status=in_progress')).body.data).toEqual([]);
  });

  it("a batch's detail carries the first lines of its output and error files", async () => {
    const viewer = await memberSession(h.accessKeys, org.organizationId, { permissions: ['view_api_keys'] });
    const detail = await asMember(viewer, `/v1/organization/batches/${ownBatch.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.output_preview).toMatchObject({ file_id: ownBatch.output_file_id, truncated: false });
    expect(detail.body.output_preview.lines.map((l: { custom_id: string }) => l.custom_id).sort()).toEqual(['a', 'b']);
    expect(detail.body.output_preview.lines[0].response.body.choices[0].message.content).toBe('batched answer');
    expect(detail.body.error_preview.lines).toEqual([expect.objectContaining({ custom_id: 'c', error: expect.objectContaining({ code: expect.any(String) }) })]);
  });

  it('refuses without view_api_keys (403 naming it), and never shows another organization\'s or environment\'s batch', async () => {
    const nobody = await memberSession(h.accessKeys, org.organizationId, { permissions: ['view_members'] });
    const refused = await asMember(nobody, '/v1/organization/batches');
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('view_api_keys');

    const other = await createOrg(h);
    const stranger = await memberSession(h.accessKeys, other.organizationId, { permissions: ['view_api_keys'] });
    expect((await asMember(stranger, '/v1/organization/batches')).body.data).toEqual([]);
    expect((await asMember(stranger, `/v1/organization/batches/${ownBatch.id}`)).status).toBe(404);

    const testSide = await memberSession(h.accessKeys, org.organizationId, { permissions: ['view_api_keys'], environment: 'test' });
    const testList = await asMember(testSide, '/v1/organization/batches');
    expect([testList.body.environment, testList.body.data]).toEqual(['test', []]);
    expect((await asMember(testSide, `/v1/organization/batches/${ownBatch.id}`)).status).toBe(404);
    // A session cannot look across the switch; a management key names the environment.
    expect((await asMember(testSide, '/v1/organization/batches?environment=production')).status).toBe(400);
    const byKey = await call(h.gatewayUrl, org.mgmtKey, 'GET', '/v1/organization/batches?environment=test');
    expect([byKey.status, byKey.body.data]).toEqual([200, []]);
  });

  it('bad query parameters are 400s that say what to change', async () => {
    for (const [query, words] of [['limit=0', 'limit must be a whole number from 1 to 100'], ['status=done', 'status must be one of'], ['after=nope', 'pass the last_id'], ['environment=staging', 'environment must be production or test']] as const) {
      const res = await call(h.gatewayUrl, org.mgmtKey, 'GET', `/v1/organization/batches?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body.detail).toContain(words);
    }
    expect((await call(h.gatewayUrl, org.mgmtKey, 'GET', '/v1/organization/batches/not-a-uuid')).status).toBe(404);
  });
});
