import type { FakeFault } from '@patchbay/provider-fakes';
import {
  Cancellation,
  callVendor,
  createVendorHttp,
  parseSurfaceRequest,
  streamVendor,
  VendorError,
  type CancelSignal,
  type CanonicalRequest,
  type CanonicalStreamEvent,
  type VendorErrorKind,
  type VendorTarget,
} from '../src';
import { fakeTarget, useOpenAIAndAnthropic } from './support/vendors';

const http = createVendorHttp();
const timeouts = { firstTokenMs: 400, betweenTokensMs: 400, totalMs: 1500 };

const env = useOpenAIAndAnthropic(timeouts);

afterAll(async () => {
  await http.close();
});

const target = (vendor: 'openai' | 'anthropic'): VendorTarget => fakeTarget(env, vendor);

function request(stream: boolean): CanonicalRequest {
  return parseSurfaceRequest('openai-chat', { model: 'x', stream, messages: [{ role: 'user', content: 'one two three four five six seven eight' }] }).request;
}

const options = () => ({ signal: new AbortController().signal, timeouts, http });

async function callKind(vendor: 'openai' | 'anthropic', fault: FakeFault, stream: boolean): Promise<{ kind: VendorErrorKind; error: VendorError; events: CanonicalStreamEvent[] }> {
  (vendor === 'openai' ? env.openaiFake : env.anthropicFake).script({ text: 'one two three four five six seven eight nine ten', fault });
  const events: CanonicalStreamEvent[] = [];
  try {
    if (stream) {
      for await (const event of await streamVendor(target(vendor), request(true), options())) events.push(event);
    } else await callVendor(target(vendor), request(false), options());
  } catch (err) {
    if (err instanceof VendorError) return { kind: err.kind, error: err, events };
    throw err;
  }
  throw new Error(`expected a VendorError for ${fault.kind}, got a clean finish`);
}

describe('every fault of the fakes maps to its VendorError kind', () => {
  const cases: Array<[string, FakeFault, boolean, VendorErrorKind]> = [
    ['429 with Retry-After', { kind: 'rate_limit', retryAfterSeconds: 7 }, false, 'rate_limit'],
    ['503 overloaded', { kind: 'overloaded' }, false, 'overloaded'],
    ['500', { kind: 'server_error' }, false, 'server'],
    ['TCP reset before the answer', { kind: 'reset' }, false, 'network'],
    ['no response at all', { kind: 'hang' }, false, 'timeout'],
    ['no response at all on a stream', { kind: 'hang' }, true, 'timeout'],
    ['first token after a delay past the first-token timeout', { kind: 'slow_first_token', delayMs: 1200 }, true, 'timeout'],
    ['stream cut after some tokens', { kind: 'stream_cut', afterTokens: 3 }, true, 'stream_cut'],
    ['stall mid-stream', { kind: 'stall', afterTokens: 3 }, true, 'stall'],
    ['a malformed chunk', { kind: 'malformed_chunk', afterTokens: 2 }, true, 'malformed'],
    ['a missing terminal frame with a clean close', { kind: 'missing_terminal' }, true, 'stream_cut'],
    ['the vendor error frame mid-stream', { kind: 'stream_error', afterTokens: 2 }, true, 'server'],
    ['context-length 400', { kind: 'context_length' }, false, 'context_length'],
    ['content_policy_violation 400', { kind: 'content_filter', form: 'error' }, false, 'content_filter'],
    ['billing: insufficient_quota 429', { kind: 'billing' }, false, 'billing'],
    ['model 404', { kind: 'model_not_found' }, false, 'not_found'],
  ];
  test.each(cases)('OpenAI: %s', async (_name, fault, stream, kind) => {
    const result = await callKind('openai', fault, stream);
    expect(result.kind).toBe(kind);
    expect(result.error.vendor).toBe('openai');
    if (fault.kind === 'rate_limit') expect(result.error.retryAfterSeconds).toBe(7);
  });

  const anthropicCases: Array<[string, FakeFault, boolean, VendorErrorKind]> = [
    ['529 overloaded', { kind: 'overloaded' }, false, 'overloaded'],
    ['429', { kind: 'rate_limit', retryAfterSeconds: 3 }, false, 'rate_limit'],
    ['credit balance too low (billing 400)', { kind: 'billing' }, false, 'billing'],
    ['prompt too long', { kind: 'context_length' }, false, 'context_length'],
    ['stream cut', { kind: 'stream_cut', afterTokens: 2 }, true, 'stream_cut'],
    ['missing message_stop', { kind: 'missing_terminal' }, true, 'stream_cut'],
    ['error event mid-stream (overloaded)', { kind: 'stream_error', afterTokens: 1 }, true, 'overloaded'],
    ['stall', { kind: 'stall', afterTokens: 2 }, true, 'stall'],
  ];
  test.each(anthropicCases)('Anthropic: %s', async (_name, fault, stream, kind) => {
    expect((await callKind('anthropic', fault, stream)).kind).toBe(kind);
  });

  test('a wrong vendor key is kind auth', async () => {
    await expect(callVendor({ ...target('openai'), apiKey: 'sk-wrong' }, request(false), options())).rejects.toMatchObject({ kind: 'auth' });
  });

  test('a stream cut after tokens carries estimated usage and says tokens were delivered', async () => {
    const { error, events } = await callKind('openai', { kind: 'stream_cut', afterTokens: 4 }, true);
    expect(events.filter((e) => e.type === 'text_delta').length).toBeGreaterThan(0);
    expect(error.afterFirstToken).toBe(true);
    expect(error.usage).toMatchObject({ estimated: true });
    expect(error.usage!.outputTokens).toBeGreaterThan(0);
    expect(error.usage!.inputTokens).toBeGreaterThan(0);
  });
});

