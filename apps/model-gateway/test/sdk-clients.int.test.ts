import { readFileSync } from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import * as ai from 'ai';
import * as aiCurrent from 'ai-current';
import { createOpenAI as createOpenAICurrent } from 'ai-sdk-openai-current';
import { createOpenAICompatible as createOpenAICompatibleCurrent } from 'ai-sdk-openai-compatible-current';
import OpenAI from 'openai';
import OpenAICurrent from 'openai-current';
import { call, createKey, createOrg, startHarness, type Harness } from './harness';

/** The official clients, unmodified, against the gateway through the edge router: `{gateway_url}` is the edge. */
let h: Harness;
let key: string;

/** The installed version of a client (for an npm alias such as `openai-current`, of the package it stands for). */
function versionOf(dependency: string): string {
  return (JSON.parse(readFileSync(path.join(__dirname, '..', 'node_modules', dependency, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The OpenAI-surface clients in two sets: the releases pinned because they support Node 20, and the
 * current releases (the `*-current` npm aliases), which declare Node 22 and run on Node 20 all the same
 * (ai 7 and @ai-sdk/* 4 are ES modules only: jest.base.js compiles them to CommonJS). TypeScript sees
 * the two releases' classes and model interfaces as unrelated types, so the current ones are cast to
 * the pinned ones to share the test bodies: a change in their API fails a test rather than the types.
 */
interface ClientSet {
  title: string;
  OpenAI: typeof OpenAI;
  ai: Pick<typeof ai, 'generateText' | 'streamText' | 'tool' | 'jsonSchema' | 'APICallError'>;
  createOpenAI: typeof createOpenAI;
  createOpenAICompatible: typeof createOpenAICompatible;
  versions: { openai: string; ai: string; aiSdkOpenAI: string; aiSdkOpenAICompatible: string };
}

const clientSets: ClientSet[] = [
  {
    title: 'the releases pinned for Node 20:',
    OpenAI,
    ai,
    createOpenAI,
    createOpenAICompatible,
    versions: { openai: versionOf('openai'), ai: versionOf('ai'), aiSdkOpenAI: versionOf('@ai-sdk/openai'), aiSdkOpenAICompatible: versionOf('@ai-sdk/openai-compatible') },
  },
  {
    title: 'the current releases:',
    OpenAI: OpenAICurrent as unknown as typeof OpenAI,
    ai: aiCurrent as unknown as ClientSet['ai'],
    createOpenAI: createOpenAICurrent as unknown as typeof createOpenAI,
    createOpenAICompatible: createOpenAICompatibleCurrent as unknown as typeof createOpenAICompatible,
    versions: { openai: versionOf('openai-current'), ai: versionOf('ai-current'), aiSdkOpenAI: versionOf('ai-sdk-openai-current'), aiSdkOpenAICompatible: versionOf('ai-sdk-openai-compatible-current') },
  },
];

const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

beforeAll(async () => {
  h = await startHarness();
  const org = await createOrg(h, { plan: 'paid' });
  key = (await createKey(h, org)).key;
}, 60_000);

afterAll(async () => {
  await h?.close();
});

beforeEach(() => {
  h.openai.reset();
  h.anthropic.reset();
  h.gemini.reset();
});

describe.each(clientSets)('$title', (sdk) => {
  let openai: OpenAI;

  beforeAll(() => {
    openai = new sdk.OpenAI({ apiKey: key, baseURL: `${h.edgeUrl}/v1/openai`, maxRetries: 0 });
  });

  describe(`openai ${sdk.versions.openai} through the edge`, () => {
    test('chat completion, with usage and the gateway overhead header', async () => {
      h.openai.script({ text: 'Paris.', usage: { inputTokens: 20, outputTokens: 5, cachedInputTokens: 8 } });
      const { data, response } = await openai.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Capital of France?' }] }).withResponse();
      expect(data.choices[0]!.message.content).toBe('Paris.');
      expect(data.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 8 } });
      expect(Number(response.headers.get('x-gateway-overhead-ms'))).toBeGreaterThanOrEqual(0);
      expect(response.headers.get('x-request-id')).toBeTruthy();
    });

    test('.stream token by token, tool calls round-trip', async () => {
      h.openai.script({ text: 'one two three four', usage: { inputTokens: 11, outputTokens: 4 } });
      const stream = openai.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'count' }], stream_options: { include_usage: true } });
      const deltas: string[] = [];
      stream.on('content', (delta) => deltas.push(delta));
      const final = await stream.finalChatCompletion();
      expect(deltas.length).toBeGreaterThan(1);
      expect(final.choices[0]!.message.content).toBe('one two three four');
      expect(final.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4 });

      h.openai.script({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }] });
      const first = await openai.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Weather?' }], tools: [weather] });
      const toolCall = first.choices[0]!.message.tool_calls![0]!;
      expect(toolCall.type === 'function' && JSON.parse(toolCall.function.arguments)).toEqual({ city: 'Oslo' });

      h.openai.script({ toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: { city: 'Bergen' } }] });
      const toolStream = openai.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Weather?' }], tools: [weather] });
      const argumentsDone: string[] = [];
      toolStream.on('tool_calls.function.arguments.done', (e) => argumentsDone.push(e.arguments));
      const streamed = await toolStream.finalChatCompletion();
      expect(streamed.choices[0]!.finish_reason).toBe('tool_calls');
      expect(streamed.choices[0]!.message.tool_calls).toMatchObject([{ id: 'call_2', type: 'function', function: { name: 'get_weather' } }]);
      expect(argumentsDone.map((a) => JSON.parse(a) as unknown)).toEqual([{ city: 'Bergen' }]);
    });

    test('responses.create and responses.stream', async () => {
      h.openai.script({ text: 'Hello from responses.', usage: { inputTokens: 9, outputTokens: 3 } });
      const response = await openai.responses.create({ model: 'openai/gpt-4o', input: 'Say hello' });
      expect(response.output_text).toBe('Hello from responses.');
      h.openai.script({ text: 'alpha beta gamma' });
      const stream = openai.responses.stream({ model: 'openai/gpt-4o', input: 'go' });
      const deltas: string[] = [];
      stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
      const final = await stream.finalResponse();
      expect(deltas.join('')).toBe('alpha beta gamma');
      expect(final.status).toBe('completed');
    });

    test('embeddings in base64 (the SDK default) and float', async () => {
      const b64 = await openai.embeddings.create({ model: 'openai/text-embedding-3-small', input: ['a', 'b'] });
      expect(b64.data).toHaveLength(2);
      expect(b64.data[0]!.embedding).toHaveLength(1536);
      const float = await openai.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'a', encoding_format: 'float' });
      expect(float.data[0]!.embedding[0]).toBeCloseTo(b64.data[0]!.embedding[0]!, 5);
    });

    test('models.list and models.retrieve("openai/gpt-4o"): the encoded slash works through the edge', async () => {
      const model = await openai.models.retrieve('openai/gpt-4o');
      expect(model).toMatchObject({ id: 'openai/gpt-4o', object: 'model', owned_by: 'openai' });
      const list = await openai.models.list();
      const ids = list.data.map((m) => m.id);
      expect(ids).toEqual(expect.arrayContaining(['openai/gpt-4o', 'anthropic/claude-sonnet-4', 'google/gemini-2.5-flash', 'meta-llama/llama-3.3-70b']));
      // Together and Mistral have no key configured here: their models are not offered.
      expect(ids).not.toContain('mistral/mistral-large');
    });

    test('an Anthropic model through the OpenAI surface, tool calls translated', async () => {
      h.anthropic.script({ toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Lima' } }] });
      const completion = await openai.chat.completions.create({ model: 'anthropic/claude-sonnet-4', messages: [{ role: 'user', content: 'Weather in Lima?' }], tools: [weather] });
      const toolCall = completion.choices[0]!.message.tool_calls![0]!;
      expect(toolCall.type === 'function' && toolCall.function.name).toBe('get_weather');
      expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    });

    test('a vendor 429 is the SDK\'s RateLimitError: rate_limit_error from the provider, without Retry-After', async () => {
      h.openai.setFault({ kind: 'rate_limit' });
      const error = await openai.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      h.openai.clearFaults();
      expect(error).toBeInstanceOf(sdk.OpenAI.RateLimitError);
      const { status, type, error: body, headers } = error as InstanceType<typeof OpenAI.RateLimitError>;
      expect({ status, type }).toEqual({ status: 429, type: 'rate_limit_error' });
      expect(body).toMatchObject({ source: 'provider' });
      expect(headers.get('retry-after')).toBeNull();
    });

    test('a vendor error in the middle of a stream rejects .stream with the SDK\'s APIError after the first tokens', async () => {
      h.openai.script({ text: 'one two three four', fault: { kind: 'stream_error', afterTokens: 2 } });
      const stream = openai.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'count' }] });
      const deltas: string[] = [];
      stream.on('content', (delta) => deltas.push(delta));
      const error = await stream.finalChatCompletion().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(sdk.OpenAI.APIError);
      expect(deltas.length).toBeGreaterThan(0);
    });
  });

  describe(`ai ${sdk.versions.ai} with @ai-sdk/openai ${sdk.versions.aiSdkOpenAI} and @ai-sdk/openai-compatible ${sdk.versions.aiSdkOpenAICompatible} through the edge`, () => {
    const aiWeather = sdk.ai.tool({ description: 'Weather for a city', inputSchema: sdk.ai.jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) });

    test.each([
      ['the Responses API (the provider\'s default)', 'responses'],
      ['chat completions', 'chat'],
    ] as const)('@ai-sdk/openai generateText and streamText over %s', async (_surface, api) => {
      const provider = sdk.createOpenAI({ apiKey: key, baseURL: `${h.edgeUrl}/v1/openai` });
      h.openai.script({ text: 'Generated.' });
      expect((await sdk.ai.generateText({ model: provider[api]('openai/gpt-4o'), prompt: 'Say it' })).text).toBe('Generated.');
      h.openai.script({ text: 'streamed via ai', usage: { inputTokens: 7, outputTokens: 3 } });
      const result = sdk.ai.streamText({ model: provider[api]('openai/gpt-4o'), prompt: 'Stream it' });
      const parts: string[] = [];
      for await (const part of result.textStream) parts.push(part);
      expect(parts.join('')).toBe('streamed via ai');
      expect(await result.finishReason).toBe('stop');
      expect(await result.usage).toMatchObject({ inputTokens: 7, outputTokens: 3 });
    });

    test('@ai-sdk/openai-compatible with a Gemini model and a tool', async () => {
      const compat = sdk.createOpenAICompatible({ name: 'patchbay', apiKey: key, baseURL: `${h.edgeUrl}/v1`, includeUsage: true });
      h.gemini.script({ toolCalls: [{ name: 'weather', arguments: { city: 'Quito' } }] } as never);
      const result = await sdk.ai.generateText({ model: compat('google/gemini-2.5-flash'), prompt: 'Weather in Quito?', tools: { weather: aiWeather } });
      expect(result.toolCalls[0]).toMatchObject({ toolName: 'weather', input: { city: 'Quito' } });
    });

    test('streamText with a tool, an Anthropic model over chat completions: the streamed tool call arrives whole', async () => {
      const provider = sdk.createOpenAI({ apiKey: key, baseURL: `${h.edgeUrl}/v1/openai` });
      h.anthropic.script({ toolCalls: [{ name: 'weather', arguments: { city: 'Cusco' } }] });
      const result = sdk.ai.streamText({ model: provider.chat('anthropic/claude-sonnet-4'), prompt: 'Weather in Cusco?', tools: { weather: aiWeather } });
      expect(await result.toolCalls).toMatchObject([{ toolName: 'weather', input: { city: 'Cusco' } }]);
      expect(await result.finishReason).toBe('tool-calls');
    });

    test('a vendor 429 is an APICallError with status 429', async () => {
      const provider = sdk.createOpenAI({ apiKey: key, baseURL: `${h.edgeUrl}/v1/openai` });
      h.openai.setFault({ kind: 'rate_limit' });
      const error = await sdk.ai.generateText({ model: provider.chat('openai/gpt-4o'), prompt: 'hi', maxRetries: 0 }).catch((e: unknown) => e);
      h.openai.clearFaults();
      expect(sdk.ai.APICallError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ statusCode: 429, isRetryable: true });
    });
  });
});

