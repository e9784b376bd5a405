import { startFakeAnthropic } from './anthropic';
import { startFakeGemini } from './gemini';
import { startFakeOpenAI } from './openai';
import { startFakeOpenAICompatible } from './openai-compatible';
import type { FakeFault, FakeVendor } from './types';
import { type SseEvent, type WireObservation, parses, sseEvents, wireCall } from './wire.test-helper';

/**
 * One test per fault mode and vendor, showing what a client sees on the wire: the status and body
 * of error faults, the frames and the way the stream ends for delivery faults, the connection
 * itself for reset and hang. The fault is selected through the model name (`<model>@<fault>`),
 * which also exercises the path a bench or routing test uses without code.
 */

interface VendorCase {
  name: string;
  start: () => Promise<FakeVendor>;
  model: string;
  /** URL, headers and body of a request for `model`, streaming or not. */
  request: (fake: FakeVendor, model: string, stream: boolean, extra?: Record<string, unknown>) => { url: string; headers: Record<string, string>; body: unknown };
  /** Whether an SSE event carries answer content (a token). */
  isToken: (e: SseEvent) => boolean;
  /** Whether an SSE event is the stream's terminal marker. */
  isTerminal: (e: SseEvent) => boolean;
  /** Whether an SSE event is the vendor's mid-stream error. */
  isError: (e: SseEvent) => boolean;
  /** The answer text of a non-streaming body. */
  text: (body: any) => string;
  finish: (body: any) => unknown;
}

const json = (data: string): any => JSON.parse(data);

const openAIChat = (start: () => Promise<FakeVendor>, name: string, model: string): VendorCase => ({
  name,
  start,
  model,
  request: (fake, m, stream, extra) => ({
    url: `${fake.baseUrl}/chat/completions`,
    headers: { authorization: `Bearer ${fake.apiKeys.valid}` },
    body: { model: m, stream, ...(stream ? { stream_options: { include_usage: true } } : {}), messages: [{ role: 'user', content: 'alpha beta gamma delta' }], ...extra },
  }),
  isToken: (e) => parses(e.data) && Boolean(json(e.data).choices?.[0]?.delta?.content),
  isTerminal: (e) => e.data === '[DONE]',
  isError: (e) => parses(e.data) && json(e.data).error !== undefined,
  text: (b) => b.choices[0].message.content ?? '',
  finish: (b) => b.choices[0].finish_reason,
});

