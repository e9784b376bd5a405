import Anthropic from '@anthropic-ai/sdk';
import { useOpenAIAndAnthropic } from './support/vendors';

const weatherTool = { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

const env = useOpenAIAndAnthropic();
let client: Anthropic;

beforeAll(() => {
  client = new Anthropic({ apiKey: 'pb-test', baseURL: `${env.gateway.url}/v1/anthropic`, maxRetries: 0 });
});

describe('@anthropic-ai/sdk', () => {
  test('messages.create returns the text and Anthropic usage (input excluding cache reads and writes)', async () => {
    env.anthropicFake.script({ text: 'Hi there.', usage: { inputTokens: 50, cachedInputTokens: 20, cacheWriteInputTokens: 10, outputTokens: 3 } });
    const message = await client.messages.create({ model: 'anthropic/claude-sonnet-4', max_tokens: 200, messages: [{ role: 'user', content: 'Hello' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hi there.' });
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 20, cache_creation_input_tokens: 10, output_tokens: 3 });
  });

  test('messages.stream delivers text deltas and the final message', async () => {
    env.anthropicFake.script({ text: 'streamed words here' });
    const stream = client.messages.stream({ model: 'anthropic/claude-sonnet-4', max_tokens: 200, messages: [{ role: 'user', content: 'Go' }] });
    const deltas: string[] = [];
    stream.on('text', (t) => deltas.push(t));
    const final = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(1);
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'streamed words here' });
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  test('a tool call through messages.stream, and its tool_result round-trips', async () => {
    env.anthropicFake.script({ toolCalls: [{ id: 'toolu_abc', name: 'get_weather', arguments: { city: 'Kyiv' } }] });
    const final = await client.messages.stream({ model: 'anthropic/claude-sonnet-4', max_tokens: 200, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather in Kyiv?' }] }).finalMessage();
    const use = final.content.find((b) => b.type === 'tool_use');
    expect(use).toMatchObject({ type: 'tool_use', id: 'toolu_abc', name: 'get_weather', input: { city: 'Kyiv' } });
    expect(final.stop_reason).toBe('tool_use');
    env.anthropicFake.script({ text: 'Snow.' });
    const next = await client.messages.create({
      model: 'anthropic/claude-sonnet-4',
      max_tokens: 200,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Kyiv?' },
        { role: 'assistant', content: final.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_abc', content: '-5C' }] },
      ],
    });
    expect(next.content[0]).toMatchObject({ type: 'text', text: 'Snow.' });
  });

  test('count_tokens answers the vendor count', async () => {
    const counted = await client.messages.countTokens({ model: 'anthropic/claude-sonnet-4', messages: [{ role: 'user', content: 'How many tokens is this?' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(env.anthropicFake.requests.at(-1)!.path).toBe('/v1/messages/count_tokens');
  });

  test('the key works as x-api-key and as Bearer', async () => {
    const bearer = new Anthropic({ authToken: 'pb-test', apiKey: null, baseURL: `${env.gateway.url}/v1/anthropic`, maxRetries: 0 });
    env.anthropicFake.script({ text: 'bearer ok' });
    const message = await bearer.messages.create({ model: 'anthropic/claude-sonnet-4', max_tokens: 50, messages: [{ role: 'user', content: 'x' }] });
    expect(message.content[0]).toMatchObject({ text: 'bearer ok' });
  });

  test('an OpenAI model answers through the Anthropic surface, tool call included', async () => {
    env.openaiFake.script({ toolCalls: [{ id: 'call_x9', name: 'get_weather', arguments: { city: 'Accra' } }] });
    const final = await client.messages.stream({ model: 'openai/gpt-4o', max_tokens: 300, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather in Accra?' }] }).finalMessage();
    expect(final.content.find((b) => b.type === 'tool_use')).toMatchObject({ id: 'call_x9', name: 'get_weather', input: { city: 'Accra' } });
    expect(final.stop_reason).toBe('tool_use');
    const sent = env.openaiFake.requests.at(-1)!.json as Record<string, unknown>;
    expect(sent.max_completion_tokens).toBe(300);
    expect((sent.tools as Array<Record<string, unknown>>)[0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } });

    env.openaiFake.script({ text: 'Warm.', usage: { inputTokens: 40, cachedInputTokens: 16, outputTokens: 2 } });
    const next = await client.messages.create({
      model: 'openai/gpt-4o',
      max_tokens: 300,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Accra?' },
        { role: 'assistant', content: final.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_x9', content: '30C' }] },
      ],
    });
    expect(next.content[0]).toMatchObject({ type: 'text', text: 'Warm.' });
    expect(next.usage).toMatchObject({ input_tokens: 24, cache_read_input_tokens: 16, output_tokens: 2 });
  });
});
