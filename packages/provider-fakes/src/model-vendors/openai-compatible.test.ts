import OpenAI from 'openai';
import { startFakeOpenAICompatible } from './openai-compatible';
import type { FakeVendor } from './types';

describe('fake OpenAI-compatible vendor through the openai SDK', () => {
  const started: FakeVendor[] = [];
  afterAll(() => Promise.all(started.map((f) => f.close())));
  const start = async (...args: Parameters<typeof startFakeOpenAICompatible>) => {
    const fake = await startFakeOpenAICompatible(...args);
    started.push(fake);
    return fake;
  };

  it('serves chat, streams and embeddings under Groq’s /openai/v1 prefix, with x_groq usage on the last chunk', async () => {
    const fake = await start({ flavour: 'groq' });
    expect(fake.baseUrl).toBe(`${fake.url}/openai/v1`);
    const client = new OpenAI({ apiKey: fake.apiKeys.valid, baseURL: fake.baseUrl, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'hi groq' }] });
    expect(completion.choices[0]?.message.content).toBe('You said: hi groq');
    const stream = await client.chat.completions.create({ model: 'llama-3.3-70b-versatile', stream: true, messages: [{ role: 'user', content: 'hi groq' }] });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks[chunks.length - 1] as unknown as { x_groq?: { usage?: { completion_tokens?: number } } };
    expect(last.x_groq?.usage?.completion_tokens).toBe(4);
    const embeddings = await client.embeddings.create({ model: 'nomic-embed-text', input: 'x' });
    expect(embeddings.data[0]?.embedding).toHaveLength(1024);
  });

  it('takes a custom path prefix, as an operator configures it', async () => {
    const fake = await start({ pathPrefix: '/api/openai/v1' });
    const client = new OpenAI({ apiKey: fake.apiKeys.valid, baseURL: fake.baseUrl, maxRetries: 0 });
    expect(fake.baseUrl).toBe(`${fake.url}/api/openai/v1`);
    expect((await client.models.list()).data.length).toBeGreaterThan(0);
    expect((await fetch(`${fake.url}/v1/models`, { headers: { authorization: `Bearer ${fake.apiKeys.valid}` } })).status).toBe(404);
  });

  it('accepts any key on vLLM and Ollama, and answers their own error bodies', async () => {
    const vllm = await start({ flavour: 'vllm', strictModels: true, models: ['Qwen/Qwen2.5-7B-Instruct'] });
    const client = new OpenAI({ apiKey: 'EMPTY', baseURL: vllm.baseUrl, maxRetries: 0 });
    expect((await client.chat.completions.create({ model: 'Qwen/Qwen2.5-7B-Instruct', messages: [{ role: 'user', content: 'x' }] })).choices[0]?.message.content).toBe('You said: x');
    const missing = await fetch(`${vllm.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }) });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ object: 'error', message: 'The model `nope` does not exist.', type: 'NotFoundError', param: null, code: 404 });

    const ollama = await start({ flavour: 'ollama', strictModels: true });
    const res = await fetch(`${ollama.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'llama9', messages: [{ role: 'user', content: 'x' }] }) });
    expect(await res.json()).toEqual({ error: { message: 'model "llama9" not found, try pulling it first', type: 'api_error', param: null, code: null } });
  });

  it('answers Mistral’s flat error object and a 401 without a key', async () => {
    const fake = await start({ flavour: 'mistral' });
    expect((await fetch(`${fake.baseUrl}/models`)).status).toBe(401);
    fake.setFault({ kind: 'server_error' });
    const res = await fetch(`${fake.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${fake.apiKeys.valid}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mistral-small-latest', messages: [{ role: 'user', content: 'x' }] }) });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ object: 'error', type: 'server_error' });
  });
});
