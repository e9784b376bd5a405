import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { call, createKey, createOrg, startHarness, type Harness } from './harness';

/** The official clients, unmodified, against the gateway through the edge router: `{gateway_url}` is the edge. */
let h: Harness;
let key: string;
let openai: OpenAI;
let anthropic: Anthropic;

const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

beforeAll(async () => {
  h = await startHarness();
  const org = await createOrg(h, { plan: 'paid' });
  key = (await createKey(h, org)).key;
  openai = new OpenAI({ apiKey: key, baseURL: `${h.edgeUrl}/v1/openai`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: key, baseURL: `${h.edgeUrl}/v1/anthropic`, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

beforeEach(() => {
  h.openai.reset();
  h.anthropic.reset();
  h.gemini.reset();
});

describe('openai SDK through the edge', () => {
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

  test('a vendor 429 is rate_limit_error from the provider, without Retry-After', async () => {
    h.openai.setFault({ kind: 'rate_limit' });
    const res = await call(h.edgeUrl, key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    h.openai.clearFaults();
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ type: 'rate_limit_error', source: 'provider' });
    expect(res.headers.get('retry-after')).toBeNull();
  });
});

describe('@anthropic-ai/sdk through the edge', () => {
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

describe('ai@6 through the edge', () => {
  const aiWeather = tool({ description: 'Weather for a city', inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) });

  test('@ai-sdk/openai generateText and streamText', async () => {
    const provider = createOpenAI({ apiKey: key, baseURL: `${h.edgeUrl}/v1/openai` });
    h.openai.script({ text: 'Generated.' });
    expect((await generateText({ model: provider('openai/gpt-4o'), prompt: 'Say it' })).text).toBe('Generated.');
    h.openai.script({ text: 'streamed via ai' });
    const result = streamText({ model: provider.chat('openai/gpt-4o'), prompt: 'Stream it' });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);
    expect(parts.join('')).toBe('streamed via ai');
  });

  test('@ai-sdk/openai-compatible with a Gemini model and a tool', async () => {
    const compat = createOpenAICompatible({ name: 'patchbay', apiKey: key, baseURL: `${h.edgeUrl}/v1`, includeUsage: true });
    h.gemini.script({ toolCalls: [{ name: 'weather', arguments: { city: 'Quito' } }] } as never);
    const result = await generateText({ model: compat('google/gemini-2.5-flash'), prompt: 'Weather in Quito?', tools: { weather: aiWeather } });
    expect(result.toolCalls[0]).toMatchObject({ toolName: 'weather', input: { city: 'Quito' } });
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
