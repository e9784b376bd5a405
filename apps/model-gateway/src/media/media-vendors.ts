import { createReadStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { adapterFor, VendorError, type CancelSignal, type VendorHttp, type VendorTarget } from '@patchbay/model-wire';
import { BlockedDestinationError, OutboundError, readBody, type OutboundResponse } from '@patchbay/outbound';
import type { UploadedFile } from './multipart-upload';

/**
 * The vendors' media endpoints (facts file §4.4, §4.5): OpenAI's images and audio APIs, Gemini's image
 * output and text to speech on generateContent. Each call fails as a model-wire VendorError with the
 * dialect's own classification, so failover decides on media calls exactly as on chat calls.
 */
export interface MediaCallOptions {
  http: VendorHttp;
  signal: CancelSignal;
  timeoutMs: number;
}

const ERROR_BODY_LIMIT = 256 * 1024;
/** Largest media answer read into memory (base64 images, transcripts, Gemini's base64 audio). */
const ANSWER_LIMIT = 64 * 1024 * 1024;

function joinUrl(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}${path}`);
}

async function send(target: VendorTarget, url: URL, headers: Record<string, string>, body: string | Readable, options: MediaCallOptions): Promise<OutboundResponse> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  if (options.signal.aborted) controller.abort();
  options.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const response = await options.http(url, { method: 'POST', headers, body, signal: controller.signal, timeoutMs: options.timeoutMs });
    if (response.status < 200 || response.status >= 300) {
      let parsed: unknown = null;
      try {
        const text = (await readBody(response, ERROR_BODY_LIMIT, 'truncate')).bytes.toString('utf8');
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      } catch {
        parsed = null;
      }
      throw new VendorError(adapterFor(target.dialect).classifyError(response.status, parsed, response.headers, target));
    }
    return response;
  } catch (err) {
    throw transportError(err, target, options);
  } finally {
    options.signal.removeEventListener('abort', onAbort);
  }
}

function transportError(err: unknown, target: VendorTarget, options: MediaCallOptions): VendorError {
  if (err instanceof VendorError) return err;
  const base = { vendor: target.vendor, model: target.model, cause: err };
  if (options.signal.aborted) return new VendorError({ ...base, kind: 'network', message: 'the call was cancelled before the vendor answered' });
  if (err instanceof BlockedDestinationError) return new VendorError({ ...base, kind: 'network', message: `${target.vendor}: ${err.message}` });
  if (err instanceof OutboundError && err.kind === 'timeout') return new VendorError({ ...base, kind: 'timeout', message: `${target.vendor} did not answer within ${options.timeoutMs} ms` });
  const code = (err as { code?: string }).code;
  return new VendorError({ ...base, kind: 'network', message: `${target.vendor} could not be reached (${code ?? (err as Error)?.message ?? 'connection failed'})` });
}

async function readJson(response: OutboundResponse, target: VendorTarget, options: MediaCallOptions): Promise<unknown> {
  let text: string;
  try {
    text = (await readBody(response, ANSWER_LIMIT, 'error')).bytes.toString('utf8');
  } catch (err) {
    throw new VendorError({ kind: 'stream_cut', message: `${target.vendor} broke off the answer`, vendor: target.vendor, model: target.model, cause: err });
  }
  void options;
  try {
    return JSON.parse(text);
  } catch {
    throw new VendorError({ kind: 'malformed', message: `${target.vendor} answered with a body that is not JSON`, vendor: target.vendor, model: target.model, vendorBody: text.slice(0, 500) });
  }
}

function openAIHeaders(target: VendorTarget, contentType: string): Record<string, string> {
  return { 'content-type': contentType, authorization: `Bearer ${target.apiKey}`, ...target.extraHeaders };
}

function geminiHeaders(target: VendorTarget): Record<string, string> {
  return { 'content-type': 'application/json', 'x-goog-api-key': target.apiKey, ...target.extraHeaders };
}

function geminiUrl(target: VendorTarget, method: string): URL {
  const model = target.vendorModel.startsWith('models/') ? target.vendorModel : `models/${target.vendorModel}`;
  return joinUrl(target.baseUrl, `/v1beta/${model}:${method}`);
}

function unsupported(target: VendorTarget, what: string): VendorError {
  return new VendorError({ kind: 'invalid_request', message: `${target.vendor} does not serve ${what} through this gateway`, vendor: target.vendor, model: target.model });
}

function malformed(target: VendorTarget, message: string): VendorError {
  return new VendorError({ kind: 'malformed', message: `${target.vendor}: ${message}`, vendor: target.vendor, model: target.model });
}

// ---------------------------------------------------------------- multipart out (streamed from disk)

/** A text field or a spooled file, in the order they are sent. */
export type OutgoingPart = { name: string; value: string } | { name: string; file: UploadedFile };

/** A multipart/form-data body that reads each spooled file from disk as it is sent: memory holds one chunk at a time. */
export function multipartBody(parts: OutgoingPart[]): { contentType: string; body: Readable } {
  const boundary = `----patchbay${randomBytes(12).toString('hex')}`;
  const out = new PassThrough();
  const run = async () => {
    for (const part of parts) {
      if ('value' in part) {
        out.write(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`);
        continue;
      }
      const filename = part.file.filename.replace(/["\r\n]/g, '_');
      out.write(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${filename}"\r\nContent-Type: ${part.file.contentType}\r\n\r\n`);
      for await (const chunk of createReadStream(part.file.path)) {
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', resolve));
      }
      out.write('\r\n');
    }
    out.end(`--${boundary}--\r\n`);
  };
  run().catch((err: unknown) => out.destroy(err as Error));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: out };
}

