import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { request as httpRequest, type ClientRequest } from 'node:http';
import path from 'node:path';
import { Queue } from 'bullmq';
import { QUEUE_NAMES } from '@patchbay/queues';
import { generateEncryptionKey } from '@patchbay/secrets';
import Redis from 'ioredis';
import OpenAI, { toFile } from 'openai';
import { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN, freePort } from '@patchbay/testing';
import { sweepExpiredBatches } from '../src/batches/batch-runner';
import { submitSlotKey } from '../src/batches/submit-slots';
import { call, createKey, createOrg, eventually, startHarness, type Harness } from './harness';

/**
 * Batches (issue 10 §4): OpenAI-compatible Files and Batches on the real server, PostgreSQL, Redis
 * and BullMQ workers, each line through the single-request pipeline against the vendor fakes.
 */
const SLOT_PREFIX = `test-batches-${process.pid}:`;
let h: Harness;
let redis: Redis;

beforeAll(async () => {
  h = await startHarness({ GATEWAY_BATCH_KEY_PREFIX: SLOT_PREFIX });
  redis = new Redis(TEST_REDIS_URL);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await h?.close();
});

beforeEach(() => {
  h.openai.reset();
});

interface Line {
  custom_id: string;
  method: string;
  url: string;
  body: Record<string, unknown>;
}

const chatLine = (customId: string, extra: Record<string, unknown> = {}): Line => ({
  custom_id: customId,
  method: 'POST',
  url: '/v1/chat/completions',
  body: { model: 'openai/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: `line ${customId}` }], ...extra },
});
const jsonl = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;

/** The custom_id a request to the fake came from (each line's prompt names it). */
function vendorCallsByCustomId(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of h.openai.requests) {
    const content = (r.json as { messages?: Array<{ content?: unknown }> } | undefined)?.messages?.[0]?.content;
    const match = typeof content === 'string' ? /^line (.+)$/.exec(content) : null;
    if (match) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
  }
  return counts;
}

