import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startFakeGemini, startFakeOpenAICompatible, type FakeFault, type FakeVendor } from '@patchbay/provider-fakes';
import { callVendor, createVendorHttp, parseSurfaceRequest, streamVendor, VendorError, type VendorErrorKind, type VendorTarget } from '../src';
import { startMiniGateway, type MiniGateway } from './support/mini-gateway';

let gemini: FakeVendor;
let groq: FakeVendor;
let mistral: FakeVendor;
let gateway: MiniGateway;
let openai: OpenAI;
let anthropic: Anthropic;
const http = createVendorHttp();
const timeouts = { firstTokenMs: 400, betweenTokensMs: 400, totalMs: 2000 };

const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

beforeAll(async () => {
  gemini = await startFakeGemini();
  groq = await startFakeOpenAICompatible({ flavour: 'groq' });
  mistral = await startFakeOpenAICompatible({ flavour: 'mistral' });
  gateway = await startMiniGateway({
    gemini: { baseUrl: gemini.baseUrl, apiKey: gemini.apiKeys.valid },
    compat: { baseUrl: groq.baseUrl, apiKey: groq.apiKeys.valid },
  });
  openai = new OpenAI({ apiKey: 'pb-test', baseURL: `${gateway.url}/v1/openai`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'pb-test', baseURL: `${gateway.url}/v1/anthropic`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway.close();
  await http.close();
  await gemini.close();
  await groq.close();
  await mistral.close();
});

beforeEach(() => {
  gemini.reset();
  groq.reset();
  mistral.reset();
});

describe('Gemini models through every chat surface', () => {
  test('OpenAI chat: text, with thoughts counted as output and reasoning', async () => {
    gemini.script({ text: 'Gemini says hi.', usage: { inputTokens: 15, outputTokens: 9, reasoningTokens: 4, cachedInputTokens: 5 } });
    const completion = await openai.chat.completions.create({ model: 'google/gemini-2.5-flash', messages: [{ role: 'system', content: 'Short.' }, { role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toBe('Gemini says hi.');
    expect(completion.usage).toMatchObject({ prompt_tokens: 15, completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 4 }, prompt_tokens_details: { cached_tokens: 5 } });
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.json).toMatchObject({ systemInstruction: { parts: [{ text: 'Short.' }] }, contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  });

  test('OpenAI chat .stream: a Gemini function call, then its functionResponse by name', async () => {
    gemini.script({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Seoul' } }] });
    const final = await openai.chat.completions.stream({ model: 'google/gemini-2.5-flash', messages: [{ role: 'user', content: 'Weather in Seoul?' }], tools: [weather] }).finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Seoul' });
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(gemini.requests.at(-1)!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');

    gemini.script({ text: 'Rainy.' });
    const next = await openai.chat.completions.create({
      model: 'google/gemini-2.5-flash',
      tools: [weather],
      messages: [{ role: 'user', content: 'Weather in Seoul?' }, final.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"sky":"rain"}' }],
    });
    expect(next.choices[0]!.message.content).toBe('Rainy.');
    const contents = (gemini.requests.at(-1)!.json as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }).contents;
    expect(contents[1]).toMatchObject({ role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Seoul' } } }] });
    expect(contents[2]).toMatchObject({ role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { sky: 'rain' } } }] });
  });

  test('Anthropic messages.stream with a Gemini model', async () => {
    gemini.script({ text: 'from gemini via anthropic' });
    const final = await anthropic.messages.stream({ model: 'google/gemini-2.5-flash', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'from gemini via anthropic' });
    expect(final.stop_reason).toBe('end_turn');
  });

  test('OpenAI responses with a Gemini model', async () => {
    gemini.script({ text: 'responses from gemini' });
    const response = await openai.responses.create({ model: 'google/gemini-2.5-flash', input: 'hi' });
    expect(response.output_text).toBe('responses from gemini');
  });

  test('native surface with a Gemini model, streamed: snapshots then response.done with usage and cost', async () => {
    gemini.script({ text: 'one two three' });
    const res = await fetch(`${gateway.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'google/gemini-2.5-flash', stream: true, input: 'count' }) });
    const frames = (await res.text()).trim().split('\n\n').map((f) => JSON.parse(f.slice('data: '.length)));
    const done = frames.at(-1);
    expect(done.object).toBe('response.done');
    expect(done.output[0].content[0].text).toBe('one two three');
    expect(done.output[0].finish_reason).toBe('stop');
    expect(done.usage).toMatchObject({ cost_usd: 0.0042 });
    const snapshots = frames.slice(0, -1);
    expect(snapshots.length).toBeGreaterThan(1);
    expect(snapshots.every((f) => f.object === 'response.stream')).toBe(true);
    expect(snapshots.at(-1).output[0].content[0].text).toBe('one two three');
  });

  test('embeddings from Gemini (batchEmbedContents) in base64 through the openai SDK', async () => {
    const result = await openai.embeddings.create({ model: 'google/text-embedding-004', input: ['a', 'b'] });
    expect(result.data).toHaveLength(2);
    expect(result.data[0]!.embedding.length).toBeGreaterThan(0);
  });
});

describe('OpenAI-compatible vendors', () => {
  test('a Groq-style vendor through the openai SDK, streamed, with max_tokens as compatible vendors take it', async () => {
    groq.script({ text: 'fast answer' });
    const final = await openai.chat.completions.stream({ model: 'compat/llama-3.3-70b-versatile', max_completion_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('fast answer');
    const sent = groq.requests.at(-1)!;
    expect(sent.path).toBe('/openai/v1/chat/completions');
    expect(sent.json).toMatchObject({ max_tokens: 50, stream: true });
  });
});

function target(fake: FakeVendor, dialect: 'gemini' | 'openai-compatible', vendorModel: string): VendorTarget {
  return { dialect, vendor: dialect === 'gemini' ? 'google' : 'mistral', baseUrl: fake.baseUrl, apiKey: fake.apiKeys.valid, vendorModel, model: `${dialect === 'gemini' ? 'google' : 'mistral'}/${vendorModel}` };
}

async function kindOf(fake: FakeVendor, t: VendorTarget, fault: FakeFault, stream: boolean): Promise<VendorErrorKind> {
  fake.script({ text: 'one two three four five six', fault });
  const request = parseSurfaceRequest('openai-chat', { messages: [{ role: 'user', content: 'a b c d e f g' }] }).request;
  const options = { signal: new AbortController().signal, timeouts, http };
  try {
    if (stream) for await (const _ of await streamVendor(t, request, options)) void _;
    else await callVendor(t, request, options);
  } catch (err) {
    if (err instanceof VendorError) return err.kind;
    throw err;
  }
  throw new Error('expected a VendorError');
}

describe('Gemini and compatible faults map to their kinds', () => {
  const geminiCases: Array<[FakeFault, boolean, VendorErrorKind]> = [
    [{ kind: 'rate_limit' }, false, 'rate_limit'],
    [{ kind: 'overloaded' }, false, 'overloaded'],
    [{ kind: 'billing', status: 402 }, false, 'billing'],
    [{ kind: 'context_length' }, false, 'context_length'],
    [{ kind: 'model_not_found' }, false, 'not_found'],
    [{ kind: 'stream_cut', afterTokens: 2 }, true, 'stream_cut'],
    [{ kind: 'missing_terminal' }, true, 'stream_cut'],
    [{ kind: 'malformed_chunk', afterTokens: 1 }, true, 'malformed'],
    [{ kind: 'stall', afterTokens: 1 }, true, 'stall'],
  ];
  test.each(geminiCases)('Gemini %o (stream %s) is %s', async (fault, stream, kind) => {
    expect(await kindOf(gemini, target(gemini, 'gemini', 'gemini-2.5-flash'), fault, stream)).toBe(kind);
  });

  test('Gemini SAFETY finish and a blocked prompt are content_filter finishes', async () => {
    gemini.script({ fault: { kind: 'content_filter' } }, { fault: { kind: 'content_filter', form: 'prompt' } });
    const request = parseSurfaceRequest('openai-chat', { messages: [{ role: 'user', content: 'x' }] }).request;
    const options = { signal: new AbortController().signal, timeouts, http };
    const t = target(gemini, 'gemini', 'gemini-2.5-flash');
    expect((await callVendor(t, request, options)).finishReason).toBe('content_filter');
    expect((await callVendor(t, request, options)).finishReason).toBe('content_filter');
  });

  const mistralCases: Array<[FakeFault, boolean, VendorErrorKind]> = [
    [{ kind: 'rate_limit' }, false, 'rate_limit'],
    [{ kind: 'context_length' }, false, 'context_length'],
    [{ kind: 'stream_cut', afterTokens: 2 }, true, 'stream_cut'],
    [{ kind: 'missing_terminal' }, true, 'stream_cut'],
  ];
  test.each(mistralCases)('Mistral-style %o (stream %s) is %s', async (fault, stream, kind) => {
    expect(await kindOf(mistral, target(mistral, 'openai-compatible', 'mistral-large-latest'), fault, stream)).toBe(kind);
  });
});
