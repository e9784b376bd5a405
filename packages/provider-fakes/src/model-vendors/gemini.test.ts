import { FunctionCallingConfigMode, GoogleGenAI } from '@google/genai';
import { fakeTokenCount } from './answer';
import { startFakeGemini } from './gemini';
import type { FakeVendor } from './types';

/**
 * Jest runs tests in a VM context where Node's Undici global dispatcher (which @google/genai looks
 * up on globalThis) is not visible, so the SDK is handed the context's own fetch, an option it
 * documents; outside jest it needs nothing.
 */
function genai(apiKey: string, baseUrl: string): GoogleGenAI {
  return new GoogleGenAI({ apiKey, httpOptions: { baseUrl, fetch: (url, init) => fetch(url, init), retryOptions: { attempts: 1 } } });
}

describe('fake Gemini through the official @google/genai SDK', () => {
  let fake: FakeVendor;
  let ai: GoogleGenAI;

  beforeAll(async () => {
    fake = await startFakeGemini();
    ai = genai(fake.apiKeys.valid, fake.baseUrl);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('answers generateContent with an echo and usageMetadata computed from the request', async () => {
    const response = await ai.models.generateContent({ model: 'gemini-2.0-flash', contents: 'Hello Gemini', config: { systemInstruction: 'Be brief.' } });
    expect(response.text).toBe('You said: Hello Gemini');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    const prompt = fakeTokenCount('Be brief.') + fakeTokenCount('Hello Gemini');
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: prompt, candidatesTokenCount: 4, totalTokenCount: prompt + 4 });
    expect(response.modelVersion).toBe('gemini-2.0-flash');
    const sent = fake.requests[0]!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe(fake.apiKeys.valid);
  });

  it('reports thinking tokens apart from candidates for 2.5 models, and thought parts when asked', async () => {
    const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'think hard', config: { thinkingConfig: { includeThoughts: true } } });
    const parts = response.candidates?.[0]?.content?.parts ?? [];
    expect(parts[0]).toEqual({ text: 'Thinking about: think hard', thought: true });
    expect(response.text).toBe('You said: think hard');
    expect(response.usageMetadata).toMatchObject({ candidatesTokenCount: 4, thoughtsTokenCount: fakeTokenCount('Thinking about: think hard') });
    const hidden = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' });
    expect(hidden.usageMetadata?.thoughtsTokenCount).toBe(16);
    const off = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x', config: { thinkingConfig: { thinkingBudget: 0 } } });
    expect(off.usageMetadata?.thoughtsTokenCount).toBeUndefined();
  });

  it('streams with alt=sse, one chunk per token, the last chunk with finishReason and the final usage', async () => {
    const stream = await ai.models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'one two three' });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(fake.requests[0]?.query.get('alt')).toBe('sse');
    expect(chunks.map((c) => c.text ?? '').join('')).toBe('You said: one two three');
    expect(chunks).toHaveLength(6);
    const last = chunks[chunks.length - 1]!;
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last.usageMetadata?.candidatesTokenCount).toBe(5);
  });

  it('calls a function when the tool config forces one, streamed or not', async () => {
    const config = {
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] }],
      toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
    };
    const response = await ai.models.generateContent({ model: 'gemini-2.0-flash', contents: 'Oslo', config });
    expect(response.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Oslo' } }]);
    const stream = await ai.models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'Oslo', config });
    const calls = [];
    for await (const chunk of stream) calls.push(...(chunk.functionCalls ?? []));
    expect(calls).toEqual([{ name: 'get_weather', args: { city: 'Oslo' } }]);
    const after = await ai.models.generateContent({
      model: 'gemini-2.0-flash',
      contents: [
        { role: 'user', parts: [{ text: 'Oslo' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 4 } } }] },
      ],
    });
    expect(after.text).toBe('Tool get_weather returned: {"temp":4}');
  });

  it('counts an inline image and follows a response schema', async () => {
    const response = await ai.models.generateContent({
      model: 'gemini-2.0-flash',
      contents: [{ role: 'user', parts: [{ text: 'describe' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      config: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { label: { type: 'string' } } } },
    });
    expect(JSON.parse(response.text ?? '')).toEqual({ label: 'describe' });
    expect(response.usageMetadata?.promptTokenCount).toBe(fakeTokenCount('describe') + 85 + fakeTokenCount(JSON.stringify({ type: 'object', properties: { label: { type: 'string' } } })));
  });

  it('counts tokens, embeds (batchEmbedContents) and lists models', async () => {
    const counted = await ai.models.countTokens({ model: 'gemini-2.0-flash', contents: 'count these words' });
    expect(counted.totalTokens).toBe(fakeTokenCount('count these words'));
    const embedded = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: ['alpha', 'beta'], config: { outputDimensionality: 8 } });
    expect(embedded.embeddings).toHaveLength(2);
    expect(embedded.embeddings?.[0]?.values).toHaveLength(8);
    expect(fake.requests[fake.requests.length - 1]?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    const single = await fetch(`${fake.url}/v1beta/models/text-embedding-004:embedContent?key=${fake.apiKeys.valid}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: { parts: [{ text: 'alpha' }] } }) });
    const body = (await single.json()) as { embedding: { values: number[] } };
    expect(body.embedding.values).toHaveLength(768);
    const pager = await ai.models.list();
    const names = [];
    for await (const model of pager) names.push(model.name);
    expect(names).toContain('models/gemini-2.5-pro');
  });

  it('selects a fault by model name through the SDK, and surfaces a mid-stream error frame as an ApiError', async () => {
    await expect(ai.models.generateContent({ model: 'gemini-2.5-pro@overloaded', contents: 'x' })).rejects.toMatchObject({ status: 503 });
    expect(fake.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-pro@overloaded:generateContent');
    const stream = await ai.models.generateContentStream({ model: 'gemini-2.0-flash@stream_error=2', contents: 'a b c' });
    const texts: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) texts.push(chunk.text ?? '');
      })(),
    ).rejects.toMatchObject({ status: 500 });
    expect(texts).toEqual(['You', ' said:']);
  });

  it('rejects a wrong key with Google’s 400 API_KEY_INVALID and a missing key with 403', async () => {
    const wrong = genai('AIzaWrong', fake.baseUrl);
    await expect(wrong.models.generateContent({ model: 'gemini-2.0-flash', contents: 'x' })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('API_KEY_INVALID') });
    const missing = await fetch(`${fake.url}/v1beta/models/gemini-2.0-flash:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"contents":[]}' });
    expect(missing.status).toBe(403);
    expect(await missing.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
  });
});