describe('200s without a usable answer', () => {
  test('a content-filter finish is returned as it is by default, and thrown as content_filter with failEmpty', async () => {
    env.openaiFake.script({ fault: { kind: 'content_filter' } }, { fault: { kind: 'content_filter' } });
    const response = await callVendor(target('openai'), request(false), options());
    expect(response.finishReason).toBe('content_filter');
    await expect(callVendor(target('openai'), request(false), { ...options(), failEmpty: true })).rejects.toMatchObject({ kind: 'content_filter' });
  });

  test('reasoning exhausted: a reasoning_exhausted warning, or output_budget_exhausted with failEmpty', async () => {
    env.openaiFake.script({ fault: { kind: 'reasoning_exhausted' } }, { fault: { kind: 'reasoning_exhausted' } });
    const reasoner = { ...target('openai'), vendorModel: 'o3-mini', model: 'openai/o3-mini' };
    const response = await callVendor(reasoner, request(false), options());
    expect(response.warnings.map((w) => w.code)).toContain('reasoning_exhausted');
    await expect(callVendor(reasoner, request(false), { ...options(), failEmpty: true })).rejects.toMatchObject({ kind: 'output_budget_exhausted' });
  });

  test('an empty 200 is empty_response with failEmpty, streaming too (before any byte)', async () => {
    env.openaiFake.script({ fault: { kind: 'empty' } }, { fault: { kind: 'empty' } });
    await expect(callVendor(target('openai'), request(false), { ...options(), failEmpty: true })).rejects.toMatchObject({ kind: 'empty_response' });
    await expect(streamVendor(target('openai'), request(true), { ...options(), failEmpty: true })).rejects.toMatchObject({ kind: 'empty_response' });
  });
});

