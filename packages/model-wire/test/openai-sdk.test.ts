import OpenAI from 'openai';
import { useOpenAIAndAnthropic } from './support/vendors';

const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

const env = useOpenAIAndAnthropic();
let client: OpenAI;

beforeAll(() => {
  client = new OpenAI({ apiKey: 'pb-test', baseURL: `${env.gateway.url}/v1/openai`, maxRetries: 0 });
});

describe('openai SDK, chat completions', () => {
  test('a chat completion comes back with the vendor text and normalised usage', async () => {
    env.openaiFake.script({ text: 'Paris is the capital.', usage: { inputTokens: 20, outputTokens: 5, cachedInputTokens: 8 } });
    const completion = await client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Capital of France?' }] });
    expect(completion.choices[0]!.message.content).toBe('Paris is the capital.');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 5, total_tokens: 25, prompt_tokens_details: { cached_tokens: 8 } });
    const sent = env.openaiFake.requests.at(-1)!.json as Record<string, unknown>;
    expect(sent.model).toBe('gpt-4o');
  });

  test('.stream yields the text token by token and the final usage with include_usage', async () => {
    env.openaiFake.script({ text: 'one two three four', usage: { inputTokens: 11, outputTokens: 4 } });
    const stream = client.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'count' }], stream_options: { include_usage: true } });
    const deltas: string[] = [];
    stream.on('content', (delta) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('one two three four');
    expect(final.choices[0]!.message.content).toBe('one two three four');
    expect(final.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4 });
  });

  test('a tool call comes back as tool_calls, and the tool result round-trips', async () => {
    env.openaiFake.script({ toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const first = await client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [weather] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Oslo' });
    env.openaiFake.script({ text: 'It is sunny.' });
    const second = await client.chat.completions.create({
      model: 'openai/gpt-4o',
      tools: [weather],
      messages: [{ role: 'user', content: 'Weather in Oslo?' }, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"sky":"sunny"}' }],
    });
    expect(second.choices[0]!.message.content).toBe('It is sunny.');
    const sent = env.openaiFake.requests.at(-1)!.json as { messages: Array<Record<string, unknown>> };
    expect(sent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(sent.messages[2]).toMatchObject({ tool_call_id: 'call_w1', content: '{"sky":"sunny"}' });
  });

  test('a streamed tool call arrives whole through the SDK', async () => {
    env.openaiFake.script({ toolCalls: [{ id: 'call_s1', name: 'get_weather', arguments: { city: 'Rome' } }] });
    const stream = client.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Weather in Rome?' }], tools: [weather] });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.id).toBe('call_s1');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Rome' });
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });
});