const VENDORS: VendorCase[] = [
  openAIChat(() => startFakeOpenAI(), 'openai', 'gpt-4o'),
  {
    name: 'openai responses',
    start: () => startFakeOpenAI(),
    model: 'gpt-4.1',
    request: (fake, m, stream, extra) => ({ url: `${fake.baseUrl}/responses`, headers: { authorization: `Bearer ${fake.apiKeys.valid}` }, body: { model: m, stream, input: 'alpha beta gamma delta', ...extra } }),
    isToken: (e) => e.event === 'response.output_text.delta',
    isTerminal: (e) => e.event === 'response.completed' || e.event === 'response.incomplete',
    isError: (e) => e.event === 'error',
    text: (b) => b.output.filter((o: any) => o.type === 'message').flatMap((o: any) => o.content.map((c: any) => c.text)).join(''),
    finish: (b) => (b.status === 'completed' ? 'completed' : `incomplete:${b.incomplete_details?.reason}`),
  },
  {
    name: 'anthropic',
    start: () => startFakeAnthropic(),
    model: 'claude-sonnet-4-6',
    request: (fake, m, stream, extra) => ({
      url: `${fake.baseUrl}/v1/messages`,
      headers: { 'x-api-key': fake.apiKeys.valid, 'anthropic-version': '2023-06-01' },
      body: { model: m, max_tokens: 1000, stream, messages: [{ role: 'user', content: 'alpha beta gamma delta' }], ...extra },
    }),
    isToken: (e) => e.event === 'content_block_delta',
    isTerminal: (e) => e.event === 'message_stop',
    isError: (e) => e.event === 'error',
    text: (b) => b.content.filter((c: any) => c.type === 'text').map((c: any) => c.text).join(''),
    finish: (b) => b.stop_reason,
  },
  {
    name: 'gemini',
    start: () => startFakeGemini(),
    model: 'gemini-2.0-flash',
    request: (fake, m, stream, extra) => ({
      url: `${fake.baseUrl}/v1beta/models/${m}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      headers: { 'x-goog-api-key': fake.apiKeys.valid },
      body: { contents: [{ role: 'user', parts: [{ text: 'alpha beta gamma delta' }] }], ...extra },
    }),
    isToken: (e) => parses(e.data) && Boolean(json(e.data).candidates?.[0]?.content?.parts?.[0]?.text),
    isTerminal: (e) => parses(e.data) && json(e.data).candidates?.[0]?.finishReason !== undefined,
    isError: (e) => parses(e.data) && json(e.data).error !== undefined,
    text: (b) => (b.candidates?.[0]?.content?.parts ?? []).map((p: any) => p.text ?? '').join(''),
    finish: (b) => b.candidates?.[0]?.finishReason,
  },
  openAIChat(() => startFakeOpenAICompatible({ flavour: 'together' }), 'openai-compatible', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'),
];

/** Status, error code/type and headers each vendor's error faults answer with. */
const ERRORS: Record<string, Record<string, { status: number; match: unknown; header?: [string, RegExp] }>> = {
  rate_limit: {
    openai: { status: 429, match: { error: { type: 'requests', code: 'rate_limit_exceeded' } }, header: ['retry-after', /^30$/] },
    'openai responses': { status: 429, match: { error: { code: 'rate_limit_exceeded' } }, header: ['retry-after', /^30$/] },
    anthropic: { status: 429, match: { type: 'error', error: { type: 'rate_limit_error' } }, header: ['retry-after', /^30$/] },
    gemini: { status: 429, match: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: expect.arrayContaining([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' }]) } } },
    'openai-compatible': { status: 429, match: { error: { code: 'rate_limit_exceeded' } }, header: ['retry-after', /^30$/] },
  },
  overloaded: {
    openai: { status: 503, match: { error: { type: 'server_error' } } },
    'openai responses': { status: 503, match: { error: { type: 'server_error' } } },
    anthropic: { status: 529, match: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
    gemini: { status: 503, match: { error: { code: 503, status: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.' } } },
    'openai-compatible': { status: 503, match: { error: { type: 'server_error' } } },
  },
  server_error: {
    openai: { status: 500, match: { error: { type: 'server_error', message: 'The server had an error while processing your request. Sorry about that!' } } },
    'openai responses': { status: 500, match: { error: { type: 'server_error' } } },
    anthropic: { status: 500, match: { type: 'error', error: { type: 'api_error' } } },
    gemini: { status: 500, match: { error: { code: 500, status: 'INTERNAL' } } },
    'openai-compatible': { status: 500, match: { error: { type: 'server_error' } } },
  },
  context_length: {
    openai: { status: 400, match: { error: { code: 'context_length_exceeded', param: 'messages', message: expect.stringMatching(/^This model's maximum context length is 128000 tokens/) } } },
    'openai responses': { status: 400, match: { error: { code: 'context_length_exceeded', param: 'input' } } },
    anthropic: { status: 400, match: { type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/^prompt is too long: \d+ tokens > 200000 maximum$/) } } },
    gemini: { status: 400, match: { error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringMatching(/^The input token count \(\d+\) exceeds the maximum number of tokens allowed \(1048576\)\.$/) } } },
    'openai-compatible': { status: 400, match: { error: { code: 'context_length_exceeded' } } },
  },
  billing: {
    openai: { status: 429, match: { error: { type: 'insufficient_quota', code: 'insufficient_quota' } } },
    'openai responses': { status: 429, match: { error: { code: 'insufficient_quota' } } },
    anthropic: { status: 400, match: { type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/^Your credit balance is too low/) } } },
    gemini: { status: 429, match: { error: { status: 'RESOURCE_EXHAUSTED', message: expect.stringMatching(/^Your prepayment credits are depleted/) } } },
    'openai-compatible': { status: 429, match: { error: { code: 'insufficient_quota' } } },
  },
  model_not_found: {
    openai: { status: 404, match: { error: { code: 'model_not_found', message: 'The model `gpt-4o` does not exist or you do not have access to it.' } } },
    'openai responses': { status: 404, match: { error: { code: 'model_not_found' } } },
    anthropic: { status: 404, match: { type: 'error', error: { type: 'not_found_error', message: 'model: claude-sonnet-4-6' } } },
    gemini: { status: 404, match: { error: { status: 'NOT_FOUND', message: expect.stringMatching(/^models\/gemini-2.0-flash is not found for API version v1beta/) } } },
    'openai-compatible': { status: 404, match: { error: { code: 'model_not_found' } } },
  },
};

/** The finish each vendor reports for the content faults. */
const CONTENT: Record<string, Record<string, { finish: unknown; text: string }>> = {
  content_filter: {
    openai: { finish: 'content_filter', text: '' },
    'openai responses': { finish: 'incomplete:content_filter', text: '' },
    anthropic: { finish: 'refusal', text: '' },
    gemini: { finish: 'SAFETY', text: '' },
    'openai-compatible': { finish: 'content_filter', text: '' },
  },
  empty: {
    openai: { finish: 'stop', text: '' },
    'openai responses': { finish: 'completed', text: '' },
    anthropic: { finish: 'end_turn', text: '' },
    gemini: { finish: 'STOP', text: '' },
    'openai-compatible': { finish: 'stop', text: '' },
  },
  reasoning_exhausted: {
    openai: { finish: 'length', text: '' },
    'openai responses': { finish: 'incomplete:max_output_tokens', text: '' },
    anthropic: { finish: 'max_tokens', text: '' },
    gemini: { finish: 'MAX_TOKENS', text: '' },
    'openai-compatible': { finish: 'length', text: '' },
  },
};

describe.each(VENDORS)('$name faults on the wire', (v) => {
  let fake: FakeVendor;
  beforeAll(async () => {
    fake = await v.start();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  const call = (fault: string, stream: boolean, extra?: Record<string, unknown>, silenceMs?: number): Promise<WireObservation> => {
    const r = v.request(fake, `${v.model}@${fault}`, stream, extra);
    return wireCall(r.url, { headers: r.headers, body: r.body, silenceMs });
  };
  const events = (obs: WireObservation) => sseEvents(obs.body);

  for (const kind of Object.keys(ERRORS)) {
    it(`${kind}: the vendor's error status and body, the same with stream: true`, async () => {
      const expected = ERRORS[kind]![v.name]!;
      const arg = kind === 'rate_limit' ? '=30' : '';
      for (const stream of [false, true]) {
        const obs = await call(`${kind}${arg}`, stream);
        expect(obs.status).toBe(expected.status);
        expect(obs.ended).toBe('end');
        expect(JSON.parse(obs.body)).toMatchObject(expected.match as object);
        if (expected.header) expect(obs.headers?.[expected.header[0]]).toMatch(expected.header[1]);
      }
    });
  }

  for (const kind of Object.keys(CONTENT)) {
    it(`${kind}: a 200 whose finish is ${JSON.stringify(CONTENT[kind]![v.name]!.finish)} and which carries no answer text`, async () => {
      const expected = CONTENT[kind]![v.name]!;
      const obs = await call(kind, false);
      expect(obs.status).toBe(200);
      const body = JSON.parse(obs.body);
      expect(v.finish(body)).toBe(expected.finish);
      expect(v.text(body)).toBe(expected.text);
      const streamed = await call(kind, true);
      expect(streamed.status).toBe(200);
      expect(events(streamed).filter(v.isToken).filter((e) => !/thinking|thought/.test(e.data))).toHaveLength(0);
      expect(events(streamed).some(v.isTerminal)).toBe(true);
    });
  }

  it('reset: the connection is reset before any byte of the answer', async () => {
    const obs = await call('reset', false);
    expect(obs.status).toBeUndefined();
    expect(obs.ended).toBe('error');
    expect(obs.error).toBe('ECONNRESET');
  });

  it('hang: the request is read but no response ever starts', async () => {
    const obs = await call('hang', true, undefined, 300);
    expect(obs.status).toBeUndefined();
    expect(obs.ended).toBe('open');
    expect(fake.requests).toHaveLength(1);
  });

  it('slow_first_token: headers at once, the first frame only after the delay, then the whole stream', async () => {
    const obs = await call('slow_first_token=250', true, undefined, 1000);
    expect(obs.status).toBe(200);
    expect(obs.ended).toBe('end');
    expect(sseEvents(obs.chunks[0] ?? '').length).toBeGreaterThan(0);
    expect(events(obs).filter(v.isToken).length).toBeGreaterThan(0);
    expect(events(obs).some(v.isTerminal)).toBe(true);
  });

  it('stream_cut: two tokens, then the socket is destroyed; no terminal frame', async () => {
    const obs = await call('stream_cut=2', true);
    expect(obs.status).toBe(200);
    expect(obs.ended).toBe('error');
    expect(events(obs).filter(v.isToken)).toHaveLength(2);
    expect(events(obs).some(v.isTerminal)).toBe(false);
  });

  it('stall: two tokens, then silence on an open connection', async () => {
    const obs = await call('stall=2', true, undefined, 300);
    expect(obs.status).toBe(200);
    expect(obs.ended).toBe('open');
    expect(events(obs).filter(v.isToken)).toHaveLength(2);
    expect(events(obs).some(v.isTerminal)).toBe(false);
  });

  it('malformed_chunk: one frame that is not JSON after the first token, then the rest of the stream', async () => {
    const obs = await call('malformed_chunk=1', true);
    expect(obs.ended).toBe('end');
    const all = events(obs);
    const bad = all.filter((e) => e.data !== '[DONE]' && !parses(e.data));
    expect(bad).toHaveLength(1);
    expect(all.findIndex((e) => e === bad[0])).toBeGreaterThan(all.findIndex(v.isToken));
    expect(all.some(v.isTerminal)).toBe(true);
  });

  it('missing_terminal: every token, then a clean close without the terminal frame', async () => {
    const normal = await wireCall(v.request(fake, v.model, true).url, { headers: v.request(fake, v.model, true).headers, body: v.request(fake, v.model, true).body });
    const obs = await call('missing_terminal', true);
    expect(obs.ended).toBe('end');
    expect(events(obs).filter(v.isToken)).toHaveLength(events(normal).filter(v.isToken).length);
    expect(events(obs).some(v.isTerminal)).toBe(false);
    expect(events(normal).some(v.isTerminal)).toBe(true);
  });

  it("stream_error: one token, then the vendor's own error frame, and the stream ends", async () => {
    const obs = await call('stream_error=1', true);
    expect(obs.status).toBe(200);
    expect(obs.ended).toBe('end');
    const all = events(obs);
    expect(all.filter(v.isToken)).toHaveLength(1);
    expect(all.some(v.isError)).toBe(true);
    expect(all.some(v.isTerminal)).toBe(false);
  });

  it('stream_cut without streaming: half of the JSON body, then the socket is destroyed', async () => {
    const obs = await call('stream_cut', false);
    expect(obs.status).toBe(200);
    expect(obs.ended).toBe('error');
    expect(parses(obs.body)).toBe(false);
  });
});

