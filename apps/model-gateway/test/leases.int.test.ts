import type { ChildProcess } from 'node:child_process';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { createDatabase } from '../src/db';
import { call, createKey, createOrg, eventually, startGatewayProcess as startProcess, startHarness, type Harness } from './harness';

/**
 * Leased admission through real gateway processes (packages/gateway-spend, "Leased admission"): the
 * gateway in-process (it also stores the usage records) and two more gateway processes
 * (dist/main.js) on the same database and Redis, each with its own grants.
 */
let h: Harness;
let database: ReturnType<typeof createDatabase>;
const children: ChildProcess[] = [];
const startGatewayProcess = async (env: Record<string, string> = {}) => {
  const replica = await startProcess(h, env);
  children.push(replica.child);
  return replica;
};

beforeAll(async () => {
  h = await startHarness();
  database = createDatabase(TEST_DATABASE_URL, 2);
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await database?.close();
  await h?.close();
});

const body = (max = 100) => ({ model: 'openai/gpt-4o', max_tokens: max, messages: [{ role: 'user', content: 'hi' }] });

/** The key's usage records: how many, and what they cost in micro-USD. */
async function recordsOf(keyHash: string): Promise<{ count: number; micros: number; granted: number }> {
  const result = (await database.sql.query(
    'SELECT COUNT(*)::int AS count, COALESCE(SUM(cost_micros), 0)::bigint AS micros, COUNT(spend_grant)::int AS granted FROM usage_records WHERE key_hash = $1 AND status = 200',
    [keyHash],
  )) as { rows: Array<{ count: number; micros: string; granted: number }> };
  const row = result.rows[0]!;
  return { count: row.count, micros: Number(row.micros), granted: row.granted };
}

/** A new organization's scope gives no grant in its first second (learning mode, one grant window). */
const pastLearning = () => new Promise((r) => setTimeout(r, 1_200));

async function keyUsageMicros(org: { mgmtKey: string }, hash: string): Promise<number> {
  const read = await call(h.gatewayUrl, org.mgmtKey, 'GET', `/v1/keys/${hash}`);
  return Math.round(read.body.data.usage * 1_000_000);
}

