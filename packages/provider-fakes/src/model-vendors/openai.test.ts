import OpenAI from 'openai';
import { fakeTokenCount } from './answer';
import { startFakeOpenAI } from './openai';
import type { FakeVendor } from './types';

describe('fake OpenAI through the official openai SDK', () => {
  let fake: FakeVendor;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    client = new OpenAI({ apiKey: fake.apiKeys.valid, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('answers a chat completion with an echo and usage computed from the request', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello there, fake' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('gpt-4o-mini');
    expect(completion.choices[0]?.message.content).toBe('You said: Hello there, fake');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    const input = fakeTokenCount('Be brief.') + fakeTokenCount('Hello there, fake');
    expect(completion.usage).toEqual({
      prompt_tokens: input,
      completion_tokens: 5,
      total_tokens: input + 5,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    });
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${fake.apiKeys.valid}`);
  });

  it('streams chunk by chunk with include_usage: a role chunk, one chunk per token, the finish chunk, the usage chunk, [DONE]', async () => {
    const stream = await client.chat.completions.create({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'one two three' }] });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('You said: one two three');
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(5);
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish?.choices[0]?.finish_reason).toBe('stop');
    const last = chunks[chunks.length - 1]!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.completion_tokens).toBe(5);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it('calls a tool when tool_choice requires it, with arguments that fit the schema, and streams the call', async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city', 'days'] } } },
    ];
    const completion = await client.chat.completions.create({ model: 'gpt-4o', tools, tool_choice: 'required', messages: [{ role: 'user', content: 'Paris' }] });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.choices[0]?.message.content).toBeNull();
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', days: 1 });
    expect(call?.id).toMatch(/^call_/);

    const runner = client.chat.completions.stream({ model: 'gpt-4o', tools, messages: [{ role: 'user', content: 'use get_weather for Rome' }] });
    const final = await runner.finalChatCompletion();
    const streamed = final.choices[0]?.message.tool_calls?.[0];
    expect(streamed?.type === 'function' && JSON.parse(streamed.function.arguments)).toEqual({ city: 'use get_weather for Rome', days: 1 });
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('answers after a tool result by reporting it', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21C' },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('Tool get_weather returned: sunny, 21C');
  });

  it('counts an image in the content and rejects an unsupported image type with OpenAI’s 400', async () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    const ok = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: png } }] }] });
    expect(ok.choices[0]?.message.content).toBe('You said: what is this [1 image]');
    expect(ok.usage?.prompt_tokens).toBe(fakeTokenCount('what is this') + 85);
    const bad = client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/tiff;base64,AAAA' } }] }] });
    await expect(bad).rejects.toMatchObject({ status: 400, code: 'invalid_image_format' });
  });

  it('follows response_format json_schema with a value that fits the schema', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'extract' }],
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, ok: { type: 'boolean' } } } } },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ name: 'extract', tags: ['extract'], ok: true });
  });

  it('answers scripted text, tool calls, finish reason and usage in order', async () => {
    fake.script({ text: 'first' }, { text: 'second', usage: { inputTokens: 100, outputTokens: 7, cachedInputTokens: 40 } }, { toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] });
    const a = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const b = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const c = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(a.choices[0]?.message.content).toBe('first');
    expect(b.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 7, total_tokens: 107, prompt_tokens_details: { cached_tokens: 40 } });
    expect(c.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: 'lookup', arguments: '{"q":"x"}' } });
  });

  it('reports reasoning tokens for reasoning models inside completion_tokens', async () => {
    const completion = await client.chat.completions.create({ model: 'o3-mini', reasoning_effort: 'high', messages: [{ role: 'user', content: 'think' }] });
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(32);
    expect(completion.usage?.completion_tokens).toBe(32 + 3);
  });

  it('stops before a stop sequence with finish_reason stop', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o', stop: ['gamma'], messages: [{ role: 'user', content: 'alpha beta gamma delta' }] });
    expect(completion.choices[0]?.message.content).toBe('You said: alpha beta ');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('stops at max_completion_tokens with finish_reason length', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o', max_completion_tokens: 3, messages: [{ role: 'user', content: 'a b c d e f' }] });
    expect(completion.choices[0]?.message.content).toBe('You said: a');
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(3);
  });

  it('reads a repeated prefix of 1024+ tokens from the automatic prompt cache', async () => {
    const long = 'x'.repeat(4096 + 600);
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: long },
      { role: 'user', content: 'q1' },
    ];
    const first = await client.chat.completions.create({ model: 'gpt-4o', messages });
    const second = await client.chat.completions.create({ model: 'gpt-4o', messages });
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(1024 + 128);
  });

  it('answers the Responses API with output items and usage', async () => {
    const response = await client.responses.create({ model: 'gpt-4.1', instructions: 'short', input: 'Hello responses' });
    expect(response.object).toBe('response');
    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('You said: Hello responses');
    expect(response.usage).toEqual({
      input_tokens: fakeTokenCount('short') + fakeTokenCount('Hello responses'),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: fakeTokenCount('short') + fakeTokenCount('Hello responses') + 4,
    });
  });

  it('streams Responses events with increasing sequence numbers, ending in response.completed', async () => {
    const stream = await client.responses.create({ model: 'gpt-4.1', input: [{ role: 'user', content: [{ type: 'input_text', text: 'stream me' }] }], stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const completed = events[events.length - 1];
    expect(completed?.type === 'response.completed' && completed.response.usage?.output_tokens).toBe(4);
  });

  it('streams Responses function calls through the SDK helper', async () => {
    const runner = client.responses.stream({
      model: 'gpt-4.1',
      input: 'lookup please',
      tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }],
      tool_choice: 'required',
    });
    const final = await runner.finalResponse();
    const call = final.output.find((o) => o.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'lookup', arguments: '{"q":"lookup please"}' });
    expect(call?.type === 'function_call' && call.call_id).toMatch(/^call_/);
  });

  it('returns float embeddings and the base64 the SDK asks for by default, the same vector either way', async () => {
    const floats = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['alpha', 'beta'], encoding_format: 'float' });
    expect(floats.data).toHaveLength(2);
    expect(floats.data[0]?.embedding).toHaveLength(1536);
    expect(floats.usage).toEqual({ prompt_tokens: fakeTokenCount('alpha') + fakeTokenCount('beta'), total_tokens: 3 });
    const decoded = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['alpha', 'beta'] });
    expect(fake.requests[fake.requests.length - 1]?.json).toMatchObject({ encoding_format: 'base64' });
    expect(decoded.data[0]?.embedding).toEqual(floats.data[0]?.embedding);
    const small = await client.embeddings.create({ model: 'text-embedding-3-large', input: 'x', dimensions: 256 });
    expect(small.data[0]?.embedding).toHaveLength(256);
  });

  it('lists models', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toContain('gpt-4o');
    expect((await client.models.retrieve('gpt-4o')).id).toBe('gpt-4o');
    await expect(client.models.retrieve('gpt-nope')).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
  });

  it('rejects a wrong key with OpenAI’s 401 body and a missing parameter with its 400', async () => {
    const wrong = new OpenAI({ apiKey: 'sk-wrong-key-123456', baseURL: fake.baseUrl, maxRetries: 0 });
    await expect(wrong.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 401,
      code: 'invalid_api_key',
      type: 'invalid_request_error',
    });
    const res = await fetch(`${fake.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${fake.apiKeys.valid}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o' }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: "Missing required parameter: 'messages'.", type: 'invalid_request_error', param: 'messages', code: 'missing_required_parameter' } });
  });

  it('sends the x-ratelimit headers on every answer and a request id', async () => {
    const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('10000');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('9999');
    expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+(\.\d+)?s$/);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
