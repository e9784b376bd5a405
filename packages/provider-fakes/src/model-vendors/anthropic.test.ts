import Anthropic from '@anthropic-ai/sdk';
import { fakeTokenCount } from './answer';
import { startFakeAnthropic } from './anthropic';
import type { FakeVendor } from './types';

describe('fake Anthropic through the official @anthropic-ai/sdk', () => {
  let fake: FakeVendor;
  let client: Anthropic;

  beforeAll(async () => {
    fake = await startFakeAnthropic();
    client = new Anthropic({ apiKey: fake.apiKeys.valid, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('answers a message with an echo, end_turn and usage computed from the request', async () => {
    const message = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello Claude' }] });
    expect(message.type).toBe('message');
    expect(message.id).toMatch(/^msg_01/);
    expect(message.content).toEqual([{ type: 'text', text: 'You said: Hello Claude' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toEqual({
      input_tokens: fakeTokenCount('Be brief.') + fakeTokenCount('Hello Claude'),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens: 4,
      service_tier: 'standard',
    });
    const sent = fake.requests[0]!;
    expect(sent.headers['anthropic-version']).toEqual(expect.any(String));
  });

  it('accepts the key as x-api-key as well as Bearer', async () => {
    const res = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': fake.apiKeys.valid, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toMatch(/^req_011C/);
    expect(res.headers.get('anthropic-ratelimit-requests-remaining')).toBe('9999');
  });

  it('streams message_start, a ping, one text_delta per token, message_delta with usage, message_stop', async () => {
    const stream = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'one two' }] });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    const raw = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': fake.apiKeys.valid, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(await raw.text()).toContain('event: ping\ndata: {"type":"ping"}\n\n');
    const delta = events.find((e) => e.type === 'message_delta');
    expect(delta?.type === 'message_delta' && delta.usage.output_tokens).toBe(4);
  });

  it('streams tool use and thinking through the SDK helper, with the final message assembled', async () => {
    const final = await client.messages
      .stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 4000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        tools: [{ name: 'search', description: 'Search', input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } }],
        tool_choice: { type: 'any' },
        messages: [{ role: 'user', content: 'find cats' }],
      })
      .finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content[0]).toMatchObject({ type: 'thinking', thinking: 'Thinking about: find cats' });
    expect(final.content[0]?.type === 'thinking' && final.content[0].signature.length).toBeGreaterThan(10);
    expect(final.content[1]).toMatchObject({ type: 'tool_use', name: 'search', input: { query: 'find cats' } });
    expect(final.content[1]?.type === 'tool_use' && final.content[1].id).toMatch(/^toolu_01/);
  });

  it('writes the prompt cache on the first request and reads it on the next; input_tokens excludes both', async () => {
    const system = [{ type: 'text' as const, text: 'y'.repeat(4200), cache_control: { type: 'ephemeral' as const } }];
    const prefix = fakeTokenCount('y'.repeat(4200));
    const first = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 50, system, messages: [{ role: 'user', content: 'q' }] });
    const second = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 50, system, messages: [{ role: 'user', content: 'q' }] });
    expect(first.usage).toMatchObject({ cache_creation_input_tokens: prefix, cache_read_input_tokens: 0, input_tokens: 1, cache_creation: { ephemeral_5m_input_tokens: prefix } });
    expect(second.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: prefix, input_tokens: 1 });
  });

  it('stops at a stop sequence with stop_reason stop_sequence, streamed or not', async () => {
    const message = await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 100, stop_sequences: ['beta'], messages: [{ role: 'user', content: 'alpha beta gamma' }] });
    expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'beta', content: [{ type: 'text', text: 'You said: alpha ' }] });
    const final = await client.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 100, stop_sequences: ['beta'], messages: [{ role: 'user', content: 'alpha beta gamma' }] }).finalMessage();
    expect(final).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'beta' });
  });

  it('counts tokens', async () => {
    const counted = await client.messages.countTokens({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'count me please' }] });
    expect(counted).toEqual({ input_tokens: fakeTokenCount('count me please') });
  });

  it('lists models', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toContain('claude-sonnet-4-6');
  });

  it('validates like Anthropic: max_tokens required, the version header required, a wrong key', async () => {
    await expect(client.messages.create({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'x' }] } as never)).rejects.toMatchObject({
      status: 400,
      error: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } },
    });
    const noVersion = await fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': fake.apiKeys.valid, 'content-type': 'application/json' }, body: '{}' });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });
    const wrong = new Anthropic({ apiKey: 'sk-ant-wrong', baseURL: fake.baseUrl, maxRetries: 0 });
    await expect(wrong.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 401,
      error: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    });
  });
});