function sdk(key: string, base: '/v1/openai' | '/v1' = '/v1/openai'): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${h.edgeUrl}${base}`, maxRetries: 0 });
}

async function submit(client: OpenAI, lines: unknown[], endpoint: '/v1/chat/completions' | '/v1/embeddings' | '/v1/responses' = '/v1/chat/completions') {
  const file = await client.files.create({ file: await toFile(Buffer.from(jsonl(lines)), 'input.jsonl'), purpose: 'batch' });
  return client.batches.create({ input_file_id: file.id, endpoint, completion_window: '24h' });
}

async function waitFor(client: OpenAI, id: string, statuses: string[], timeoutMs = 30_000): Promise<OpenAI.Batches.Batch> {
  let batch!: OpenAI.Batches.Batch;
  await eventually(async () => {
    batch = await client.batches.retrieve(id);
    expect(statuses).toContain(batch.status);
  }, timeoutMs);
  return batch;
}

async function resultLines(client: OpenAI, fileId: string | null | undefined): Promise<any[]> {
  if (!fileId) return [];
  const text = await (await client.files.content(fileId)).text();
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

describe('the openai SDK, unmodified', () => {
  test('files.create, batches.create, poll, files.content: every line answered in the batch object OpenAI defines', async () => {
    const org = await createOrg(h);
    const key = (await createKey(h, org)).key;
    const client = sdk(key);
    h.openai.script({ text: 'batched answer', usage: { inputTokens: 12, outputTokens: 3 }, times: Infinity, match: { operation: 'chat.completions' } });
    const workers = h.runtime.startBatchWorkers({ concurrency: 2 });
    try {
      const lines = [chatLine('a-1'), chatLine('a-2'), chatLine('a-3')];
      const created = await submit(client, lines);
      expect(created).toMatchObject({ object: 'batch', endpoint: '/v1/chat/completions', completion_window: '24h', status: 'validating', request_counts: { total: 3, completed: 0, failed: 0 }, output_file_id: null, error_file_id: null });
      expect(created.expires_at! - created.created_at).toBe(24 * 3600);
      const done = await waitFor(client, created.id, ['completed']);
      expect(done.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });
      expect(done.in_progress_at).not.toBeNull();
      expect(done.finalizing_at).not.toBeNull();
      expect(done.completed_at).not.toBeNull();
      expect(done.error_file_id).toBeNull();
      // OpenAI's optional model and usage, once finalized: the answered lines' tokens added up.
      expect(created.usage).toBeUndefined();
      expect(done.model).toBe('openai/gpt-4o');
      expect(done.usage).toEqual({ input_tokens: 36, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 45 });
      const output = await resultLines(client, done.output_file_id);
      expect(output.map((l) => l.custom_id)).toEqual(['a-1', 'a-2', 'a-3']);
      for (const line of output) {
        expect(line.error).toBeNull();
        expect(line.response.status_code).toBe(200);
        expect(line.response.body).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'batched answer' } }], usage: { prompt_tokens: 12, completion_tokens: 3 } });
      }
      expect(vendorCallsByCustomId()).toEqual(new Map([['a-1', 1], ['a-2', 1], ['a-3', 1]]));
      expect(new Set(output.map((l) => l.response.request_id)).size).toBe(3);
      // One usage record per line, as for single requests.
      await eventually(async () => {
        const usage = await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/usage?group_by=model');
        expect(usage.body.data).toEqual([expect.objectContaining({ model: 'openai/gpt-4o', requests: 3, input_tokens: 36, output_tokens: 9 })]);
      }, 5000);

      // The same objects at {gateway_url}/v1, and OpenAI's after/limit list.
      const plain = sdk(key, '/v1');
      expect((await plain.batches.retrieve(created.id)).status).toBe('completed');
      const second = await submit(plain, [chatLine('b-1')]);
      const secondDone = await waitFor(plain, second.id, ['completed']);
      const page = await plain.batches.list({ limit: 1 });
      expect(page.data.map((b) => b.id)).toEqual([second.id]);
      expect(page.has_more).toBe(true);
      const all: string[] = [];
      for await (const batch of plain.batches.list({ limit: 1 })) all.push(batch.id);
      expect(all).toEqual([second.id, created.id]);
      const outputs = await plain.files.list({ purpose: 'batch_output' });
      expect(outputs.data.map((f) => f.id)).toEqual([secondDone.output_file_id, done.output_file_id]);
      const outputFile = await plain.files.retrieve(done.output_file_id!);
      expect(outputFile).toMatchObject({ object: 'file', purpose: 'batch_output', bytes: expect.any(Number) });
      expect(await plain.files.delete(done.output_file_id!)).toMatchObject({ id: done.output_file_id, deleted: true });
      await expect(plain.files.retrieve(done.output_file_id!)).rejects.toMatchObject({ status: 404 });
    } finally {
      await workers.close();
    }
  });

  test("another organization sees none of the files and batches, nor does a customer's key see the organization's", async () => {
    const owner = await createOrg(h);
    const ownerKey = (await createKey(h, owner)).key;
    const file = await sdk(ownerKey).files.create({ file: await toFile(Buffer.from(jsonl([chatLine('x')])), 'x.jsonl'), purpose: 'batch' });
    const other = await createOrg(h);
    const otherKey = (await createKey(h, other)).key;
    await expect(sdk(otherKey).files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
    const customer = randomUUID();
    expect((await call(h.edgeUrl, owner.mgmtKey, 'POST', '/v1/customers', { id: customer })).status).toBe(201);
    const customerKey = (await call(h.edgeUrl, owner.mgmtKey, 'POST', `/v1/customers/${customer}/api-keys`, {})).body.key as string;
    await expect(sdk(customerKey).files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
    const customerFile = await sdk(customerKey).files.create({ file: await toFile(Buffer.from(jsonl([chatLine('y')])), 'y.jsonl'), purpose: 'batch' });
    expect((await sdk(ownerKey).files.retrieve(customerFile.id)).id).toBe(customerFile.id);
    const res = await call(h.edgeUrl, otherKey, 'POST', '/v1/batches', { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('file_not_found');
  });
});

describe('OpenAPI', () => {
  test('the merged document the edge serves covers every file and batch route, at /v1 and /v1/openai', async () => {
    const doc = await call(h.edgeUrl, null, 'GET', '/openapi.json');
    for (const base of ['/v1', '/v1/openai']) {
      expect(doc.body.paths[`${base}/files`]).toHaveProperty('post.requestBody.content.multipart/form-data');
      expect(Object.keys(doc.body.paths[`${base}/files/{file_id}`])).toEqual(expect.arrayContaining(['get', 'delete']));
      expect(doc.body.paths[`${base}/files/{file_id}/content`]).toHaveProperty('get');
      expect(Object.keys(doc.body.paths[`${base}/batches`])).toEqual(expect.arrayContaining(['get', 'post']));
      expect(doc.body.paths[`${base}/batches`].post.responses['429'].description).toContain('batch_submit_busy');
      expect(doc.body.paths[`${base}/batches/{batch_id}`]).toHaveProperty('get');
      expect(doc.body.paths[`${base}/batches/{batch_id}/cancel`]).toHaveProperty('post');
    }
  });
});

describe('input files are validated at upload', () => {
  let key: string;
  beforeAll(async () => {
    key = (await createKey(h, await createOrg(h))).key;
  });

  const upload = async (content: string, purpose = 'batch') => {
    const form = new FormData();
    form.append('purpose', purpose);
    form.append('file', new Blob([content]), 'input.jsonl');
    const res = await fetch(`${h.edgeUrl}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    return { status: res.status, body: (await res.json()) as any };
  };

  test('a bad line is a 400 naming the line and its custom_id', async () => {
    const res = await upload(jsonl([chatLine('ok-1'), { ...chatLine('bad-2'), method: 'GET' }]));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_batch_file', param: 'file' });
    expect(res.body.error.message).toBe('Line 2 (custom_id "bad-2"): method must be "POST" (got "GET").');
    const url = await upload(jsonl([{ ...chatLine('u-1'), url: '/v1/images/generations' }]));
    expect(url.body.error.message).toContain('Line 1 (custom_id "u-1"): url must be one of /v1/chat/completions, /v1/embeddings, /v1/responses');
    const notJson = await upload(`${JSON.stringify(chatLine('j-1'))}\n{not json\n`);
    expect(notJson.body.error.message).toBe('Line 2: is not valid JSON; every line must be one JSON object.');
    const streaming = await upload(jsonl([chatLine('s-1', { stream: true })]));
    expect(streaming.body.error.message).toBe('Line 1 (custom_id "s-1"): body.stream is true; batch lines cannot stream.');
  });

  test('a duplicate custom_id is a 400 naming both lines', async () => {
    const res = await upload(jsonl([chatLine('dup'), chatLine('other'), chatLine('dup')]));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'duplicate_custom_id', message: 'Line 3: custom_id "dup" is already used on line 1; each line needs its own custom_id.' });
  });

  test('purpose other than batch, and a missing file part, are 400s', async () => {
    expect((await upload(jsonl([chatLine('p')]), 'fine-tune')).body.error.code).toBe('invalid_purpose');
    const res = await fetch(`${h.edgeUrl}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('invalid_content_type');
  });

  test('lines whose url is not the batch endpoint are refused at create, naming the line', async () => {
    const client = sdk(key);
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl([chatLine('c-1'), { custom_id: 'e-2', method: 'POST', url: '/v1/embeddings', body: { model: 'openai/text-embedding-3-small', input: 'x' } }])), 'mixed.jsonl'), purpose: 'batch' });
    await expect(client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toMatchObject({
      status: 400,
      error: expect.objectContaining({ code: 'endpoint_mismatch', message: expect.stringContaining('Line 2 (custom_id "e-2")') }),
    });
  });

  test('the scope headers the lines will carry are checked once, at create: an unknown customer or a malformed policy id is one 400', async () => {
    const client = sdk(key);
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl([chatLine('c-1')])), 'one.jsonl'), purpose: 'batch' });
    const params = { input_file_id: file.id, endpoint: '/v1/chat/completions' as const, completion_window: '24h' as const };
    await expect(client.batches.create(params, { headers: { 'X-Svc-Customer': randomUUID() } })).rejects.toMatchObject({ status: 400, error: expect.objectContaining({ code: 'invalid_customer' }) });
    await expect(client.batches.create(params, { headers: { 'X-Svc-Routing-Policy-Id': 'not-a-uuid' } })).rejects.toMatchObject({ status: 400, error: expect.objectContaining({ code: 'invalid_routing_policy_id' }) });
    expect((await client.batches.list()).data.filter((b) => b.input_file_id === file.id)).toHaveLength(0);
  });

  test('no key is a 401 before the upload is read', async () => {
    const res = await call(h.edgeUrl, null, 'GET', '/v1/batches');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('missing_api_key');
  });
});

describe('lines run as single requests', () => {
  test('a line error goes to the error file naming its custom_id; the other lines are answered', async () => {
    const org = await createOrg(h);
    const client = sdk((await createKey(h, org)).key);
    h.openai.script({ text: 'fine', times: Infinity, match: { operation: 'chat.completions' } });
    const workers = h.runtime.startBatchWorkers({ concurrency: 2 });
    try {
      const created = await submit(client, [chatLine('good-1'), chatLine('bad-model', { model: 'openai/no-such-model' }), chatLine('good-2')]);
      const done = await waitFor(client, created.id, ['completed']);
      expect(done.request_counts).toEqual({ total: 3, completed: 2, failed: 1 });
      expect((await resultLines(client, done.output_file_id)).map((l) => l.custom_id)).toEqual(['good-1', 'good-2']);
      const errors = await resultLines(client, done.error_file_id);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ custom_id: 'bad-model', response: { status_code: 400, body: { error: { type: 'invalid_request_error' } } }, error: { code: expect.any(String), message: expect.stringContaining('openai/no-such-model') } });
      expect(errors[0].error.code).toBe(errors[0].response.body.error.code);
      expect(vendorCallsByCustomId().get('bad-model')).toBeUndefined();
    } finally {
      await workers.close();
    }
  });

  test("budgets apply to each line: the key's spend limit stops the lines past it with 402 api_key_limit_exceeded", async () => {
    const org = await createOrg(h);
    // 0.0035 USD a line (1000 input × 2.50 + 100 output × 10.00 per million): the third line finds 0.007 spent of 0.005.
    const created = await createKey(h, org, { limit: 0.005, limit_reset: 'daily' });
    const client = sdk(created.key);
    h.openai.script({ text: 'x', usage: { inputTokens: 1000, outputTokens: 100 }, times: Infinity, match: { operation: 'chat.completions' } });
    const workers = h.runtime.startBatchWorkers({ concurrency: 1 });
    try {
      const batch = await submit(client, [chatLine('m-1'), chatLine('m-2'), chatLine('m-3'), chatLine('m-4')]);
      const done = await waitFor(client, batch.id, ['completed']);
      expect(done.request_counts).toEqual({ total: 4, completed: 2, failed: 2 });
      const errors = await resultLines(client, done.error_file_id);
      expect(errors.map((e) => [e.custom_id, e.response.status_code, e.error.code])).toEqual([
        ['m-3', 402, 'api_key_limit_exceeded'],
        ['m-4', 402, 'api_key_limit_exceeded'],
      ]);
      expect(h.openai.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(2);
      // Each line settled at its real cost, as a single request does: the key's usage is the two answered lines.
      await eventually(async () => {
        const read = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${created.hash}`);
        expect(read.body.data.usage).toBeCloseTo(0.007, 9);
      }, 5000);
    } finally {
      await workers.close();
    }
  });
});

