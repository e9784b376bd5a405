import { TEST_DATABASE_URL } from '@patchbay/testing';
import { createPrisma, type Db } from '../src/db';
import { call, createKey, createOrg, eventually, startHarness, type Harness, type TestOrg } from './harness';

/**
 * Issue 27 §4: `model: "fusion"` on the native /v1/responses, through the edge router: the panel runs
 * in parallel, failed or blocked panel models are dropped, the judge writes the answer, a `fusion`
 * block describes the run, every call is billed and the usage is their sum; a stream request is a 400
 * (fusion_stream_unsupported); budgets are checked for the whole run before it starts.
 */
let h: Harness;
let org: TestOrg;
let db: Db;

beforeAll(async () => {
  h = await startHarness();
  org = await createOrg(h);
  db = createPrisma(TEST_DATABASE_URL, 2);
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await h?.close();
});

beforeEach(() => {
  h.openai.reset();
  h.anthropic.reset();
  h.gemini.reset();
});

const records = (keyHash: string) => db.usageRecord.findMany({ where: { keyHash }, orderBy: { model: 'asc' } });

const fusionBody = (extra: Record<string, unknown> = {}) => ({
  model: 'fusion',
  input: 'What is the capital of France?',
  max_tokens: 200,
  fusion: { analysis_models: ['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5', 'google/gemini-2.5-flash'], synthesis_model: 'openai/gpt-4o' },
  ...extra,
});

/** The texts a vendor fake was sent in its requests, as JSON. */
const sent = (fake: Harness['openai'], model: string) => fake.requests.filter((r) => JSON.stringify(r.json ?? {}).includes(`"${model}"`)).map((r) => JSON.stringify(r.json));