// ---------------------------------------------------------------- images

export interface ImageRequest {
  prompt: string;
  n: number;
  size?: string;
  quality?: string;
  responseFormat?: 'url' | 'b64_json';
  /** Other OpenAI fields passed through as given (background, output_format, moderation, style…). */
  extra: Record<string, unknown>;
}

export interface ImageResult {
  data: Array<{ b64_json?: string; url?: string; revised_prompt?: string }>;
  /** How many images the vendor made: what is billed. */
  images: number;
  /** The vendor's token usage when it reports one (gpt-image), passed on as it is. */
  vendorUsage: unknown;
  /** Text the model wrote beside the image (Gemini). */
  text: string | null;
}

/** gpt-image models always answer base64 and refuse `response_format`; DALL·E takes it. */
function vendorResponseFormat(target: VendorTarget, request: ImageRequest): ImageRequest['responseFormat'] {
  return /^gpt-image/.test(target.vendorModel) ? undefined : request.responseFormat;
}

export async function generateImages(target: VendorTarget, request: ImageRequest, options: MediaCallOptions): Promise<ImageResult> {
  if (target.dialect === 'openai') {
    request = { ...request, responseFormat: vendorResponseFormat(target, request) };
    const body = { ...request.extra, model: target.vendorModel, prompt: request.prompt, n: request.n, ...(request.size ? { size: request.size } : {}), ...(request.quality ? { quality: request.quality } : {}), ...(request.responseFormat ? { response_format: request.responseFormat } : {}) };
    const response = await send(target, joinUrl(target.baseUrl, '/images/generations'), openAIHeaders(target, 'application/json'), JSON.stringify(body), options);
    return openAIImages(await readJson(response, target, options), target);
  }
  if (target.dialect === 'gemini') {
    // One image per generateContent call: n images are n calls, made together.
    const calls = await Promise.all(Array.from({ length: request.n }, () => geminiImage(target, [{ text: request.prompt }], options)));
    return { data: calls.map((c) => ({ b64_json: c.b64 })), images: calls.length, vendorUsage: null, text: calls[0]?.text ?? null };
  }
  throw unsupported(target, 'image generation');
}

export async function editImages(target: VendorTarget, request: ImageRequest, images: UploadedFile[], mask: UploadedFile | null, options: MediaCallOptions): Promise<ImageResult> {
  if (target.dialect === 'openai') {
    request = { ...request, responseFormat: vendorResponseFormat(target, request) };
    const parts: OutgoingPart[] = [{ name: 'model', value: target.vendorModel }, { name: 'prompt', value: request.prompt }, { name: 'n', value: String(request.n) }];
    if (request.size) parts.push({ name: 'size', value: request.size });
    if (request.quality) parts.push({ name: 'quality', value: request.quality });
    if (request.responseFormat) parts.push({ name: 'response_format', value: request.responseFormat });
    for (const [name, value] of Object.entries(request.extra)) if (typeof value === 'string') parts.push({ name, value });
    const field = images.length > 1 ? 'image[]' : 'image';
    for (const file of images) parts.push({ name: field, file });
    if (mask) parts.push({ name: 'mask', file: mask });
    const form = multipartBody(parts);
    const response = await send(target, joinUrl(target.baseUrl, '/images/edits'), openAIHeaders(target, form.contentType), form.body, options);
    return openAIImages(await readJson(response, target, options), target);
  }
  throw unsupported(target, 'image edits');
}

