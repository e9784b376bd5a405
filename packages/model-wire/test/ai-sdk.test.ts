import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { useOpenAIAndAnthropic } from './support/vendors';

const weather = tool({
  description: 'Weather for a city',
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
});

const env = useOpenAIAndAnthropic();

describe('ai with @ai-sdk/openai (responses API by default)', () => {
  const provider = () => createOpenAI({ apiKey: 'pb-test', baseURL: `${env.gateway.url}/v1/openai` });

  test('generateText', async () => {
    env.openaiFake.script({ text: 'Generated.', usage: { inputTokens: 7, outputTokens: 1 } });
    const result = await generateText({ model: provider()('openai/gpt-4o'), prompt: 'Say it' });
    expect(result.text).toBe('Generated.');
    expect(result.usage.inputTokens).toBe(7);
    expect(result.usage.outputTokens).toBe(1);
  });

  test('streamText', async () => {
    env.openaiFake.script({ text: 'streamed via ai' });
    const result = streamText({ model: provider()('openai/gpt-4o'), prompt: 'Stream it' });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);
    expect(parts.join('')).toBe('streamed via ai');
    expect(parts.length).toBeGreaterThan(1);
    expect((await result.finishReason)).toBe('stop');
  });

  test('a tool call from an Anthropic model, through the responses surface', async () => {
    env.anthropicFake.script({ toolCalls: [{ id: 'toolu_ai1', name: 'weather', arguments: { city: 'Quito' } }] });
    const result = await generateText({ model: provider()('anthropic/claude-sonnet-4'), prompt: 'Weather in Quito?', tools: { weather } });
    expect(result.toolCalls[0]).toMatchObject({ toolName: 'weather', input: { city: 'Quito' } });
    expect(result.finishReason).toBe('tool-calls');
  });
});

describe('ai with @ai-sdk/openai chat models', () => {
  test('streamText with a tool call', async () => {
    env.openaiFake.script({ toolCalls: [{ id: 'call_ai2', name: 'weather', arguments: { city: 'Hanoi' } }] });
    const openai = createOpenAI({ apiKey: 'pb-test', baseURL: `${env.gateway.url}/v1/openai` });
    const result = streamText({ model: openai.chat('openai/gpt-4o'), prompt: 'Weather in Hanoi?', tools: { weather } });
    const calls = await result.toolCalls;
    expect(calls[0]).toMatchObject({ toolCallId: 'call_ai2', toolName: 'weather', input: { city: 'Hanoi' } });
  });
});

describe('ai with @ai-sdk/openai-compatible', () => {
  const compat = () => createOpenAICompatible({ name: 'patchbay', apiKey: 'pb-test', baseURL: `${env.gateway.url}/v1`, includeUsage: true });

  test('generateText with an Anthropic model', async () => {
    env.anthropicFake.script({ text: 'compat text', usage: { inputTokens: 12, outputTokens: 2 } });
    const result = await generateText({ model: compat()('anthropic/claude-sonnet-4'), prompt: 'hi' });
    expect(result.text).toBe('compat text');
    expect(result.usage.inputTokens).toBe(12);
  });

  test('streamText with a tool call', async () => {
    env.openaiFake.script({ toolCalls: [{ id: 'call_ai3', name: 'weather', arguments: { city: 'Lagos' } }] });
    const result = streamText({ model: compat()('openai/gpt-4o'), prompt: 'Weather in Lagos?', tools: { weather } });
    const calls = await result.toolCalls;
    expect(calls[0]).toMatchObject({ toolName: 'weather', input: { city: 'Lagos' } });
    expect((await result.usage).inputTokens).toBeGreaterThan(0);
  });
});