describe('openai SDK, responses', () => {
  test('responses.create returns output_text and usage', async () => {
    env.openaiFake.script({ text: 'Hello from responses.', usage: { inputTokens: 9, outputTokens: 3 } });
    const response = await client.responses.create({ model: 'openai/gpt-4o', input: 'Say hello', instructions: 'Be brief.' });
    expect(response.output_text).toBe('Hello from responses.');
    expect(response.status).toBe('completed');
    expect(response.usage).toMatchObject({ input_tokens: 9, output_tokens: 3, total_tokens: 12 });
    expect(response.instructions).toBe('Be brief.');
  });

  test('responses.stream emits text deltas and ends in response.completed', async () => {
    env.openaiFake.script({ text: 'alpha beta gamma' });
    const stream = client.responses.stream({ model: 'openai/gpt-4o', input: 'Greek letters' });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    const final = await stream.finalResponse();
    expect(text).toBe('alpha beta gamma');
    expect(final.output_text).toBe('alpha beta gamma');
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
  });

  test('a function call through responses, with the output sent back as function_call_output', async () => {
    env.openaiFake.script({ toolCalls: [{ id: 'call_r1', name: 'get_weather', arguments: { city: 'Lima' } }] });
    const tools = [{ type: 'function' as const, name: 'get_weather', description: 'Weather', parameters: weather.function.parameters, strict: false }];
    const first = await client.responses.create({ model: 'openai/gpt-4o', input: 'Weather in Lima?', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_r1', name: 'get_weather' });
    env.openaiFake.script({ text: 'Foggy.' });
    const second = await client.responses.create({
      model: 'openai/gpt-4o',
      tools,
      input: [{ role: 'user', content: 'Weather in Lima?' }, call!, { type: 'function_call_output', call_id: 'call_r1', output: '{"sky":"fog"}' }],
    });
    expect(second.output_text).toBe('Foggy.');
  });
});

describe('openai SDK, embeddings', () => {
  test('embeddings with the SDK default (base64) decode to the vendor vectors', async () => {
    const result = await client.embeddings.create({ model: 'openai/text-embedding-3-small', input: ['first', 'second'] });
    expect(result.data).toHaveLength(2);
    expect(result.data[0]!.embedding).toHaveLength(1536);
    const direct = await new OpenAI({ apiKey: env.openaiFake.apiKeys.valid, baseURL: env.openaiFake.baseUrl }).embeddings.create({ model: 'text-embedding-3-small', input: ['first', 'second'], encoding_format: 'float' });
    expect(result.data[1]!.embedding[5]).toBeCloseTo(direct.data[1]!.embedding[5]!, 6);
    expect(result.usage.prompt_tokens).toBeGreaterThan(0);
  });

  test('embeddings as floats come back as JSON numbers', async () => {
    const result = await client.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'hello', encoding_format: 'float', dimensions: 8 });
    expect(result.data[0]!.embedding).toHaveLength(8);
    expect(typeof result.data[0]!.embedding[0]).toBe('number');
  });
});

describe('any model on the OpenAI surface', () => {
  test('an Anthropic model answers through chat completions, usage normalised from Anthropic fields', async () => {
    env.anthropicFake.script({ text: 'Bonjour.', usage: { inputTokens: 30, cachedInputTokens: 10, cacheWriteInputTokens: 5, outputTokens: 2 } });
    const completion = await client.chat.completions.create({ model: 'anthropic/claude-sonnet-4', max_tokens: 100, messages: [{ role: 'system', content: 'French only.' }, { role: 'user', content: 'Hello' }] });
    expect(completion.choices[0]!.message.content).toBe('Bonjour.');
    expect(completion.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 10 } });
    const sent = env.anthropicFake.requests.at(-1)!.json as Record<string, unknown>;
    expect(sent.system).toEqual([{ type: 'text', text: 'French only.' }]);
    expect(sent.max_tokens).toBe(100);
  });

  test('an Anthropic tool call streams to the OpenAI SDK as tool_calls deltas and the result goes back as tool_result', async () => {
    env.anthropicFake.script({ toolCalls: [{ id: 'toolu_01', name: 'get_weather', arguments: { city: 'Cairo' } }] });
    const stream = client.chat.completions.stream({ model: 'anthropic/claude-sonnet-4', messages: [{ role: 'user', content: 'Weather in Cairo?' }], tools: [weather] });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.id).toBe('toolu_01');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Cairo' });
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');

    env.anthropicFake.script({ text: 'Hot.' });
    const next = await client.chat.completions.create({
      model: 'anthropic/claude-sonnet-4',
      tools: [weather],
      messages: [{ role: 'user', content: 'Weather in Cairo?' }, final.choices[0]!.message, { role: 'tool', tool_call_id: 'toolu_01', content: '35C' }],
    });
    expect(next.choices[0]!.message.content).toBe('Hot.');
    const sent = env.anthropicFake.requests.at(-1)!.json as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    expect(sent.messages[1]!.content[0]).toMatchObject({ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Cairo' } });
    expect(sent.messages[2]!.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01' });
  });

  test('an Anthropic model through the responses surface, streamed', async () => {
    env.anthropicFake.script({ text: 'via responses' });
    const stream = client.responses.stream({ model: 'anthropic/claude-sonnet-4', input: 'hi', max_output_tokens: 50 });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('via responses');
  });
});