async function post(path: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${env.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

describe('what the client sees', () => {
  test('an error in the vendor first frame returns the same status and body as without streaming, and no stream', async () => {
    env.openaiFake.script({ fault: { kind: 'overloaded' } }, { fault: { kind: 'overloaded' } });
    const plain = await post('/v1/openai/chat/completions', { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    const streamed = await post('/v1/openai/chat/completions', { model: 'openai/gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] });
    expect(streamed.status).toBe(plain.status);
    expect(streamed.status).toBe(503);
    expect(JSON.parse(streamed.text)).toEqual(JSON.parse(plain.text));
    expect(JSON.parse(plain.text).error).toMatchObject({ type: 'provider_error', code: 'provider_overloaded', source: 'provider', provider: 'openai' });
  });

  test('a vendor 429 is type rate_limit_error, source provider, with no Retry-After', async () => {
    env.openaiFake.script({ fault: { kind: 'rate_limit', retryAfterSeconds: 9 } });
    const res = await fetch(`${env.gateway.url}/v1/openai/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] }) });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ type: 'rate_limit_error', source: 'provider' });
  });

  test('chat completions: a cut stream ends with an error chunk and no [DONE]', async () => {
    env.openaiFake.script({ text: 'a b c d e f g h', fault: { kind: 'stream_cut', afterTokens: 3 } });
    const { status, text } = await post('/v1/openai/chat/completions', { model: 'openai/gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] });
    expect(status).toBe(200);
    expect(text).not.toContain('[DONE]');
    const last = JSON.parse(text.trim().split('\n\n').at(-1)!.slice('data: '.length));
    expect(last.error).toMatchObject({ code: 'provider_stream_cut', source: 'provider' });
  });

  test('responses surface: a stall is an error event then response.failed', async () => {
    env.openaiFake.script({ text: 'a b c d e f g h', fault: { kind: 'stall', afterTokens: 2 } });
    const { text } = await post('/v1/openai/responses', { model: 'openai/gpt-4o', stream: true, input: 'x' });
    const events = text.trim().split('\n\n').map((f) => f.split('\n')[0]);
    expect(events.slice(-2)).toEqual(['event: error', 'event: response.failed']);
    expect(text).not.toContain('response.completed');
    expect(env.gateway.errors.at(-1)).toMatchObject({ kind: 'stall' });
  });

  test('Anthropic surface: a missing terminal frame is an error event, never message_stop', async () => {
    env.anthropicFake.script({ text: 'a b c d', fault: { kind: 'missing_terminal' } });
    const { text } = await post('/v1/anthropic/v1/messages', { model: 'anthropic/claude-sonnet-4', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'x' }] });
    expect(text).not.toContain('event: message_stop');
    expect(text.trim().split('\n\n').at(-1)).toMatch(/^event: error\ndata: \{"type":"error","error":\{"type":"provider_error"/);
  });

  test('native surface: a malformed chunk is response.error, with no [DONE] and no response.done', async () => {
    env.openaiFake.script({ text: 'a b c d e', fault: { kind: 'malformed_chunk', afterTokens: 2 } });
    const { text } = await post('/v1/responses', { model: 'openai/gpt-4o', stream: true, input: 'x' });
    const frames = text.trim().split('\n\n').map((f) => JSON.parse(f.slice('data: '.length)));
    expect(frames.at(-1)).toMatchObject({ object: 'response.error', error: { code: 'provider_malformed_response', status_code: 502, source: 'provider' } });
    expect(frames.slice(0, -1).every((f) => f.object === 'response.stream')).toBe(true);
    expect(text).not.toContain('[DONE]');
  });
});

describe("the caller's cancellation stops the vendor call: the gateway's Cancellation and an AbortController alike", () => {
  const callerOf = (which: string): { signal: CancelSignal; abort(): void } => {
    if (which === 'Cancellation') {
      const cancellation = new Cancellation();
      return { signal: cancellation, abort: () => cancellation.abort() };
    }
    const controller = new AbortController();
    return { signal: controller.signal, abort: () => controller.abort() };
  };

  test.each(['Cancellation', 'AbortController'])('%s aborted before the call: nothing is sent to the vendor', async (which) => {
    const caller = callerOf(which);
    caller.abort();
    const error = await callVendor(target('openai'), request(false), { ...options(), signal: caller.signal }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(VendorError);
    expect((error as VendorError).kind).toBe('network');
    expect((error as VendorError).message).toContain('cancelled');
    expect(env.openaiFake.requests).toHaveLength(0);
  });

  test.each(['Cancellation', 'AbortController'])('%s aborted while the vendor has not answered: the call fails at once, not at its timeout', async (which) => {
    const caller = callerOf(which);
    env.openaiFake.script({ text: 'never sent', fault: { kind: 'hang' } });
    setTimeout(() => caller.abort(), 50);
    const error = await callVendor(target('openai'), request(false), { ...options(), signal: caller.signal }).catch((err: unknown) => err);
    expect((error as VendorError).kind).toBe('network');
    expect((error as VendorError).message).toContain('cancelled');
    // Sent, then given up: the cancellation ended the call (its timeout would be kind 'timeout').
    expect(env.openaiFake.requests).toHaveLength(1);
  });

  test.each(['Cancellation', 'AbortController'])('%s aborted mid-stream: the stream ends in an error, never a clean finish', async (which) => {
    const caller = callerOf(which);
    env.openaiFake.script({ text: 'one two three four five six seven eight nine ten', fault: { kind: 'stall', afterTokens: 3 } });
    const events: CanonicalStreamEvent[] = [];
    const error = await (async () => {
      for await (const event of await streamVendor(target('openai'), request(true), { ...options(), signal: caller.signal })) {
        events.push(event);
        if (events.length === 2) caller.abort();
      }
    })().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(VendorError);
    expect((error as VendorError).message).toContain('cancelled');
    expect(events.some((e) => e.type === 'finish')).toBe(false);
  });
});