function openAIImages(json: unknown, target: VendorTarget): ImageResult {
  const body = json as { data?: unknown; usage?: unknown };
  if (!Array.isArray(body.data)) throw malformed(target, 'the images answer has no data array');
  const data = body.data.map((d) => {
    const item = d as Record<string, unknown>;
    return {
      ...(typeof item.b64_json === 'string' ? { b64_json: item.b64_json } : {}),
      ...(typeof item.url === 'string' ? { url: item.url } : {}),
      ...(typeof item.revised_prompt === 'string' ? { revised_prompt: item.revised_prompt } : {}),
    };
  });
  return { data, images: data.length, vendorUsage: body.usage ?? null, text: null };
}

async function geminiImage(target: VendorTarget, parts: unknown[], options: MediaCallOptions): Promise<{ b64: string; text: string | null }> {
  const body = { contents: [{ role: 'user', parts }], generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } };
  const response = await send(target, geminiUrl(target, 'generateContent'), geminiHeaders(target), JSON.stringify(body), options);
  const json = (await readJson(response, target, options)) as { candidates?: Array<{ content?: { parts?: Array<Record<string, unknown>> }; finishReason?: string }>; promptFeedback?: { blockReason?: string } };
  if (json.promptFeedback?.blockReason) throw new VendorError({ kind: 'content_filter', message: `${target.vendor} refused the prompt (${json.promptFeedback.blockReason})`, vendor: target.vendor, model: target.model });
  const candidate = json.candidates?.[0];
  const got = candidate?.content?.parts ?? [];
  const image = got.find((p) => typeof (p.inlineData as { data?: unknown } | undefined)?.data === 'string');
  if (!image) {
    if (candidate?.finishReason && candidate.finishReason !== 'STOP') throw new VendorError({ kind: 'content_filter', message: `${target.vendor} made no image (${candidate.finishReason})`, vendor: target.vendor, model: target.model });
    throw new VendorError({ kind: 'empty_response', message: `${target.vendor} answered without an image`, vendor: target.vendor, model: target.model });
  }
  const text = got.map((p) => (typeof p.text === 'string' ? p.text : '')).join('').trim();
  return { b64: (image.inlineData as { data: string }).data, text: text === '' ? null : text };
}

// ---------------------------------------------------------------- speech

export interface SpeechRequest {
  input: string;
  voice: string | { id: string };
  /** The format asked for, or null for the endpoint's default (mp3 where the vendor makes it). */
  format: string | null;
  speed?: number;
  instructions?: string;
}

export interface SpeechResult {
  contentType: string;
  /** The format actually sent (Gemini makes wav or pcm only). */
  format: string;
  body: Readable | Buffer;
}

/** The formats a route can answer in (Gemini's raw PCM can be wrapped as WAV, not encoded as MP3). */
export function speechFormats(target: VendorTarget): readonly string[] {
  return target.dialect === 'gemini' ? ['wav', 'pcm'] : ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'];
}

const OPENAI_AUDIO_TYPES: Record<string, string> = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' };

/**
 * OpenAI-style voice names on Gemini's prebuilt voices (the gateway's own mapping, by the voices'
 * descriptions); a Gemini voice name is passed through as it is.
 */
const GEMINI_VOICE_FOR: Record<string, string> = {
  alloy: 'Kore', ash: 'Charon', ballad: 'Enceladus', coral: 'Aoede', echo: 'Puck', fable: 'Fenrir', onyx: 'Orus', nova: 'Leda', sage: 'Iapetus', shimmer: 'Zephyr', verse: 'Callirrhoe', marin: 'Despina', cedar: 'Algenib',
};