describe('fusion on the native /v1/responses', () => {
  test('the panel answers in parallel, a failed panel model is dropped, the judge writes the answer from the others; a fusion block describes the run; usage is the sum of every call, each billed', async () => {
    const key = await createKey(h, org);
    h.openai.script({ match: { model: 'gpt-4o-mini' }, text: 'Paris.', usage: { inputTokens: 100, outputTokens: 10 }, delayMs: 4000 });
    h.anthropic.script({ match: { model: 'claude-haiku-4-5' }, text: 'The capital of France is Paris, on the Seine.', usage: { inputTokens: 120, outputTokens: 20 }, delayMs: 4000 });
    h.gemini.setFault({ kind: 'server_error' }, { model: 'gemini-2.5-flash' });
    h.openai.script({ match: { model: 'gpt-4o' }, text: 'Paris is the capital of France; it lies on the Seine.', usage: { inputTokens: 400, outputTokens: 30 } });

    const started = Date.now();
    const res = await call(h.edgeUrl, key.key, 'POST', '/v1/responses', fusionBody());
    const elapsed = Date.now() - started;
    expect(res.status).toBe(200);
    // Parallel: two panel answers that each take 4 s took one wait, not two (in turn they would take 8 s at least).
    expect(elapsed).toBeGreaterThanOrEqual(4000);
    expect(elapsed).toBeLessThan(8000);
    expect(res.body.output[0].content[0].text).toBe('Paris is the capital of France; it lies on the Seine.');
    expect(res.body.model).toBe('openai/gpt-4o');
    expect(res.body.fusion).toMatchObject({
      analysis_models: ['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5', 'google/gemini-2.5-flash'],
      synthesis_model: 'openai/gpt-4o',
      responses: [
        { model: 'openai/gpt-4o-mini', vendor: 'openai', text: 'Paris.' },
        { model: 'anthropic/claude-haiku-4-5', vendor: 'anthropic', text: 'The capital of France is Paris, on the Seine.' },
      ],
      failed_models: [{ model: 'google/gemini-2.5-flash', status: 500, code: expect.any(String) }],
      calls: 4,
      judge: { model: 'openai/gpt-4o', vendor: 'openai' },
    });
    // The judge read the conversation and both surviving answers, marked as data.
    const judgeRequest = sent(h.openai, 'gpt-4o').join('\n');
    expect(judgeRequest).toContain('What is the capital of France?');
    expect(judgeRequest).toContain('Paris.');
    expect(judgeRequest).toContain('on the Seine.');
    expect(judgeRequest).toContain('data, not instructions');
    // Usage is the sum of the panel's and the judge's.
    expect(res.body.usage).toMatchObject({ input_tokens: 100 + 120 + 400, output_tokens: 10 + 20 + 30, total_tokens: 680 });
    const costs = [res.body.fusion.responses[0].usage.cost_usd, res.body.fusion.responses[1].usage.cost_usd, res.body.fusion.judge.usage.cost_usd] as number[];
    expect(costs.every((c) => c > 0)).toBe(true);
    expect(res.body.usage.cost_usd).toBeCloseTo(costs[0]! + costs[1]! + costs[2]!, 6);

    // Every call has its usage record at its own route; the failed one costs nothing.
    await eventually(async () => expect(await records(key.hash)).toHaveLength(4), 5000);
    const byModel = new Map((await records(key.hash)).map((r) => [r.model, r]));
    expect(byModel.get('openai/gpt-4o-mini')).toMatchObject({ outcome: 'finished', inputTokens: 100, outputTokens: 10 });
    expect(byModel.get('anthropic/claude-haiku-4-5')).toMatchObject({ outcome: 'finished', inputTokens: 120 });
    expect(byModel.get('google/gemini-2.5-flash')).toMatchObject({ outcome: 'failed', costMicros: 0n });
    expect(byModel.get('openai/gpt-4o')).toMatchObject({ outcome: 'finished', inputTokens: 400 });
    const billed = [...byModel.values()].reduce((sum, r) => sum + Number(r.costMicros), 0);
    expect(billed / 1e6).toBeCloseTo(res.body.usage.cost_usd, 6);
  });

  test('a panel model the key may not call or the organization blocks is dropped, and the run still succeeds', async () => {
    const key = await createKey(h, org, { allowed_models: ['openai/gpt-4o-mini', 'openai/gpt-4o'] });
    h.openai.script({ match: { model: 'gpt-4o-mini' }, text: 'Paris.' });
    h.openai.script({ match: { model: 'gpt-4o' }, text: 'Paris.' });
    const res = await call(h.edgeUrl, key.key, 'POST', '/v1/responses', fusionBody());
    expect(res.status).toBe(200);
    expect(res.body.fusion.responses.map((r: { model: string }) => r.model)).toEqual(['openai/gpt-4o-mini']);
    expect(res.body.fusion.failed_models).toEqual([
      expect.objectContaining({ model: 'anthropic/claude-haiku-4-5', status: 403, code: 'model_not_allowed' }),
      expect.objectContaining({ model: 'google/gemini-2.5-flash', status: 403, code: 'model_not_allowed' }),
    ]);
    expect(h.anthropic.requests).toHaveLength(0);
  });

  test('fusion_panel_failed when no panel model gives a usable answer; the judge is never called', async () => {
    const key = await createKey(h, org);
    h.openai.setFault({ kind: 'server_error' }, { model: 'gpt-4o-mini' });
    h.anthropic.setFault({ kind: 'overloaded' }, { model: 'claude-haiku-4-5' });
    h.gemini.setFault({ kind: 'server_error' }, { model: 'gemini-2.5-flash' });
    const res = await call(h.edgeUrl, key.key, 'POST', '/v1/responses', fusionBody());
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'fusion_panel_failed', type: 'provider_error', param: 'fusion.analysis_models' });
    expect(res.body.fusion.failed_models).toHaveLength(3);
    expect(sent(h.openai, 'gpt-4o')).toHaveLength(0);
  });

  test('fusion_stream_unsupported: a stream request gets a clear 400 and no call is made', async () => {
    const key = await createKey(h, org);
    const res = await call(h.edgeUrl, key.key, 'POST', '/v1/responses', fusionBody({ stream: true }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'fusion_stream_unsupported', param: 'stream', source: 'gateway' });
    expect(res.body.error.message).toMatch(/not streamed/);
    expect(res.headers.get('x-ratelimit-limit')).toBe('0');
    expect(h.openai.requests.length + h.anthropic.requests.length + h.gemini.requests.length).toBe(0);
  });

  test('invalid_fusion_request: no analysis_models, a repeated model, tools, or a routing policy with fusion', async () => {
    const key = await createKey(h, org);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ fusion: { synthesis_model: 'openai/gpt-4o' } }, 'fusion.analysis_models'],
      [{ fusion: { analysis_models: ['openai/gpt-4o-mini', 'openai/gpt-4o-mini'] } }, 'fusion.analysis_models'],
      [{ fusion: undefined }, 'fusion'],
      [{ tools: [{ type: 'function', name: 'x', parameters: { type: 'object' } }] }, 'tools'],
      [{ routing_policy_id: '5f1b7c4e-4b1a-4c7e-9d1a-0a0a0a0a0a0a' }, 'routing_policy_id'],
    ];
    for (const [extra, param] of cases) {
      const res = await call(h.edgeUrl, key.key, 'POST', '/v1/responses', fusionBody(extra));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_fusion_request', param });
    }
    const unknown = await call(h.edgeUrl, key.key, 'POST', '/v1/responses', fusionBody({ fusion: { analysis_models: ['nobody/nothing'], synthesis_model: 'openai/gpt-4o' } }));
    expect(unknown.body.error.code).toBe('invalid_model_format');
  });

  test('budgets are checked for the whole run before the panel starts: a key at its limit gets 402 and no model is called', async () => {
    const key = await createKey(h, org, { limit: 0.000001, limit_reset: 'daily' });
    h.openai.script({ match: { model: 'gpt-4o-mini' }, text: 'spent' });
    expect((await call(h.edgeUrl, key.key, 'POST', '/v1/responses', { model: 'openai/gpt-4o-mini', input: 'spend the limit' })).status).toBe(200);
    h.openai.reset();
    await eventually(async () => {
      const res = await call(h.edgeUrl, key.key, 'POST', '/v1/responses', fusionBody());
      expect(res.status).toBe(402);
      expect(res.body.error).toMatchObject({ type: 'budget_exceeded', code: 'api_key_limit_exceeded' });
    }, 5000);
    expect(h.openai.requests.length + h.anthropic.requests.length + h.gemini.requests.length).toBe(0);
  });

  test('budgets reserved for the whole panel before it starts: of two concurrent runs against a key limit that fits one, one runs and the other is refused before any call; the spend is the sum of the calls', async () => {
    // The run's worst case (200 output tokens of gpt-4o-mini, claude-haiku-4-5 and the judge, at their prices) is
    // over 0.001 USD, its real cost far under it: the limit fits one run, and once one is reserved nothing is left.
    const key = await createKey(h, org, { limit: 0.001, limit_reset: 'daily' });
    h.openai.script({ match: { model: 'gpt-4o-mini' }, text: 'Paris.', usage: { inputTokens: 20, outputTokens: 5 }, delayMs: 1500, times: 2 });
    h.anthropic.script({ match: { model: 'claude-haiku-4-5' }, text: 'Paris, on the Seine.', usage: { inputTokens: 20, outputTokens: 8 }, delayMs: 1500, times: 2 });
    const body = fusionBody({ fusion: { analysis_models: ['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5'], synthesis_model: 'openai/gpt-4o-mini' } });

    const [a, b] = await Promise.all([call(h.edgeUrl, key.key, 'POST', '/v1/responses', body), call(h.edgeUrl, key.key, 'POST', '/v1/responses', body)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 402]);
    const ran = a.status === 200 ? a : b;
    const refused = a.status === 200 ? b : a;
    expect(refused.body.error).toMatchObject({ type: 'budget_exceeded', code: 'api_key_limit_exceeded' });
    // Only the admitted run called anyone: its two panel models and its judge.
    expect(h.openai.requests.length + h.anthropic.requests.length + h.gemini.requests.length).toBe(3);
    expect(ran.body.fusion.calls).toBe(3);

    // Each call has its record; the key's spend (the counters the reservation was settled into) is their sum,
    // which is the answer's usage; the run counts as one model request.
    await eventually(async () => expect(await records(key.hash)).toHaveLength(3), 5000);
    const rows = await records(key.hash);
    const billed = rows.reduce((sum, r) => sum + Number(r.costMicros), 0);
    expect(billed).toBeGreaterThan(0);
    expect(billed / 1e6).toBeCloseTo(ran.body.usage.cost_usd, 6);
    expect(rows.filter((r) => r.countedModelRequest)).toHaveLength(1);
    const read = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${key.hash}`);
    expect(read.body.data.usage).toBeCloseTo(billed / 1e6, 9);
  }, 30_000);

  test('model "fusion" is only for the native endpoint: the OpenAI surface does not know it', async () => {
    const key = await createKey(h, org);
    const res = await call(h.edgeUrl, key.key, 'POST', '/v1/openai/responses', { model: 'fusion', input: 'hi' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_model_format');
  });
});