describe(`@anthropic-ai/sdk ${versionOf('@anthropic-ai/sdk')} (the current release, which supports Node 20) through the edge`, () => {
  let anthropic: Anthropic;

  beforeAll(() => {
    anthropic = new Anthropic({ apiKey: key, baseURL: `${h.edgeUrl}/v1/anthropic`, maxRetries: 0 });
  });

  test('messages.create, .stream and countTokens', async () => {
    h.anthropic.script({ text: 'Bonjour.' });
    const message = await anthropic.messages.create({ model: 'anthropic/claude-sonnet-4', max_tokens: 100, messages: [{ role: 'user', content: 'Hello in French' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Bonjour.' });
    h.anthropic.script({ text: 'a b c d' });
    const deltas: string[] = [];
    const final = await anthropic.messages
      .stream({ model: 'anthropic/claude-sonnet-4', max_tokens: 100, messages: [{ role: 'user', content: 'Go' }] })
      .on('text', (t) => deltas.push(t))
      .finalMessage();
    expect(deltas.join('')).toBe('a b c d');
    expect(final.stop_reason).toBe('end_turn');
    const counted = await anthropic.messages.countTokens({ model: 'anthropic/claude-sonnet-4', messages: [{ role: 'user', content: 'How many tokens is this?' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  test('a vendor 429 is the SDK\'s RateLimitError with Anthropic\'s rate_limit_error body', async () => {
    h.anthropic.setFault({ kind: 'rate_limit' });
    const error = await anthropic.messages.create({ model: 'anthropic/claude-sonnet-4', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    h.anthropic.clearFaults();
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error as InstanceType<typeof Anthropic.RateLimitError>).error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  test('an OpenAI model through the Anthropic surface, and POST /v1/messages with x-api-key', async () => {
    h.openai.script({ text: 'from gpt' });
    const message = await anthropic.messages.create({ model: 'openai/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'from gpt' });
    h.anthropic.script({ text: 'direct' });
    const res = await fetch(`${h.edgeUrl}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ model: 'anthropic/claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { content: Array<{ text: string }> }).content[0]!.text).toBe('direct');
  });
});

describe('native /v1/responses', () => {
  test('answer with usage and cost_usd at the catalog price; warnings null when clean', async () => {
    h.openai.script({ text: 'Native.', usage: { inputTokens: 1000, outputTokens: 100 } });
    const res = await call(h.edgeUrl, key, 'POST', '/v1/responses', { model: 'openai/gpt-4o', input: [{ type: 'message', role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'response', model: 'openai/gpt-4o', vendor: 'openai' });
    // 1000 × 2.50 + 100 × 10.00 per million = 0.0035 USD
    expect(res.body.usage).toMatchObject({ input_tokens: 1000, output_tokens: 100, total_tokens: 1100, cost_usd: 0.0035 });
    expect(res.body.warnings ?? null).toBeNull();
  });

  test('the native stream: cumulative response.stream snapshots, then response.done with usage and cost; no [DONE]', async () => {
    h.anthropic.script({ text: 'one two three', usage: { inputTokens: 10, outputTokens: 3 } });
    const res = await fetch(`${h.edgeUrl}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'anthropic/claude-sonnet-4', stream: true, input: [{ type: 'message', role: 'user', content: 'count' }] }) });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const frames = text.split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => f.slice(6));
    expect(frames).not.toContain('[DONE]');
    const objects = frames.map((f) => JSON.parse(f) as { object: string; usage?: { cost_usd: number } });
    expect(objects.filter((o) => o.object === 'response.stream').length).toBeGreaterThan(1);
    const done = objects.at(-1)!;
    expect(done.object).toBe('response.done');
    // 10 × 3.00 + 3 × 15.00 per million
    expect(done.usage?.cost_usd).toBeCloseTo(0.000075, 9);
  });

  test('schema failures are 422 with a detail array', async () => {
    const res = await call(h.edgeUrl, key, 'POST', '/v1/responses', { model: 'openai/gpt-4o', input: 'x', temperature: 'hot' });
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
  });
});