describe('workers', () => {
  test('a worker killed mid-batch: a second worker finishes it, every line answered once and no line sent to the vendor twice', async () => {
    const org = await createOrg(h);
    const client = sdk((await createKey(h, org)).key);
    h.openai.script({ text: 'slow answer', delayMs: 150, times: Infinity, match: { operation: 'chat.completions' } });
    const fast = { lockDurationMs: 1000, stalledIntervalMs: 500 };
    const firstConnection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const first = h.runtime.startBatchWorkers({ concurrency: 3, connection: firstConnection, ...fast });
    const ids = Array.from({ length: 12 }, (_, i) => `k-${i + 1}`);
    const batch = await submit(client, ids.map((id) => chatLine(id)));
    await eventually(async () => {
      expect((await client.batches.retrieve(batch.id)).request_counts!.completed).toBeGreaterThanOrEqual(3);
    }, 20_000);
    // Abruptly: no waiting for the lines it is running, and its Redis connection cut, so it can neither finish nor acknowledge them.
    const killed = first.close(true);
    firstConnection.disconnect();
    await killed.catch(() => undefined);
    const midway = (await client.batches.retrieve(batch.id)).request_counts!;
    expect(midway.completed + midway.failed).toBeLessThan(12);
    // Its lines are still active in BullMQ, held by a worker that will never acknowledge them: the next worker must take them over.
    const linesQueue = new Queue(QUEUE_NAMES.gatewayBatchLines, { connection: { url: TEST_REDIS_URL }, prefix: process.env.QUEUE_PREFIX });
    expect(await linesQueue.getActiveCount()).toBeGreaterThan(0);
    await linesQueue.close();

    const second = h.runtime.startBatchWorkers({ concurrency: 3, ...fast });
    try {
      const done = await waitFor(client, batch.id, ['completed'], 30_000);
      const output = await resultLines(client, done.output_file_id);
      const errors = await resultLines(client, done.error_file_id);
      // Every line has exactly one result, in the output file or the error file.
      expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual([...ids].sort());
      expect(done.request_counts).toEqual({ total: 12, completed: output.length, failed: errors.length });
      const calls = vendorCallsByCustomId();
      for (const id of ids) expect(calls.get(id) ?? 0).toBeLessThanOrEqual(1);
      for (const line of output) expect(calls.get(line.custom_id)).toBe(1);
      // A line only fails here when the killed worker was inside its vendor call: reported, not resent.
      for (const line of errors) expect(line.error.code).toBe('batch_line_interrupted');
    } finally {
      await second.close();
    }
  });

  test('the worker process killed (SIGKILL) mid-batch: the batch resumes in another worker, lines it was running are reported, none is sent twice', async () => {
    const org = await createOrg(h);
    const client = sdk((await createKey(h, org)).key);
    h.openai.script({ text: 'slow answer', delayMs: 300, times: Infinity, match: { operation: 'chat.completions' } });
    // The real worker process (dist/worker.js, built before the tests run), on the same database, Redis and queue.
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'worker.js')], {
      stdio: 'ignore',
      env: {
        ...process.env,
        PORT: String(port),
        DATABASE_URL: TEST_DATABASE_URL,
        REDIS_URL: TEST_REDIS_URL,
        ACCESS_KEYS_URL: h.accessKeys.url,
        PATCHBAY_SERVICE_TOKEN: TEST_SERVICE_TOKEN,
        PATCHBAY_MIGRATE_ON_START: 'false',
        PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
        PATCHBAY_ENCRYPTION_KEYS: generateEncryptionKey('worker'),
        PATCHBAY_VENDOR_OPENAI_API_KEY: h.openai.apiKeys.valid,
        PATCHBAY_VENDOR_OPENAI_BASE_URL: h.openai.baseUrl,
        GATEWAY_BATCH_CONCURRENCY: '3',
        GATEWAY_BATCH_LOCK_MS: '1000',
        LOG_LEVEL: 'silent',
        OTEL_SDK_DISABLED: 'true',
      },
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await eventually(async () => {
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).ok).toBe(true);
      }, 30_000);
      const ids = Array.from({ length: 12 }, (_, i) => `p-${i + 1}`);
      const batch = await submit(client, ids.map((id) => chatLine(id)));
      await eventually(async () => {
        expect((await client.batches.retrieve(batch.id)).request_counts!.completed).toBeGreaterThanOrEqual(3);
      }, 30_000);
      child.kill('SIGKILL');
      await exited;
      const midway = (await client.batches.retrieve(batch.id)).request_counts!;
      expect(midway.completed + midway.failed).toBeLessThan(12);

      const second = h.runtime.startBatchWorkers({ concurrency: 3, lockDurationMs: 1000, stalledIntervalMs: 500 });
      try {
        const done = await waitFor(client, batch.id, ['completed'], 30_000);
        const output = await resultLines(client, done.output_file_id);
        const errors = await resultLines(client, done.error_file_id);
        expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual([...ids].sort());
        // What the killed process had stored is kept.
        expect(output.length).toBeGreaterThanOrEqual(midway.completed);
        const calls = vendorCallsByCustomId();
        for (const id of ids) expect(calls.get(id) ?? 0).toBeLessThanOrEqual(1);
        for (const line of output) expect(calls.get(line.custom_id)).toBe(1);
        // The lines the process was running when it died (at most its concurrency): reported by custom_id, never resent.
        expect(errors.length).toBeLessThanOrEqual(3);
        for (const line of errors) expect(line.error).toMatchObject({ code: 'batch_line_interrupted', message: expect.stringContaining('not sent again') });
      } finally {
        await second.close();
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  test('cancel stops the remaining lines: cancelling, then cancelled with the lines that ran', async () => {
    const org = await createOrg(h);
    const client = sdk((await createKey(h, org)).key);
    h.openai.script({ text: 'before cancel', delayMs: 100, times: Infinity, match: { operation: 'chat.completions' } });
    const workers = h.runtime.startBatchWorkers({ concurrency: 1 });
    try {
      const ids = Array.from({ length: 20 }, (_, i) => `c-${i + 1}`);
      const batch = await submit(client, ids.map((id) => chatLine(id)));
      await eventually(async () => {
        expect((await client.batches.retrieve(batch.id)).request_counts!.completed).toBeGreaterThanOrEqual(2);
      }, 20_000);
      const cancelling = await client.batches.cancel(batch.id);
      expect(['cancelling', 'cancelled']).toContain(cancelling.status);
      expect(cancelling.cancelling_at).not.toBeNull();
      const done = await waitFor(client, batch.id, ['cancelled']);
      expect(done.cancelled_at).not.toBeNull();
      const output = await resultLines(client, done.output_file_id);
      expect(output.length).toBe(done.request_counts!.completed);
      expect(output.length).toBeLessThan(20);
      // Lines never started are never sent: the vendor saw exactly the lines that ran.
      const calls = vendorCallsByCustomId();
      expect([...calls.keys()].sort()).toEqual(output.map((l) => l.custom_id).sort());
      await expect(client.batches.cancel(batch.id)).resolves.toMatchObject({ status: 'cancelled' });
    } finally {
      await workers.close();
    }
  });
});

