import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { renderError, VendorError, WireError } from '@patchbay/model-wire';
import { RouteHealth, routingMetadata } from '../src';
import { ask, stream, useVendors } from './support/vendors';

const env = useVendors({ firstTokenMs: 400, betweenTokensMs: 400, totalMs: 1500 });
const text = 'one two three four five six seven eight nine ten';

function answerText(run: Awaited<ReturnType<typeof ask>>): string {
  if (!run.result.ok) throw new Error(`expected an answer, got ${String((run.result.error as Error)?.message)}`);
  return run.result.value.output.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

function outcomes(run: { result: { attempts: Array<{ vendor: string; outcome: string }> } }): string[] {
  return run.result.attempts.map((a) => `${a.vendor}:${a.outcome}`);
}

/** The JSON of each SSE frame's data line (`event:` lines aside), `[DONE]` left out. */
function dataFrames(frames: string[]): unknown[] {
  return frames
    .map((f) => f.split('\n').find((line) => line.startsWith('data: '))?.slice(6))
    .filter((d): d is string => d !== undefined && d !== '[DONE]')
    .map((d) => JSON.parse(d));
}

describe('non-streaming faults fail over to the next route', () => {
  test('429 with Retry-After: the next route answers and the client sees a normal 200', async () => {
    env.openai.script({ fault: { kind: 'rate_limit', retryAfterSeconds: 30 } });
    env.azure.script({ text });
    const run = await ask(env, { routing_policy_id: env.policy.id });
    expect(answerText(run)).toBe(text);
    expect(outcomes(run)).toEqual(['openai:provider_rate_limited', 'azure:ok']);
    expect(run.result.ok && run.result.route.vendor).toBe('azure');
  });

  test('persistent 503: every request is answered by the next route', async () => {
    env.openai.setFault({ kind: 'overloaded' });
    for (let i = 0; i < 3; i++) {
      const run = await ask(env, { routing_policy_id: env.policy.id });
      expect(run.result.ok).toBe(true);
      expect(outcomes(run)).toEqual(['openai:provider_overloaded', 'azure:ok']);
    }
  });

  test('a TCP reset fails over', async () => {
    env.openai.script({ fault: { kind: 'reset' } });
    const run = await ask(env, { routing_policy_id: env.policy.id });
    expect(outcomes(run)).toEqual(['openai:provider_unreachable', 'azure:ok']);
  });

  test('no response at all: the timeout fails over instead of holding the client', async () => {
    env.openai.script({ fault: { kind: 'hang' } });
    const run = await ask(env, { routing_policy_id: env.policy.id });
    expect(outcomes(run)).toEqual(['openai:provider_timeout', 'azure:ok']);
  });

  test('a context-length 400 is the client\'s request: not failed over, the client gets the 400', async () => {
    env.openai.script({ fault: { kind: 'context_length' } });
    const run = await ask(env, { routing_policy_id: env.policy.id });
    expect(run.result.ok).toBe(false);
    const error = (run.result as { error: VendorError }).error;
    expect(error.kind).toBe('context_length');
    expect(renderError('openai-chat', error)).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error', code: 'context_length_exceeded' } } });
    expect(outcomes(run)).toEqual(['openai:context_length_exceeded']);
    expect(env.azure.requests).toHaveLength(0);
    expect(env.anthropic.requests).toHaveLength(0);
  });

  test('a content-filter refusal (400) fails over, never to another vendor of the same model', async () => {
    env.openai.script({ fault: { kind: 'content_filter', form: 'error' } });
    env.anthropic.script({ text });
    const run = await ask(env, { routing_policy_id: env.policy.id });
    expect(answerText(run)).toBe(text);
    expect(outcomes(run)).toEqual(['openai:content_filter', 'anthropic:ok']);
    expect(env.azure.requests).toHaveLength(0);
  });

  test('a refused 200 (finish content_filter) fails over to another model and bills the refusal at its route', async () => {
    env.openai.script({ fault: { kind: 'content_filter' } });
    const run = await ask(env, { routing_policy_id: env.policy.id });
    expect(run.result.ok && run.result.route.model).toBe('anthropic/claude-sonnet-4');
    expect(env.azure.requests).toHaveLength(0);
    const [failed] = run.ledger.failed;
    expect(failed![0]).toBe('openai/gpt-4o@openai');
    expect(failed![1]).toBeGreaterThan(0);
  });

  test('the three failing 200s (refusal, reasoning exhausted, empty) fail over on non-streaming requests', async () => {
    env.openai.script({ fault: { kind: 'reasoning_exhausted' } });
    env.azure.script({ fault: { kind: 'empty' } });
    const run = await ask(env, { routing_policy_id: env.policy.id });
    expect(outcomes(run)).toEqual(['openai:output_budget_exhausted', 'azure:provider_empty_response', 'anthropic:ok']);
  });

  test('when every route fails the last response is returned', async () => {
    env.openai.setFault({ kind: 'overloaded' });
    env.azure.setFault({ kind: 'server_error' });
    env.anthropic.setFault({ kind: 'rate_limit', retryAfterSeconds: 5 });
    const run = await ask(env, { routing_policy_id: env.policy.id });
    expect(run.result.ok).toBe(false);
    expect(outcomes(run)).toEqual(['openai:provider_overloaded', 'azure:provider_error', 'anthropic:provider_rate_limited']);
    const error = (run.result as { error: VendorError }).error;
    expect(renderError('openai-chat', error)).toMatchObject({ status: 429, body: { error: { type: 'rate_limit_error', source: 'provider', provider: 'anthropic' } } });
    expect(renderError('openai-chat', error).headers?.['retry-after']).toBeUndefined();
  });

  test('the last route\'s failing 200 is returned as the answer it is', async () => {
    env.openai.setFault({ kind: 'overloaded' });
    env.azure.setFault({ kind: 'overloaded' });
    env.anthropic.script({ fault: { kind: 'content_filter' } });
    const run = await ask(env, { routing_policy_id: env.policy.id });
    expect(run.result.ok && run.result.value.finishReason).toBe('content_filter');
  });

  test('a failed attempt that cost nothing bills nothing; each attempt is billed at its own route', async () => {
    env.openai.script({ fault: { kind: 'overloaded' } });
    env.azure.script({ fault: { kind: 'content_filter' } });
    const run = await ask(env, { model: 'openai/gpt-4o', vendors: ['openai', 'azure'] });
    expect(run.ledger.admitted).toEqual(['openai/gpt-4o@openai', 'openai/gpt-4o@azure']);
    expect(run.ledger.failed[0]).toEqual(['openai/gpt-4o@openai', 0]);
    expect(run.result.ok).toBe(true);
    // The refused 200 at azure was the last route, so it is the answer, settled at azure's price.
    const usage = run.result.ok ? run.result.value.usage : null;
    expect(run.ledger.settled).toEqual([['openai/gpt-4o@azure', Math.ceil(usage!.inputTokens * 2.75 + usage!.outputTokens * 11 - 1e-9)]]);
  });

  test("the gateway's own budget 402 never fails over", async () => {
    const budget = Object.assign(new Error('Budget exceeded for this key'), { status: 402, code: 'api_key_limit_exceeded' });
    env.openai.script({ fault: { kind: 'overloaded' } });
    const run = await ask(env, { routing_policy_id: env.policy.id }, { beforeAttempt: (route) => {
      if (route.vendor === 'azure') throw budget;
    } });
    expect(run.result.ok).toBe(false);
    expect((run.result as { error: unknown }).error).toBe(budget);
    expect(outcomes(run)).toEqual(['openai:provider_overloaded', 'azure:api_key_limit_exceeded']);
    expect(env.azure.requests).toHaveLength(0);
  });

  test('a vendor credential 401 does not fail over', async () => {
    const run = await ask(env, { routing_policy_id: env.policy.id }, { beforeAttempt: () => undefined });
    expect(run.result.ok).toBe(true);
    env.openai.reset();
    const original = env.openai.apiKeys.valid;
    (env.openai.apiKeys as { valid: string }).valid = 'sk-wrong';
    try {
      const denied = await ask(env, { routing_policy_id: env.policy.id });
      expect(outcomes(denied)).toEqual(['openai:provider_authentication_failed']);
    } finally {
      (env.openai.apiKeys as { valid: string }).valid = original;
    }
  });

  test('a direct call does not fail over: the vendor error reaches the client', async () => {
    env.openai.script({ fault: { kind: 'overloaded' } });
    const run = await ask(env, { model: 'openai/gpt-4o' });
    expect(outcomes(run)).toEqual(['openai:provider_overloaded']);
  });
});

describe('service_tier_fallback', () => {
  test('a flex request retries once at standard on a vendor 429, on the same route', async () => {
    env.openai.setFault({ kind: 'rate_limit' }, { serviceTier: 'flex' });
    const run = await ask(env, { model: 'openai/gpt-4o', service_tier: 'flex', service_tier_fallback: true });
    expect(run.result.ok).toBe(true);
    expect(run.ledger.admitted).toEqual(['openai/gpt-4o@openai:flex', 'openai/gpt-4o@openai']);
    expect(env.openai.requests.map((r) => (r.json as { service_tier?: string }).service_tier)).toEqual(['flex', undefined]);
  });

  test('without service_tier_fallback the 429 of a direct flex call reaches the client', async () => {
    env.openai.setFault({ kind: 'rate_limit' }, { serviceTier: 'flex' });
    const run = await ask(env, { model: 'openai/gpt-4o', service_tier: 'flex' });
    expect(outcomes(run)).toEqual(['openai:provider_rate_limited']);
  });

  test('the standard retry happens once; a second 503 moves on to the next route', async () => {
    env.openai.setFault({ kind: 'overloaded' });
    const run = await ask(env, { model: 'openai/gpt-4o', vendors: ['openai', 'azure'], service_tier: 'flex', service_tier_fallback: true });
    expect(run.ledger.admitted).toEqual(['openai/gpt-4o@openai:flex', 'openai/gpt-4o@openai', 'openai/gpt-4o@azure']);
  });
});

describe('streams fail over only before the first token reaches the client', () => {
  test('the first token after a long delay: the first-token timeout fails over', async () => {
    env.openai.script({ fault: { kind: 'slow_first_token', delayMs: 1200 } });
    env.azure.script({ text });
    const run = await stream(env, 'openai-chat', { routing_policy_id: env.policy.id, messages: [{ role: 'user', content: 'hi' }] });
    expect(outcomes(run)).toEqual(['openai:provider_timeout', 'azure:ok']);
    expect(run.streamError).toBeNull();
    expect(run.frames.at(-1)).toBe('data: [DONE]');
  });

  test('a stream cut after some tokens is an error frame, never a clean finish, and is not failed over', async () => {
    env.openai.script({ text, fault: { kind: 'stream_cut', afterTokens: 3 } });
    const run = await stream(env, 'openai-chat', { routing_policy_id: env.policy.id, messages: [{ role: 'user', content: 'hi' }] });
    expect(run.streamError?.kind).toBe('stream_cut');
    expect(run.frames).not.toContain('data: [DONE]');
    expect(dataFrames(run.frames).at(-1)).toMatchObject({ error: { code: 'provider_stream_cut' } });
    expect(env.azure.requests).toHaveLength(0);
    // What the cut stream consumed is billed at its route.
    expect(run.ledger.settled[0]![1]).toBeGreaterThan(0);
  });

  test('a stall mid-stream ends in an error frame at the between-tokens timeout', async () => {
    env.openai.script({ text, fault: { kind: 'stall', afterTokens: 2 } });
    const run = await stream(env, 'anthropic-messages', { routing_policy_id: env.policy.id, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(run.streamError?.kind).toBe('stall');
    expect(run.frames.at(-1)).toContain('event: error');
    expect(env.azure.requests).toHaveLength(0);
  });

  test('a malformed chunk before the first token fails over; after it, it is an error frame', async () => {
    env.openai.script({ text, fault: { kind: 'malformed_chunk', afterTokens: 0 } });
    const early = await stream(env, 'openai-chat', { routing_policy_id: env.policy.id, messages: [{ role: 'user', content: 'hi' }] });
    expect(outcomes(early)).toEqual(['openai:provider_malformed_response', 'azure:ok']);
    expect(early.streamError).toBeNull();

    env.openai.script({ text, fault: { kind: 'malformed_chunk', afterTokens: 2 } });
    const late = await stream(env, 'openai-chat', { routing_policy_id: env.policy.id, messages: [{ role: 'user', content: 'hi' }] });
    expect(late.streamError?.kind).toBe('malformed');
    expect(outcomes(late)).toEqual(['openai:ok']);
  });

  test('a missing terminal frame is an error, not a success', async () => {
    env.openai.script({ text, fault: { kind: 'missing_terminal' } });
    const run = await stream(env, 'openai-responses', { routing_policy_id: env.policy.id, input: 'hi' });
    expect(run.streamError?.kind).toBe('stream_cut');
    const events = dataFrames(run.frames) as Array<{ type: string }>;
    expect(events.map((e) => e.type).slice(-2)).toEqual(['error', 'response.failed']);
    expect(events.some((e) => e.type === 'response.completed')).toBe(false);
  });

  test('an error in the vendor\'s first frame fails over before any byte reaches the client', async () => {
    env.openai.script({ fault: { kind: 'stream_error', afterTokens: 0 } });
    const run = await stream(env, 'openai-chat', { routing_policy_id: env.policy.id, messages: [{ role: 'user', content: 'hi' }] });
    expect(outcomes(run)).toEqual(['openai:provider_error', 'azure:ok']);
  });

  test('the native stream marks the restart on a later route with fallback_restart, model and vendor', async () => {
    env.openai.script({ fault: { kind: 'overloaded' } });
    env.azure.script({ fault: { kind: 'slow_first_token', delayMs: 1200 } });
    env.anthropic.script({ text });
    const run = await stream(env, 'native-responses', { routing_policy_id: env.policy.id, input: [{ type: 'message', role: 'user', content: 'hi' }] });
    const frames = dataFrames(run.frames) as Array<Record<string, unknown>>;
    expect(frames[0]).toEqual({ fallback_restart: true, model: 'anthropic/claude-sonnet-4', vendor: 'anthropic' });
    expect(frames.at(-1)).toMatchObject({ object: 'response.done', model: 'anthropic/claude-sonnet-4', vendor: 'anthropic' });

    env.openai.script({ text });
    const direct = await stream(env, 'native-responses', { routing_policy_id: env.policy.id, input: [{ type: 'message', role: 'user', content: 'hi' }] });
    expect(dataFrames(direct.frames).some((f) => (f as { fallback_restart?: boolean }).fallback_restart)).toBe(false);
  });

  test('a content-filter refusal on a stream\'s first frame is not answered from the same model', async () => {
    env.openai.script({ fault: { kind: 'content_filter', form: 'error' } });
    const run = await stream(env, 'openai-chat', { routing_policy_id: env.policy.id, messages: [{ role: 'user', content: 'hi' }] });
    expect(outcomes(run)).toEqual(['openai:content_filter', 'anthropic:ok']);
    expect(env.azure.requests).toHaveLength(0);
  });
});

describe('a flapping primary and the shared circuit breaker', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    const keys = await redis.keys('patchbay:test:routing-flap:*');
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  test('every request gets a good answer, and once the breaker opens the primary is skipped on every replica', async () => {
    const prefix = `patchbay:test:routing-flap:${randomUUID()}:`;
    const replicaA = new RouteHealth(redis, { keyPrefix: prefix, threshold: 3, windowMs: 60_000, cooldownMs: 60_000 });
    const second = redis.duplicate();
    const replicaB = new RouteHealth(second, { keyPrefix: prefix, threshold: 3, windowMs: 60_000, cooldownMs: 60_000 });
    env.openai.setFault({ kind: 'server_error' }, { fraction: 0.5 });
    const runs = [];
    for (let i = 0; i < 10; i++) runs.push(await ask(env, { routing_policy_id: env.policy.id }, { health: i % 2 ? replicaA : replicaB }));
    second.disconnect();
    expect(runs.every((r) => r.result.ok)).toBe(true);
    // Half of the primary's answers fail; after the third failure it is skipped.
    expect(env.openai.requests.length).toBe(5);
    const last = runs.at(-1)!;
    expect(last.result.skipped.map((r) => r.vendor)).toEqual(['openai']);
    expect(outcomes(last)).toEqual(['azure:ok']);
    const meta = routingMetadata(last.decision, { route: last.result.route, attempts: last.result.attempts, skipped: last.result.skipped, costUsd: 0.001 }, { routingDecisionMs: 0.02, llmCallMs: 3, totalMs: 4 });
    expect(meta).toMatchObject({ policy_id: env.policy.id, strategy: 'priority', resolved_by: 'routing_policy_id', model_used: 'openai/gpt-4o', vendor_used: 'azure', skipped_unhealthy: [{ model: 'openai/gpt-4o', vendor: 'openai' }] });
  });
});

test('a refusal before any vendor call is a WireError, not a failover', async () => {
  await expect(ask(env, { model: 'openai/gpt-5-unknown' })).rejects.toBeInstanceOf(WireError);
});

test('a stream that fails before its first token bills nothing; a cut stream bills what arrived', async () => {
  env.openai.script({ fault: { kind: 'slow_first_token', delayMs: 1200 } });
  const early = await stream(env, 'openai-chat', { routing_policy_id: env.policy.id, messages: [{ role: 'user', content: 'hi' }] });
  expect(early.ledger.failed).toEqual([['openai/gpt-4o@openai', 0]]);
  env.openai.script({ text, fault: { kind: 'stream_cut', afterTokens: 3 } });
  const cut = await stream(env, 'openai-chat', { routing_policy_id: env.policy.id, messages: [{ role: 'user', content: 'hi' }] });
  expect(cut.ledger.settled[0]![1]).toBeGreaterThan(0);
});
