import { createServer, request as httpRequest, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createOpenAI } from '@ai-sdk/openai';
import * as ai from 'ai';
import OpenAI, { toFile } from 'openai';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { createPrisma, type Db } from '../src/db';
import { call, createKey, createOrg, eventually, startGatewayProcess, startHarness, type GatewayProcess, type Harness, type TestOrg } from './harness';

/**
 * Issue 27 §2: the media endpoints through the edge router with the official clients unmodified:
 * the openai SDK's images.generate / images.edit / audio.speech.create / audio.transcriptions.create
 * (at /v1 and at /v1/openai) and the ai SDK's generateImage / experimental_generateSpeech /
 * experimental_transcribe; OpenAI's and Gemini's media models behind the vendor fakes.
 */
let h: Harness;
let org: TestOrg;
let key: { key: string; hash: string };
let db: Db;

beforeAll(async () => {
  h = await startHarness();
  org = await createOrg(h);
  key = await createKey(h, org);
  db = createPrisma(TEST_DATABASE_URL, 2);
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await h?.close();
});

beforeEach(() => {
  h.openai.reset();
  h.gemini.reset();
});

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

/** A WAV file of `seconds` of 16 kHz, 16-bit mono silence. */
function wav(seconds: number, rate = 16_000): Buffer {
  const pcm = Buffer.alloc(Math.round(seconds * rate) * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

const tinyPng = () => Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const records = (keyHash: string) => db.usageRecord.findMany({ where: { keyHash }, orderBy: { createdAt: 'asc' } });

function sdk(base: '/v1' | '/v1/openai', apiKey = key.key): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${h.edgeUrl}${base}`, maxRetries: 0 });
}

describe.each(['/v1', '/v1/openai'] as const)('the openai SDK at %s', (base) => {
  test('images.generate answers base64 PNGs, the cost, and bills per image', async () => {
    const k = await createKey(h, org);
    const result = await sdk(base, k.key).images.generate({ model: 'openai/gpt-image-1', prompt: 'a red ball on grass', n: 2, size: '1024x1024' });
    expect(result.data).toHaveLength(2);
    expect(Buffer.from(result.data![0]!.b64_json!, 'base64').subarray(0, 4)).toEqual(PNG_MAGIC);
    expect((result as unknown as { cost_usd: number }).cost_usd).toBeCloseTo(0.084, 6);
    expect(h.openai.requests.at(-1)!.json).toMatchObject({ model: 'gpt-image-1', prompt: 'a red ball on grass', n: 2 });
    await eventually(async () => expect(await records(k.hash)).toHaveLength(1), 5000);
    const [record] = await records(k.hash);
    expect(record).toMatchObject({ model: 'openai/gpt-image-1', vendor: 'openai', outcome: 'finished', status: 200, billedUnit: 'per_image', billedUnits: 2, costMicros: 84_000n });
  });

  test('images.edit uploads the image as multipart and answers the edit', async () => {
    const result = await sdk(base).images.edit({ model: 'openai/gpt-image-1', prompt: 'add a hat', image: await toFile(tinyPng(), 'cat.png', { type: 'image/png' }) });
    expect(Buffer.from(result.data![0]!.b64_json!, 'base64').subarray(0, 4)).toEqual(PNG_MAGIC);
    const sent = h.openai.requests.at(-1)!;
    expect(sent.path).toBe('/v1/images/edits');
    expect(sent.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    // The image reached the vendor byte for byte.
    expect(sent.raw!.includes(tinyPng())).toBe(true);
  });

  test('audio.speech.create returns the raw audio bytes with the billed characters in X-Svc-Billed-Characters', async () => {
    const k = await createKey(h, org);
    const input = 'Hello from the gateway, spoken aloud.';
    const response = await sdk(base, k.key).audio.speech.create({ model: 'openai/tts-1', voice: 'alloy', input, response_format: 'wav' });
    expect(response.headers.get('content-type')).toBe('audio/wav');
    expect(response.headers.get('x-svc-billed-characters')).toBe(String(input.length));
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
    await eventually(async () => expect(await records(k.hash)).toHaveLength(1), 5000);
    const [record] = await records(k.hash);
    expect(record).toMatchObject({ model: 'openai/tts-1', billedUnit: 'per_character', billedUnits: input.length, costMicros: BigInt(Math.ceil(input.length * 15)) });
  });

  test('audio.transcriptions.create uploads the file and bills the seconds of audio', async () => {
    const k = await createKey(h, org);
    const result = await sdk(base, k.key).audio.transcriptions.create({ model: 'openai/whisper-1', file: await toFile(wav(12), 'meeting.wav', { type: 'audio/wav' }), response_format: 'verbose_json', language: 'en' });
    expect(result.text).toContain('12.00 seconds of audio');
    expect(result.duration).toBe(12);
    expect((result as unknown as { vendor: string }).vendor).toBe('openai');
    await eventually(async () => expect(await records(k.hash)).toHaveLength(1), 5000);
    const [record] = await records(k.hash);
    expect(record).toMatchObject({ model: 'openai/whisper-1', billedUnit: 'per_second', billedUnits: 12, costMicros: 1200n });
  });
});

describe('limits and refusals in the spec\'s words', () => {
  test('input_too_long: speech input past the route\'s character limit (OpenAI 4,096) is refused before any vendor call', async () => {
    const err = await sdk('/v1/openai').audio.speech.create({ model: 'openai/tts-1', voice: 'alloy', input: 'x'.repeat(4097) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('input_too_long');
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/4097 characters.*at most 4096/);
    expect(h.openai.requests).toHaveLength(0);
    // Exactly at the limit is fine.
    expect((await call(h.edgeUrl, key.key, 'POST', '/v1/audio/speech', { model: 'openai/tts-1', voice: 'alloy', input: 'x'.repeat(4096) })).status).toBe(200);
  });

  test('alias_not_supported: an @alias/ model on the media endpoints', async () => {
    const transcription = await sdk('/v1').audio.transcriptions.create({ model: '@alias/speech', file: await toFile(wav(1), 'a.wav') }).catch((e: unknown) => e);
    expect((transcription as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400);
    expect((transcription as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('alias_not_supported');
    const image = await call(h.edgeUrl, key.key, 'POST', '/v1/images/generations', { model: '@alias/pictures', prompt: 'x' });
    expect(image.status).toBe(400);
    expect(image.body.error).toMatchObject({ type: 'invalid_request_error', code: 'alias_not_supported', param: 'model', source: 'gateway' });
    // Rate-limit headers on every answer to an authenticated model request, refusals included (none set: 0).
    expect([image.headers.get('x-ratelimit-limit'), image.headers.get('x-ratelimit-remaining'), image.headers.get('x-ratelimit-reset')]).toEqual(['0', '0', '0']);
  });

  test('unsupported_endpoint_for_model: a chat model on an image endpoint, and a speech model on chat', async () => {
    const image = await call(h.edgeUrl, key.key, 'POST', '/v1/images/generations', { model: 'openai/gpt-4o', prompt: 'x' });
    expect(image.body.error).toMatchObject({ code: 'unsupported_endpoint_for_model' });
    const chat = await call(h.edgeUrl, key.key, 'POST', '/v1/chat/completions', { model: 'openai/tts-1', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(400);
    expect(chat.body.error).toMatchObject({ code: 'unsupported_endpoint_for_model' });
  });

  test('allowed_models applies: model_not_allowed (403) for a media model the key may not call', async () => {
    const restricted = await createKey(h, org, { allowed_models: ['openai/gpt-4o'] });
    const res = await call(h.edgeUrl, restricted.key, 'POST', '/v1/audio/speech', { model: 'openai/tts-1', voice: 'alloy', input: 'hi' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'model_not_allowed' });
  });

  test('a key limit applies as for chat: api_key_limit_exceeded (402) once the images spent it', async () => {
    const limited = await createKey(h, org, { limit: 0.05, limit_reset: 'daily' });
    expect((await call(h.edgeUrl, limited.key, 'POST', '/v1/images/generations', { model: 'openai/gpt-image-1', prompt: 'one', n: 2 })).status).toBe(200);
    await eventually(async () => {
      const refused = await call(h.edgeUrl, limited.key, 'POST', '/v1/images/generations', { model: 'openai/gpt-image-1', prompt: 'two' });
      expect(refused.status).toBe(402);
      expect(refused.body.error).toMatchObject({ type: 'budget_exceeded', code: 'api_key_limit_exceeded' });
    }, 5000);
  });

  test('failover: a vendor 503 on the first model moves to the next priority_order entry, each attempt recorded', async () => {
    const k = await createKey(h, org);
    h.openai.setFault({ kind: 'overloaded' }, { operation: 'images.generations' });
    const res = await call(h.edgeUrl, k.key, 'POST', '/v1/images/generations', { prompt: 'a lighthouse', priority_order: [{ model: 'openai/gpt-image-1' }, { model: 'google/gemini-2.5-flash-image' }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: 'google/gemini-2.5-flash-image', vendor: 'google' });
    await eventually(async () => expect(await records(k.hash)).toHaveLength(2), 5000);
    const [failed, served] = await records(k.hash);
    expect(failed).toMatchObject({ model: 'openai/gpt-image-1', outcome: 'failed', costMicros: 0n });
    expect(served).toMatchObject({ model: 'google/gemini-2.5-flash-image', outcome: 'finished', billedUnits: 1, costMicros: 39_000n });
  });

  test('a vendor error that is the caller\'s own (a bad size) is not failed over and keeps the vendor\'s message', async () => {
    const res = await call(h.edgeUrl, key.key, 'POST', '/v1/images/generations', { model: 'openai/gpt-image-1', prompt: 'x', size: '999x999' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ source: 'provider' });
  });

  test('image and audio models list their modalities and price unit on /v1/models', async () => {
    const list = await call(h.edgeUrl, key.key, 'GET', '/v1/models');
    const byId = new Map<string, any>(list.body.data.map((m: { id: string }) => [m.id, m]));
    expect(byId.get('openai/gpt-image-1')).toMatchObject({ type: 'image', output_modalities: ['image'], pricing_unit: 'per_image' });
    expect(byId.get('openai/tts-1')).toMatchObject({ type: 'speech', input_modalities: ['text'], output_modalities: ['audio'], pricing_unit: 'per_character' });
    expect(byId.get('openai/whisper-1')).toMatchObject({ type: 'transcription', input_modalities: ['audio'], output_modalities: ['text'], pricing_unit: 'per_second' });
    expect(byId.get('openai/tts-1').vendors.openai.pricing).toMatchObject({ unit: 'per_character', per_character: 0.000015 });
    expect(byId.get('google/gemini-2.5-flash-image')).toMatchObject({ output_modalities: ['text', 'image'] });
  });
});

describe('guardrails on media requests', () => {
  test('the organization\'s data-loss rules apply to image prompts and speech input: redacted before the vendor, or 422 dlp_blocked', async () => {
    const dlpOrg = await createOrg(h);
    const dlpKey = await createKey(h, dlpOrg);
    const rules = (action: 'redact' | 'block') => ({ rules: [{ name: 'Emails', detector: 'EMAIL_ADDRESS', direction: 'inbound', action }] });
    expect((await call(h.edgeUrl, dlpOrg.mgmtKey, 'PUT', '/v1/organization/dlp-rules', rules('redact'))).status).toBe(200);
    await eventually(async () => {
      h.openai.reset();
      expect((await call(h.edgeUrl, dlpKey.key, 'POST', '/v1/images/generations', { model: 'openai/gpt-image-1', prompt: 'a poster for alice@example.com' })).status).toBe(200);
      expect(JSON.stringify(h.openai.requests.at(-1)!.json)).toContain('[REDACTED:EMAIL_ADDRESS]');
    }, 5000);
    expect((await call(h.edgeUrl, dlpOrg.mgmtKey, 'PUT', '/v1/organization/dlp-rules', rules('block'))).status).toBe(200);
    await eventually(async () => {
      h.openai.reset();
      const res = await call(h.edgeUrl, dlpKey.key, 'POST', '/v1/audio/speech', { model: 'openai/tts-1', voice: 'alloy', input: 'Write to alice@example.com' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ type: 'blocked_by_policy', code: 'dlp_blocked' });
      expect(h.openai.requests).toHaveLength(0);
    }, 5000);
  });
});

describe('Gemini image output and text to speech', () => {
  test('images.generate on a Gemini image model sends responseModalities TEXT+IMAGE and answers the inline PNG', async () => {
    const result = await sdk('/v1').images.generate({ model: 'google/gemini-2.5-flash-image', prompt: 'a blue square' });
    expect(Buffer.from(result.data![0]!.b64_json!, 'base64').subarray(0, 4)).toEqual(PNG_MAGIC);
    const sent = h.gemini.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent');
    expect(sent.json).toMatchObject({ generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } });
  });

  test('audio.speech.create on Gemini TTS maps the OpenAI voice and wraps the 24 kHz PCM as WAV; mp3 is refused up front', async () => {
    const response = await sdk('/v1/openai').audio.speech.create({ model: 'google/gemini-2.5-flash-preview-tts', voice: 'alloy', input: 'Good morning', response_format: 'wav' });
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(bytes.readUInt32LE(24)).toBe(24_000);
    expect(h.gemini.requests.at(-1)!.json).toMatchObject({ generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } } });
    const mp3 = await call(h.edgeUrl, key.key, 'POST', '/v1/audio/speech', { model: 'google/gemini-2.5-flash-preview-tts', voice: 'alloy', input: 'hi', response_format: 'mp3' });
    expect(mp3.status).toBe(400);
    expect(mp3.body.error).toMatchObject({ code: 'unsupported_params', param: 'response_format' });
  });
});

describe('the ai SDK helpers', () => {
  const provider = () => createOpenAI({ apiKey: key.key, baseURL: `${h.edgeUrl}/v1/openai` });

  test('generateImage', async () => {
    const { image } = await ai.generateImage({ model: provider().image('gpt-image-1'), prompt: 'a paper boat', maxRetries: 0 });
    expect(Buffer.from(image.uint8Array).subarray(0, 4)).toEqual(PNG_MAGIC);
  });

  test('experimental_generateSpeech', async () => {
    const { audio } = await ai.experimental_generateSpeech({ model: provider().speech('tts-1'), text: 'Hello there', voice: 'nova', outputFormat: 'wav', maxRetries: 0 });
    expect(Buffer.from(audio.uint8Array).subarray(0, 4).toString('ascii')).toBe('RIFF');
  });

  test('experimental_transcribe', async () => {
    const result = await ai.experimental_transcribe({ model: provider().transcription('whisper-1'), audio: wav(3), maxRetries: 0 });
    expect(result.text).toContain('3.00 seconds of audio');
    expect(result.durationInSeconds).toBe(3);
  });
});

/** The process's peak resident memory (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** A multipart body of one file of `bytes` zero bytes, generated as it is sent (the test never holds it). */
function streamedUpload(field: string, filename: string, bytes: number, model: string): { body: Readable; contentType: string; length: number } {
  const boundary = 'test-boundary-7d1f';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\n${model}\r\n--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: audio/wav\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024);
  const header = wav(0);
  header.writeUInt32LE(bytes - 44, 40);
  header.writeUInt32LE(bytes - 8, 4);
  async function* generate() {
    yield head;
    yield header;
    let left = bytes - header.length;
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      left -= n;
      yield chunk.subarray(0, n);
    }
    yield tail;
  }
  return { body: Readable.from(generate()), contentType: `multipart/form-data; boundary=${boundary}`, length: head.length + bytes + tail.length };
}

function post(url: string, apiKey: string, upload: { body: Readable; contentType: string; length: number }): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': upload.contentType, 'content-length': String(upload.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    req.on('error', reject);
    upload.body.pipe(req);
  });
}

describe('uploads are limited while they stream, with memory far below the file size', () => {
  let gateway: GatewayProcess;
  let vendor: Server;
  let received = 0;

  beforeAll(async () => {
    // A vendor that counts what it is sent without keeping it: the gateway process's memory is what is measured.
    vendor = createServer((req, res) => {
      let bytes = 0;
      req.on('data', (c: Buffer) => (bytes += c.length));
      req.on('end', () => {
        received = bytes;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ text: `got ${bytes} bytes`, usage: { type: 'duration', seconds: 30 } }));
      });
    });
    await new Promise<void>((resolve) => vendor.listen(0, '127.0.0.1', resolve));
    gateway = await startGatewayProcess(h, { PATCHBAY_VENDOR_OPENAI_BASE_URL: `http://127.0.0.1:${(vendor.address() as { port: number }).port}/v1` });
  }, 60_000);

  afterAll(async () => {
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
    vendor?.closeAllConnections();
    await new Promise((r) => vendor?.close(r));
  });

  test('payload_too_large (413) for audio over 25 MB, decided while streaming; 24 MB uploads pass through; peak memory growth printed', async () => {
    const pid = gateway.child.pid!;
    const accepted = 24 * 1024 * 1024;
    const upload = (name: string, bytes: number) => post(`${gateway.url}/v1/audio/transcriptions`, key.key, streamedUpload('file', name, bytes, 'openai/whisper-1'));
    expect((await upload('warm.wav', 1024 * 1024)).status).toBe(200);
    const start = peakRss(pid);

    // The first large upload raises the peak by what the process allocates for any large transfer before
    // the garbage collector runs (socket reads, file reads: V8 collects external buffers lazily).
    const first = await upload('first.wav', accepted);
    expect(first.status).toBe(200);
    expect(received).toBeGreaterThan(accepted);
    const afterFirst = peakRss(pid);

    // From then on the peak does not grow with what is uploaded: two more 24 MB uploads at once (48 MB in
    // flight) and a 30 MB upload refused while it streams.
    const both = await Promise.all([upload('second.wav', accepted), upload('third.wav', accepted)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    const refused = await upload('huge.wav', 30 * 1024 * 1024);
    expect(refused.status).toBe(413);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'payload_too_large', param: 'file' });
    const afterMore = peakRss(pid);

    // Through the edge router too (its body limit lets 25 MB through; the gateway decides).
    const viaEdge = await post(`${h.edgeUrl}/v1/openai/audio/transcriptions`, key.key, streamedUpload('file', 'huge.wav', 26 * 1024 * 1024, 'openai/whisper-1'));
    expect(viaEdge.status).toBe(413);
    expect(viaEdge.body.error.code).toBe('payload_too_large');

    const mb = (n: number) => (n / (1024 * 1024)).toFixed(1);
    console.log(
      `media upload memory (gateway process, peak RSS): ${mb(start)} MB warm; +${mb(afterFirst - start)} MB after the first 24.0 MB upload; ` +
        `+${mb(afterMore - afterFirst)} MB more after two concurrent 24.0 MB uploads (48 MB in flight) and a 30 MB upload refused with 413`,
    );
    expect(afterMore - afterFirst).toBeLessThan(accepted / 4);
  }, 120_000);

  test('payload_too_large (413) for images over 20 MB on /v1/images/edits', async () => {
    const refused = await post(`${gateway.url}/v1/images/edits`, key.key, streamedUpload('image', 'big.png', 21 * 1024 * 1024, 'openai/gpt-image-1'));
    expect(refused.status).toBe(413);
    expect(refused.body.error.message).toMatch(/20 MB/);
  }, 60_000);
});
