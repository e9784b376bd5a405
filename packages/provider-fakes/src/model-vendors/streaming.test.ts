import { startFakeAnthropic } from './anthropic';
import { startFakeGemini } from './gemini';
import { startFakeOpenAI } from './openai';
import { startFakeOpenAICompatible } from './openai-compatible';
import type { FakeVendor, FakeVendorOptions } from './types';
import { sseEvents, wireCall } from './wire.test-helper';

type Case = [string, (o: FakeVendorOptions) => Promise<FakeVendor>, (f: FakeVendor) => { url: string; headers: Record<string, string>; body: unknown }];

const CASES: Case[] = [
  ['openai chat', startFakeOpenAI, (f) => ({ url: `${f.baseUrl}/chat/completions`, headers: { authorization: `Bearer ${f.apiKeys.valid}` }, body: { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'a b c' }] } })],
  ['openai responses', startFakeOpenAI, (f) => ({ url: `${f.baseUrl}/responses`, headers: { authorization: `Bearer ${f.apiKeys.valid}` }, body: { model: 'gpt-4.1', stream: true, input: 'a b c' } })],
  [
    'anthropic',
    startFakeAnthropic,
    (f) => ({ url: `${f.baseUrl}/v1/messages`, headers: { 'x-api-key': f.apiKeys.valid, 'anthropic-version': '2023-06-01' }, body: { model: 'claude-haiku-4-5', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'a b c' }] } }),
  ],
  [
    'gemini',
    startFakeGemini,
    (f) => ({ url: `${f.baseUrl}/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse`, headers: { 'x-goog-api-key': f.apiKeys.valid }, body: { contents: [{ role: 'user', parts: [{ text: 'a b c' }] }] } }),
  ],
  ['openai-compatible', (o) => startFakeOpenAICompatible(o), (f) => ({ url: `${f.baseUrl}/chat/completions`, headers: { authorization: `Bearer ${f.apiKeys.valid}` }, body: { model: 'llama-3.1-8b-instant', stream: true, messages: [{ role: 'user', content: 'a b c' }] } })],
];

describe.each(CASES)('%s streams are incremental', (_name, start, request) => {
  it('each frame reaches the client as its own chunk, never buffered into one write', async () => {
    const fake = await start({ tokenIntervalMs: 15 });
    try {
      const r = request(fake);
      const obs = await wireCall(r.url, { headers: r.headers, body: r.body });
      expect(obs.status).toBe(200);
      expect(obs.headers?.['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(obs.ended).toBe('end');
      const frames = sseEvents(obs.body);
      expect(frames.length).toBeGreaterThan(5);
      expect(obs.chunks.map((c) => sseEvents(c).length)).toEqual(frames.map(() => 1));
    } finally {
      await fake.close();
    }
  });
});