describe('leased admission across three gateway processes', () => {
  let replicas: string[];

  beforeAll(async () => {
    const [a, b] = await Promise.all([startGatewayProcess(), startGatewayProcess()]);
    replicas = [h.gatewayUrl, a.url, b.url];
  }, 60_000);

  test('a burst of 150 concurrent requests against a key limit never spends past it; each admitted request leaves one record, and the key usage agrees with them', async () => {
    const org = await createOrg(h);
    // Each request reserves about 1,025 µ$ (10 input estimate + 100 output at 2.50 / 10.00) and costs 525 (10 in, 50 out).
    const created = await createKey(h, org, { limit: 0.05 });
    h.openai.script({ text: 'x', usage: { inputTokens: 10, outputTokens: 50 }, times: Infinity });
    // Warm each replica's key cache so the burst meets grants, not first lookups.
    for (const url of replicas) expect((await call(url, created.key, 'POST', '/v1/chat/completions', body())).status).toBe(200);
    await pastLearning();
    const results = await Promise.all(Array.from({ length: 150 }, (_, i) => call(replicas[i % 3]!, created.key, 'POST', '/v1/chat/completions', body())));
    h.openai.reset();
    expect(results.every((r) => r.status === 200 || (r.status === 402 && r.body.error.code === 'api_key_limit_exceeded'))).toBe(true);
    const admitted = results.filter((r) => r.status === 200).length + 3;
    await eventually(async () => {
      const records = await recordsOf(created.hash);
      expect(records.count).toBe(admitted);
      expect(await keyUsageMicros(org, created.hash)).toBe(records.micros);
    }, 10_000);
    const records = await recordsOf(created.hash);
    // The spec's rule: a limit refuses once spend (settled plus in flight) reaches it, so the last
    // request admitted just under it may end above it by at most its own cost, as per request.
    expect(records.micros).toBeLessThanOrEqual(50_000 + 525);
    expect(records.micros).toBe(admitted * 525);
    // Most requests far from the limit were admitted against grants, in process.
    expect(records.granted).toBeGreaterThan(0);
    // Close to what fits at the real cost (95): grants never take more than the headroom.
    expect(admitted).toBeGreaterThanOrEqual(47);
  }, 60_000);

  test('a lowered key limit takes effect on every replica within a second: after it, nothing is admitted past the new limit', async () => {
    const org = await createOrg(h);
    const created = await createKey(h, org, { limit: 1 });
    h.openai.script({ text: 'x', usage: { inputTokens: 10, outputTokens: 50 }, times: Infinity });
    // Every replica takes a large grant of the key: demand of a dozen concurrent requests, twice.
    for (let round = 0; round < 2; round += 1) {
      // The organization's scope is new: no grant in its first second (learning mode).
      await pastLearning();
      const warm = await Promise.all(replicas.flatMap((url) => Array.from({ length: 12 }, () => call(url, created.key, 'POST', '/v1/chat/completions', body()))));
      expect(warm.every((r) => r.status === 200)).toBe(true);
    }
    await eventually(async () => expect((await recordsOf(created.hash)).count).toBe(72), 10_000);
    const spent = (await recordsOf(created.hash)).micros;
    const lowered = spent + 5_000; // about 10 more requests at 525
    expect((await recordsOf(created.hash)).granted).toBeGreaterThan(0);
    expect((await call(h.gatewayUrl, org.mgmtKey, 'PATCH', `/v1/keys/${created.hash}`, { limit: lowered / 1_000_000 })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_000));
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => call(replicas[i % 3]!, created.key, 'POST', '/v1/chat/completions', body())));
    h.openai.reset();
    expect(results.some((r) => r.status === 402)).toBe(true);
    await eventually(async () => {
      const records = await recordsOf(created.hash);
      expect(records.count).toBe(72 + results.filter((r) => r.status === 200).length);
    }, 10_000);
    expect((await recordsOf(created.hash)).micros).toBeLessThanOrEqual(lowered + 525); // the last one admitted under it may end above by its cost
  }, 60_000);

  test('a replica killed (SIGKILL) while holding a grant with a request in flight never lets spend pass the limit', async () => {
    const org = await createOrg(h);
    const created = await createKey(h, org, { limit: 0.02 });
    const doomed = await startGatewayProcess();
    h.openai.script({ text: 'x', usage: { inputTokens: 10, outputTokens: 50 }, times: Infinity });
    expect((await call(doomed.url, created.key, 'POST', '/v1/chat/completions', body())).status).toBe(200);
    await pastLearning();
    for (let i = 0; i < 2; i += 1) expect((await call(doomed.url, created.key, 'POST', '/v1/chat/completions', body())).status).toBe(200);
    await eventually(async () => expect((await recordsOf(created.hash)).granted).toBeGreaterThan(0), 5_000);
    h.openai.reset();
    h.openai.script({ text: 'slow', usage: { inputTokens: 10, outputTokens: 50 }, delayMs: 5_000, times: 1 });
    const inFlight = call(doomed.url, created.key, 'POST', '/v1/chat/completions', body()).catch(() => null);
    await new Promise((r) => setTimeout(r, 300));
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    expect(await inFlight).toBeNull();
    h.openai.reset();
    h.openai.script({ text: 'x', usage: { inputTokens: 10, outputTokens: 50 }, times: Infinity });
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => call(replicas[i % 3]!, created.key, 'POST', '/v1/chat/completions', body())));
    h.openai.reset();
    expect(results.some((r) => r.status === 402)).toBe(true);
    const admitted = results.filter((r) => r.status === 200).length;
    await eventually(async () => {
      expect((await recordsOf(created.hash)).count).toBeGreaterThanOrEqual(admitted);
    }, 10_000);
    // What the killed replica had recorded (at most one flush window lost) plus the others': never past the limit.
    const records = await recordsOf(created.hash);
    expect(records.micros).toBeLessThanOrEqual(20_000 + 525);
    expect(records.count).toBeLessThanOrEqual(admitted + 3);
    expect(records.count).toBeGreaterThanOrEqual(admitted);
    // The dead replica's grant stays debited: the counters hold at least what the records say.
    expect(await keyUsageMicros(org, created.hash)).toBeGreaterThanOrEqual(records.micros);
  }, 90_000);
});