describe('expiry', () => {
  test('a batch whose jobs were lost expires when its 24h window closes: the sweep fails its lines as batch_expired and it ends expired, with them in its error file', async () => {
    const org = await createOrg(h);
    const client = sdk((await createKey(h, org)).key);
    h.openai.script({ text: 'on time', times: Infinity, match: { operation: 'chat.completions' } });
    const db = h.runtime.batchRunner.db;
    // No worker runs yet: both wait in validating, as batches whose jobs were lost would forever.
    const lost = await submit(client, [chatLine('e-1'), chatLine('e-2')]);
    const live = await submit(client, [chatLine('l-1')]);
    await db.batch.update({ where: { id: lost.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await sweepExpiredBatches(h.runtime.batchRunner);
    expect((await client.batches.retrieve(live.id)).status).toBe('validating');
    expect((await client.batches.retrieve(lost.id)).status).toBe('finalizing');

    const workers = h.runtime.startBatchWorkers({ concurrency: 1, sweepIntervalMs: 0 });
    try {
      const done = await waitFor(client, lost.id, ['expired']);
      expect(done.request_counts).toEqual({ total: 2, completed: 0, failed: 2 });
      expect(done.expired_at).not.toBeNull();
      expect(done.output_file_id).toBeNull();
      const errors = await resultLines(client, done.error_file_id);
      expect(errors.map((e) => [e.custom_id, e.error.code])).toEqual([
        ['e-1', 'batch_expired'],
        ['e-2', 'batch_expired'],
      ]);
      // The lost batch's jobs, delivered after all, find nothing to run; the live batch runs as usual.
      expect((await waitFor(client, live.id, ['completed'])).request_counts).toEqual({ total: 1, completed: 1, failed: 0 });
      expect(vendorCallsByCustomId().get('e-1')).toBeUndefined();
      expect(vendorCallsByCustomId().get('l-1')).toBe(1);
    } finally {
      await workers.close();
    }
  });
});

describe('limits', () => {
  test('batch_submit_busy: 429 with Retry-After 5 while the organization has its cap of submits in progress', async () => {
    const org = await createOrg(h);
    const key = (await createKey(h, org)).key;
    const client = sdk(key);
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl([chatLine('busy')])), 'busy.jsonl'), purpose: 'batch' });
    const body = JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    // Two submits that have sent their headers but not yet their body hold the organization's two slots.
    const held: Array<{ req: ClientRequest; done: Promise<number> }> = [0, 1].map(() => {
      const req = httpRequest(`${h.gatewayUrl}/v1/batches`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
      const done = new Promise<number>((resolve, reject) => {
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
      });
      req.flushHeaders();
      return { req, done };
    });
    await eventually(async () => {
      expect(await redis.get(submitSlotKey(SLOT_PREFIX, org.organizationId))).toBe('2');
    }, 10_000);
    const busy = await call(h.edgeUrl, key, 'POST', '/v1/batches', body);
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('5');
    expect(busy.body.error).toMatchObject({ type: 'rate_limit_error', code: 'batch_submit_busy' });
    for (const { req } of held) req.end(body);
    expect(await Promise.all(held.map((x) => x.done))).toEqual([200, 200]);
    expect(await redis.get(submitSlotKey(SLOT_PREFIX, org.organizationId))).toBeNull();
    const after = await call(h.edgeUrl, key, 'POST', '/v1/batches', body);
    expect(after.status).toBe(200);
    for (const b of (await client.batches.list()).data) await client.batches.cancel(b.id);
  });

  test('too_many_open_batches: the 26th open batch of an organization is a 429; a finished one frees its place', async () => {
    const org = await createOrg(h);
    const key = (await createKey(h, org)).key;
    const client = sdk(key);
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl([chatLine('open')])), 'open.jsonl'), purpose: 'batch' });
    const params = { input_file_id: file.id, endpoint: '/v1/chat/completions' as const, completion_window: '24h' as const };
    // No worker runs here: every batch stays open (validating).
    const created: string[] = [];
    for (let i = 0; i < 25; i++) created.push((await client.batches.create(params)).id);
    const refused = await call(h.edgeUrl, key, 'POST', '/v1/batches', params);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'too_many_open_batches' });
    expect(refused.headers.get('retry-after')).toBeNull();
    // Another organization is not affected.
    const other = sdk((await createKey(h, await createOrg(h))).key);
    const otherFile = await other.files.create({ file: await toFile(Buffer.from(jsonl([chatLine('o')])), 'o.jsonl'), purpose: 'batch' });
    const otherBatch = await other.batches.create({ ...params, input_file_id: otherFile.id });
    await other.batches.cancel(otherBatch.id);
    // Cancelled before any worker started them: no line runs, and once a worker finishes the cancels none is open.
    for (const id of created) expect((await client.batches.cancel(id)).status).toBe('cancelling');
    expect((await call(h.edgeUrl, key, 'POST', '/v1/batches', params)).body.error.code).toBe('too_many_open_batches');
    const workers = h.runtime.startBatchWorkers({ concurrency: 1 });
    try {
      await eventually(async () => {
        const list = await client.batches.list({ limit: 100 });
        expect(list.data.map((b) => b.status)).toEqual(Array(25).fill('cancelled'));
      }, 20_000);
    } finally {
      await workers.close();
    }
    const again = await client.batches.create(params);
    expect(again.status).toBe('validating');
    await client.batches.cancel(again.id);
    expect(h.openai.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(0);
  });
});