export async function synthesizeSpeech(target: VendorTarget, request: SpeechRequest, options: MediaCallOptions): Promise<SpeechResult> {
  if (target.dialect === 'openai') {
    const format = request.format ?? 'mp3';
    const body = { model: target.vendorModel, input: request.input, voice: request.voice, response_format: format, ...(request.speed !== undefined ? { speed: request.speed } : {}), ...(request.instructions !== undefined ? { instructions: request.instructions } : {}) };
    const response = await send(target, joinUrl(target.baseUrl, '/audio/speech'), openAIHeaders(target, 'application/json'), JSON.stringify(body), options);
    return { contentType: response.headers.get('content-type') ?? OPENAI_AUDIO_TYPES[format] ?? 'application/octet-stream', format, body: response.body };
  }
  if (target.dialect === 'gemini') {
    const format = request.format ?? 'wav';
    const name = typeof request.voice === 'string' ? request.voice : request.voice.id;
    const voiceName = GEMINI_VOICE_FOR[name.toLowerCase()] ?? name;
    const text = request.instructions ? `${request.instructions}: ${request.input}` : request.input;
    const body = { contents: [{ role: 'user', parts: [{ text }] }], generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName } } } } };
    const response = await send(target, geminiUrl(target, 'generateContent'), geminiHeaders(target), JSON.stringify(body), options);
    const json = (await readJson(response, target, options)) as { candidates?: Array<{ content?: { parts?: Array<{ inlineData?: { mimeType?: string; data?: string } }> } }> };
    const audio = json.candidates?.[0]?.content?.parts?.find((p) => typeof p.inlineData?.data === 'string')?.inlineData;
    if (!audio?.data) throw new VendorError({ kind: 'empty_response', message: `${target.vendor} answered without audio`, vendor: target.vendor, model: target.model });
    const pcm = Buffer.from(audio.data, 'base64');
    const rate = Number(/rate=(\d+)/.exec(audio.mimeType ?? '')?.[1] ?? 24_000);
    return format === 'pcm' ? { contentType: 'audio/pcm', format, body: pcm } : { contentType: 'audio/wav', format: 'wav', body: wavFromPcm(pcm, rate) };
  }
  throw unsupported(target, 'text to speech');
}

/** 16-bit mono PCM in a WAV container (Gemini's TTS output, facts file §4.5). */
export function wavFromPcm(pcm: Buffer, rate: number): Buffer {
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

// ---------------------------------------------------------------- transcription

export interface TranscriptionRequest {
  file: UploadedFile;
  language?: string;
  prompt?: string;
  responseFormat: string;
  temperature?: string;
}

export interface TranscriptionResult {
  /** The vendor's JSON answer (json, verbose_json) or text (text, srt, vtt). */
  json: Record<string, unknown> | null;
  text: string;
  /** Seconds of audio billed: the vendor's own figure when it gives one. */
  seconds: number | null;
  contentType: string;
}

export async function transcribe(target: VendorTarget, request: TranscriptionRequest, options: MediaCallOptions): Promise<TranscriptionResult> {
  if (target.dialect !== 'openai') throw unsupported(target, 'transcription');
  const parts: OutgoingPart[] = [{ name: 'model', value: target.vendorModel }, { name: 'response_format', value: request.responseFormat }];
  if (request.language) parts.push({ name: 'language', value: request.language });
  if (request.prompt) parts.push({ name: 'prompt', value: request.prompt });
  if (request.temperature) parts.push({ name: 'temperature', value: request.temperature });
  parts.push({ name: 'file', file: request.file });
  const form = multipartBody(parts);
  const response = await send(target, joinUrl(target.baseUrl, '/audio/transcriptions'), openAIHeaders(target, form.contentType), form.body, options);
  if (request.responseFormat === 'json' || request.responseFormat === 'verbose_json' || request.responseFormat === 'diarized_json') {
    const json = (await readJson(response, target, options)) as Record<string, unknown>;
    if (typeof json.text !== 'string') throw malformed(target, 'the transcription has no text');
    const usage = json.usage as { type?: string; seconds?: unknown } | undefined;
    const seconds = usage?.type === 'duration' && typeof usage.seconds === 'number' ? usage.seconds : typeof json.duration === 'number' ? json.duration : null;
    return { json, text: json.text, seconds, contentType: 'application/json' };
  }
  const text = (await readBody(response, ANSWER_LIMIT, 'error')).bytes.toString('utf8');
  return { json: null, text, seconds: null, contentType: response.headers.get('content-type') ?? 'text/plain; charset=utf-8' };
}