describe('fault selection', () => {
  let fake: FakeVendor;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  const chat = (model = 'gpt-4o', key = fake.apiKeys.valid, stream = false) =>
    wireCall(`${fake.baseUrl}/chat/completions`, { headers: { authorization: `Bearer ${key}` }, body: { model, stream, messages: [{ role: 'user', content: 'x' }] } });

  it('a persistent fault answers every matching request until cleared; other models are untouched', async () => {
    fake.setFault({ kind: 'overloaded' }, { model: 'gpt-4o' });
    expect((await chat()).status).toBe(503);
    expect((await chat()).status).toBe(503);
    expect((await chat('gpt-4o-mini')).status).toBe(200);
    fake.clearFaults();
    expect((await chat()).status).toBe(200);
  });

  it('a flapping primary: fraction 0.5 faults the 1st, 3rd, 5th request', async () => {
    fake.setFault({ kind: 'server_error' }, { fraction: 0.5 });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await chat()).status);
    expect(statuses).toEqual([500, 200, 500, 200, 500, 200]);
  });

  it('the same through the model name: gpt-4o@server_error~0.5', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await chat('gpt-4o@server_error~0.5')).status);
    expect(statuses).toEqual([500, 200, 500, 200]);
  });

  it('a fault for one service tier: flex gets 429, the standard retry is served, and the answer names its tier', async () => {
    fake.setFault({ kind: 'rate_limit' }, { serviceTier: 'flex' });
    const call = (tier?: string) =>
      wireCall(`${fake.baseUrl}/chat/completions`, { headers: { authorization: `Bearer ${fake.apiKeys.valid}` }, body: { model: 'gpt-4o', service_tier: tier, messages: [{ role: 'user', content: 'x' }] } });
    expect((await call('flex')).status).toBe(429);
    const standard = await call();
    expect(standard.status).toBe(200);
    expect(JSON.parse(standard.body).service_tier).toBe('default');
    fake.clearFaults();
    expect(JSON.parse((await call('flex')).body).service_tier).toBe('flex');
  });

  it('a scripted fault answers only the next matching request, ahead of persistent faults', async () => {
    fake.setFault({ kind: 'server_error' });
    fake.script({ match: { stream: false }, fault: { kind: 'billing' } });
    expect((await chat()).status).toBe(429);
    expect((await chat()).status).toBe(500);
  });

  it('scripts and faults work the same over the HTTP control', async () => {
    const post = (path: string, body: unknown) => fetch(`${fake.control.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/script', [{ text: 'over http', match: { model: '/^gpt-4o$/' } }])).status).toBe(200);
    expect(JSON.parse((await chat()).body).choices[0].message.content).toBe('over http');
    expect((await post('/faults', { fault: { kind: 'overloaded' }, model: 'gpt-4o', fraction: 1 })).status).toBe(200);
    expect((await chat()).status).toBe(503);
    expect((await fetch(`${fake.control.url}/faults`, { method: 'DELETE' })).status).toBe(200);
    expect((await chat()).status).toBe(200);
    const recorded = (await (await fetch(`${fake.control.url}/requests`)).json()) as { requests: Array<{ json: { model: string } }> };
    expect(recorded.requests.map((r) => r.json.model)).toEqual(['gpt-4o', 'gpt-4o', 'gpt-4o']);
    expect((await post('/faults', { fault: { kind: 'nope' } })).status).toBe(400);
  });
});

describe('rate limits per key per minute', () => {
  it('OpenAI: the third request in the window is 429 with the x-ratelimit headers; another key is unaffected; the next window resets', async () => {
    let now = 1_000_000;
    const fake = await startFakeOpenAI({ rateLimits: { requestsPerMinute: 2 }, now: () => now });
    try {
      const chat = (key: string) => wireCall(`${fake.baseUrl}/chat/completions`, { headers: { authorization: `Bearer ${key}` }, body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] } });
      const first = await chat(fake.apiKeys.valid);
      expect(first.headers?.['x-ratelimit-remaining-requests']).toBe('1');
      await chat(fake.apiKeys.valid);
      now += 20_000;
      const limited = await chat(fake.apiKeys.valid);
      expect(limited.status).toBe(429);
      expect(limited.headers?.['retry-after']).toBe('40');
      expect(limited.headers?.['x-ratelimit-remaining-requests']).toBe('0');
      expect(limited.headers?.['x-ratelimit-reset-requests']).toBe('40s');
      expect(JSON.parse(limited.body).error.message).toBe(
        'Rate limit reached for gpt-4o in organization org-fake on requests per min (RPM): Limit 2, Used 2, Requested 1. Please try again in 40s. Visit https://platform.openai.com/account/rate-limits to learn more.',
      );
      expect((await chat(fake.apiKeys.secondary)).status).toBe(200);
      now += 40_000;
      expect((await chat(fake.apiKeys.valid)).status).toBe(200);
    } finally {
      await fake.close();
    }
  });

  it('Anthropic: tokens per minute, with the anthropic-ratelimit headers and retry-after', async () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const fake = await startFakeAnthropic({ rateLimits: { tokensPerMinute: 10 }, now: () => now });
    try {
      const message = (text: string) =>
        wireCall(`${fake.baseUrl}/v1/messages`, { headers: { 'x-api-key': fake.apiKeys.valid, 'anthropic-version': '2023-06-01' }, body: { model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: text }] } });
      const ok = await message('x'.repeat(32));
      expect(ok.status).toBe(200);
      expect(ok.headers?.['anthropic-ratelimit-tokens-remaining']).toBe('2');
      expect(ok.headers?.['anthropic-ratelimit-tokens-reset']).toBe('2026-01-01T12:01:00Z');
      const limited = await message('x'.repeat(32));
      expect(limited.status).toBe(429);
      expect(limited.headers?.['retry-after']).toBe('60');
      expect(JSON.parse(limited.body)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: expect.stringContaining('of 10 input tokens per minute') } });
    } finally {
      await fake.close();
    }
  });
});

describe('stream_error with a chosen error', () => {
  it('OpenAI Responses: response.created and the item start, then an insufficient_quota error and response.failed (the case bifrost#5395 never failed over)', async () => {
    const fake = await startFakeOpenAI();
    try {
      const obs = await wireCall(`${fake.baseUrl}/responses`, { headers: { authorization: `Bearer ${fake.apiKeys.valid}` }, body: { model: 'gpt-4.1@stream_error=billing', stream: true, input: 'x' } });
      const all = sseEvents(obs.body);
      expect(all.map((e) => e.event)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'error', 'response.failed']);
      expect(JSON.parse(all[4]!.data)).toMatchObject({ type: 'error', code: 'insufficient_quota', sequence_number: 4 });
      expect(JSON.parse(all[5]!.data)).toMatchObject({ type: 'response.failed', sequence_number: 5, response: { status: 'failed', error: { code: 'insufficient_quota' } } });
    } finally {
      await fake.close();
    }
  });

  it('Anthropic: a rate_limit_error event; Gemini: a RESOURCE_EXHAUSTED chunk', async () => {
    const anthropic = await startFakeAnthropic();
    const gemini = await startFakeGemini();
    try {
      anthropic.script({ fault: { kind: 'stream_error', afterTokens: 1, error: 'rate_limit' } });
      const a = await wireCall(`${anthropic.baseUrl}/v1/messages`, {
        headers: { 'x-api-key': anthropic.apiKeys.valid, 'anthropic-version': '2023-06-01' },
        body: { model: 'claude-haiku-4-5', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'x' }] },
      });
      const error = sseEvents(a.body).find((e) => e.event === 'error');
      expect(JSON.parse(error!.data)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
      gemini.script({ fault: { kind: 'stream_error', error: 'rate_limit' } });
      const g = await wireCall(`${gemini.baseUrl}/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse`, { headers: { 'x-goog-api-key': gemini.apiKeys.valid }, body: { contents: [{ role: 'user', parts: [{ text: 'x' }] }] } });
      expect(JSON.parse(sseEvents(g.body).at(-1)!.data)).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
    } finally {
      await anthropic.close();
      await gemini.close();
    }
  });
});

describe('content filter forms', () => {
  it("OpenAI's 400 content_policy_violation form", async () => {
    const fake = await startFakeOpenAI();
    try {
      fake.script({ fault: { kind: 'content_filter', form: 'error' } });
      const obs = await wireCall(`${fake.baseUrl}/chat/completions`, { headers: { authorization: `Bearer ${fake.apiKeys.valid}` }, body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] } });
      expect(obs.status).toBe(400);
      expect(JSON.parse(obs.body)).toMatchObject({ error: { code: 'content_policy_violation', type: 'invalid_request_error' } });
    } finally {
      await fake.close();
    }
  });

  it("Gemini's promptFeedback.blockReason form: no candidates at all", async () => {
    const fake = await startFakeGemini();
    try {
      const obs = await wireCall(`${fake.baseUrl}/v1beta/models/gemini-2.0-flash@content_filter=prompt:generateContent`, {
        headers: { 'x-goog-api-key': fake.apiKeys.valid },
        body: { contents: [{ role: 'user', parts: [{ text: 'x' }] }] },
      });
      const body = JSON.parse(obs.body);
      expect(obs.status).toBe(200);
      expect(body.candidates).toBeUndefined();
      expect(body.promptFeedback.blockReason).toBe('SAFETY');
    } finally {
      await fake.close();
    }
  });
});

describe('what the official SDKs make of the stream faults', () => {
  it.each<[string, FakeFault]>([
    ['stream_cut', { kind: 'stream_cut', afterTokens: 2 }],
    ['stream_error', { kind: 'stream_error', afterTokens: 2 }],
  ])('openai: %s throws from the stream iterator after the tokens already received', async (_name, fault) => {
    const { default: OpenAI } = await import('openai');
    const fake = await startFakeOpenAI();
    try {
      fake.script({ fault });
      const client = new OpenAI({ apiKey: fake.apiKeys.valid, baseURL: fake.baseUrl, maxRetries: 0 });
      const stream = await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'a b c d' }] });
      const seen: string[] = [];
      await expect(
        (async () => {
          for await (const chunk of stream) if (chunk.choices[0]?.delta.content) seen.push(chunk.choices[0].delta.content);
        })(),
      ).rejects.toThrow();
      expect(seen).toEqual(['You', ' said:']);
    } finally {
      await fake.close();
    }
  });

  it('openai: missing_terminal ends the iterator cleanly with no finish_reason — the case a gateway must not report as success', async () => {
    const { default: OpenAI } = await import('openai');
    const fake = await startFakeOpenAI();
    try {
      fake.script({ fault: { kind: 'missing_terminal' } });
      const client = new OpenAI({ apiKey: fake.apiKeys.valid, baseURL: fake.baseUrl, maxRetries: 0 });
      const stream = await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'a b' }] });
      const finishes: unknown[] = [];
      for await (const chunk of stream) finishes.push(chunk.choices[0]?.finish_reason);
      expect(finishes.every((f) => f === null)).toBe(true);
    } finally {
      await fake.close();
    }
  });

  it('anthropic: stream_error surfaces as an overloaded_error APIError', async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const fake = await startFakeAnthropic();
    try {
      fake.script({ fault: { kind: 'stream_error', afterTokens: 1 } });
      const client = new Anthropic({ apiKey: fake.apiKeys.valid, baseURL: fake.baseUrl, maxRetries: 0 });
      await expect(client.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'x' }] }).finalMessage()).rejects.toMatchObject({
        error: { type: 'error', error: { type: 'overloaded_error' } },
      });
    } finally {
      await fake.close();
    }
  });
});
