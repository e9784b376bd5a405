import type { RecordedRequest } from '../fake-server';
import { asRecord, hexId, num, str } from './common';
import { audioSeconds, fakePcm, fakePng, formFields, parseMultipart, wavFile, type FormPart } from './media-common';
import type { JsonResult, VendorCall } from './server';

/**
 * OpenAI's image and audio endpoints (facts file §4.4): /v1/images/generations, /v1/images/edits
 * (multipart), /v1/audio/speech (raw audio bytes) and /v1/audio/transcriptions (multipart), with the
 * API's own validation messages. Faults, rate limits and authentication come from the shared engine.
 */

function error(status: number, message: string, param: string | null = null, code: string | null = null, type = 'invalid_request_error'): JsonResult {
  return { type: 'json', status, body: { error: { message, type, param, code } } };
}

const missing = (param: string) => error(400, `Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
const tooLong = (param: string, max: number, got: number) =>
  error(400, `Invalid '${param}': string too long. Expected a string with maximum length ${max}, but got a string with length ${got} instead.`, param, 'string_above_max_length');
const invalidValue = (param: string, value: unknown, allowed: readonly string[]) =>
  error(400, `Invalid value: '${String(value)}'. Supported values are: ${allowed.map((v) => `'${v}'`).join(', ')}.`, param, 'invalid_value');

/** OpenAI's upload cap on audio and image files: 25 MiB, answered 413 by its front end. */
export const OPENAI_UPLOAD_LIMIT_BYTES = 25 * 1024 * 1024;

interface ImageModelRules {
  promptMax: number;
  nMax: number;
  sizes: readonly string[];
  /** gpt-image models always answer base64 and report token usage; DALL·E answers URLs by default. */
  gptImage: boolean;
}

function imageRules(model: string): ImageModelRules | null {
  if (/^gpt-image/.test(model)) return { promptMax: 32_000, nMax: 10, sizes: ['1024x1024', '1536x1024', '1024x1536', 'auto'], gptImage: true };
  if (/^dall-e-3/.test(model)) return { promptMax: 4_000, nMax: 1, sizes: ['1024x1024', '1792x1024', '1024x1792'], gptImage: false };
  if (/^dall-e-2/.test(model)) return { promptMax: 1_000, nMax: 10, sizes: ['256x256', '512x512', '1024x1024'], gptImage: false };
  return null;
}

const tokensOf = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function imageAnswer(model: string, rules: ImageModelRules, prompt: string, n: number, format: string, seedBase: number, inputImageTokens: number): JsonResult {
  const created = Math.floor(Date.now() / 1000);
  const data = Array.from({ length: n }, (_, i) => {
    const png = fakePng(seedBase + i);
    const item: Record<string, unknown> = format === 'url' ? { url: `https://oaidalleapiprodscus.blob.core.windows.net/private/fake/img-${hexId(seedBase + i)}.png` } : { b64_json: png.toString('base64') };
    if (!rules.gptImage) item.revised_prompt = prompt;
    return item;
  });
  const body: Record<string, unknown> = { created, data };
  if (rules.gptImage) {
    const text = tokensOf(prompt);
    const output = 1056 * n;
    body.usage = { total_tokens: text + inputImageTokens + output, input_tokens: text + inputImageTokens, output_tokens: output, input_tokens_details: { text_tokens: text, image_tokens: inputImageTokens } };
    body.background = 'opaque';
    body.output_format = 'png';
    body.quality = 'medium';
    body.size = '1024x1024';
  }
  void model;
  return { type: 'json', body };
}

function checkImageParams(model: string, prompt: string | undefined, rawN: unknown, size: unknown, responseFormat: unknown): { rules: ImageModelRules; n: number; format: string } | JsonResult {
  const rules = imageRules(model);
  if (!rules) return error(400, `Invalid value: '${model}'. Value must be 'dall-e-2', 'dall-e-3' or a gpt-image model.`, 'model', 'invalid_value');
  if (prompt === undefined || prompt === '') return missing('prompt');
  if (prompt.length > rules.promptMax) return tooLong('prompt', rules.promptMax, prompt.length);
  const n = rawN === undefined ? 1 : Number(rawN);
  if (!Number.isInteger(n) || n < 1) return error(400, `Invalid 'n': integer below minimum value. Expected a value >= 1, but got ${String(rawN)} instead.`, 'n', 'integer_below_min_value');
  if (n > rules.nMax) return rules.nMax === 1 ? error(400, 'You must provide n=1 for this model.', 'n') : error(400, `Invalid 'n': integer above maximum value. Expected a value <= ${rules.nMax}, but got ${n} instead.`, 'n', 'integer_above_max_value');
  if (size !== undefined && !rules.sizes.includes(String(size))) return invalidValue('size', size, rules.sizes);
  if (responseFormat !== undefined) {
    if (rules.gptImage) return error(400, "Unknown parameter: 'response_format'.", 'response_format', 'unknown_parameter');
    if (responseFormat !== 'url' && responseFormat !== 'b64_json') return invalidValue('response_format', responseFormat, ['url', 'b64_json']);
  }
  return { rules, n, format: rules.gptImage ? 'b64_json' : String(responseFormat ?? 'url') };
}

const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
const SPEECH_CONTENT_TYPES: Record<string, string> = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' };
const VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];
const TRANSCRIPTION_FORMATS = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];

/** Audio bytes for `seconds` of speech in `format` (real WAV and PCM; the compressed formats carry their magic bytes only). */
function speechBytes(format: string, seconds: number): Buffer {
  const pcm = fakePcm(seconds);
  switch (format) {
    case 'wav':
      return wavFile(pcm);
    case 'pcm':
      return pcm;
    case 'mp3':
      return Buffer.concat([Buffer.from('ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0000', 'latin1'), pcm.subarray(0, pcm.length / 8)]);
    case 'flac':
      return Buffer.concat([Buffer.from('fLaC', 'ascii'), pcm.subarray(0, pcm.length / 4)]);
    default:
      return Buffer.concat([Buffer.from('OggS', 'ascii'), pcm.subarray(0, pcm.length / 8)]);
  }
}

function speechCall(body: Record<string, unknown>): VendorCall | JsonResult {
  const model = str(body.model);
  if (!model) return error(400, 'you must provide a model parameter');
  if (!/^(tts-1|tts-1-hd|gpt-4o-mini-tts)/.test(model)) return error(400, `Invalid value: '${model}'. Supported values are: 'tts-1', 'tts-1-hd' and 'gpt-4o-mini-tts'.`, 'model', 'invalid_value');
  const input = str(body.input);
  if (input === undefined) return missing('input');
  if (input.length > 4096) return tooLong('input', 4096, input.length);
  const voice = body.voice;
  if (voice === undefined) return missing('voice');
  const voiceId = typeof voice === 'string' ? voice : str(asRecord(voice).id);
  if (typeof voice === 'string' && !VOICES.includes(voice)) return invalidValue('voice', voice, VOICES);
  if (!voiceId) return error(400, "Invalid type for 'voice': expected a string or an object with an 'id'.", 'voice', 'invalid_type');
  const format = str(body.response_format) ?? 'mp3';
  if (!(SPEECH_FORMATS as readonly string[]).includes(format)) return invalidValue('response_format', format, SPEECH_FORMATS);
  const speed = body.speed === undefined ? 1 : num(body.speed);
  if (speed === undefined || speed < 0.25 || speed > 4) return error(400, `Invalid 'speed': expected a number between 0.25 and 4.0, got ${String(body.speed)}.`, 'speed', 'invalid_value');
  if (body.instructions !== undefined && /^tts-1/.test(model)) return error(400, 'Instructions are not supported for tts-1 and tts-1-hd.', 'instructions', 'unsupported_parameter');
  return {
    operation: 'audio.speech',
    model,
    stream: false,
    inputTokens: tokensOf(input),
    respond: () => ({ type: 'json', body: speechBytes(format, Math.min(30, input.length / 15) / speed), headers: { 'content-type': SPEECH_CONTENT_TYPES[format]! } }),
  };
}

function transcriptionCall(req: RecordedRequest): VendorCall | JsonResult {
  const raw = req.raw ?? Buffer.from(req.body, 'utf8');
  if (raw.length > OPENAI_UPLOAD_LIMIT_BYTES) return error(413, `Maximum content size limit (${OPENAI_UPLOAD_LIMIT_BYTES}) exceeded (${raw.length} bytes read)`, null, null, 'server_error');
  const parts = parseMultipart(req.headers['content-type'], raw);
  if (!parts) return error(400, "Could not parse multipart form: the request's Content-Type must be multipart/form-data with a boundary.");
  const { fields, files } = formFields(parts);
  const model = fields.get('model');
  if (!model) return error(400, 'you must provide a model parameter');
  const file = files.find((f) => f.name === 'file');
  if (!file) return missing('file');
  const extension = /\.([A-Za-z0-9]+)$/.exec(file.filename ?? '')?.[1]?.toLowerCase();
  if (!extension || !TRANSCRIPTION_FORMATS.includes(extension)) {
    return error(400, `Invalid file format. Supported formats: ${JSON.stringify(TRANSCRIPTION_FORMATS)}`, 'file', 'invalid_value');
  }
  const format = fields.get('response_format') ?? 'json';
  const allowed = model === 'whisper-1' ? ['json', 'text', 'srt', 'verbose_json', 'vtt'] : ['json', 'text'];
  if (!allowed.includes(format)) return error(400, `response_format '${format}' is not compatible with model '${model}'. Use one of: ${allowed.join(', ')}.`, 'response_format', 'unsupported_value');
  const seconds = Math.round(audioSeconds(file.data) * 100) / 100;
  const language = fields.get('language') ?? 'en';
  const prompt = fields.get('prompt');
  const text = `This is a transcript of ${seconds.toFixed(2)} seconds of audio${prompt ? ` about ${prompt}` : ''}.`;
  return {
    operation: 'audio.transcriptions',
    model,
    stream: false,
    inputTokens: Math.ceil(seconds * 10),
    respond: (): JsonResult => {
      const usage = { type: 'duration', seconds: Math.ceil(seconds) };
      if (format === 'text') return { type: 'json', body: `${text}\n`, headers: { 'content-type': 'text/plain; charset=utf-8' } };
      if (format === 'srt') return { type: 'json', body: `1\n00:00:00,000 --> 00:00:${String(Math.min(59, Math.ceil(seconds))).padStart(2, '0')},000\n${text}\n\n`, headers: { 'content-type': 'text/plain; charset=utf-8' } };
      if (format === 'vtt') return { type: 'json', body: `WEBVTT\n\n00:00:00.000 --> 00:00:${String(Math.min(59, Math.ceil(seconds))).padStart(2, '0')}.000\n${text}\n\n`, headers: { 'content-type': 'text/plain; charset=utf-8' } };
      if (format === 'verbose_json') {
        return { type: 'json', body: { task: 'transcribe', language: language === 'en' ? 'english' : language, duration: seconds, text, segments: [{ id: 0, seek: 0, start: 0, end: seconds, text, tokens: [], temperature: 0, avg_logprob: -0.2, compression_ratio: 1, no_speech_prob: 0.01 }], usage } };
      }
      return { type: 'json', body: { text, usage } };
    },
  };
}

function editCall(req: RecordedRequest, seed: number): VendorCall | JsonResult {
  const raw = req.raw ?? Buffer.from(req.body, 'utf8');
  const parts = parseMultipart(req.headers['content-type'], raw);
  if (!parts) return error(400, "Could not parse multipart form: the request's Content-Type must be multipart/form-data with a boundary.");
  const { fields, files } = formFields(parts);
  const model = fields.get('model') ?? 'dall-e-2';
  const images: FormPart[] = files.filter((f) => f.name === 'image' || f.name === 'image[]');
  if (images.length === 0) return missing('image');
  const rules = imageRules(model);
  const max = rules?.gptImage ? 16 : 1;
  if (images.length > max) return error(400, `Invalid 'image': too many images. Expected at most ${max}, but got ${images.length}.`, 'image', 'array_above_max_length');
  for (const image of images) {
    const limit = rules?.gptImage ? OPENAI_UPLOAD_LIMIT_BYTES : 4 * 1024 * 1024;
    if (image.data.length > limit) return error(400, `Invalid input image - image is larger than ${limit / (1024 * 1024)}MB.`, 'image', 'image_too_large');
    const png = image.data.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const jpeg = image.data[0] === 0xff && image.data[1] === 0xd8;
    const webp = image.data.subarray(8, 12).toString('ascii') === 'WEBP';
    if (!png && !(rules?.gptImage && (jpeg || webp))) return error(400, `Invalid input image - format must be in ['image/png'${rules?.gptImage ? ", 'image/jpeg', 'image/webp'" : ''}].`, 'image', 'invalid_image_format');
  }
  const checked = checkImageParams(model, fields.get('prompt'), fields.get('n'), fields.get('size'), fields.get('response_format'));
  if ('type' in checked) return checked;
  const prompt = fields.get('prompt')!;
  const imageTokens = images.length * 323;
  return { operation: 'images.edits', model, stream: false, inputTokens: tokensOf(prompt) + imageTokens, respond: () => imageAnswer(model, checked.rules, prompt, checked.n, checked.format, seed, imageTokens) };
}

/** The OpenAI media endpoints, or undefined when the path is none of them. */
export function routeOpenAIMedia(req: RecordedRequest, path: string, seed: () => number): VendorCall | JsonResult | undefined {
  if (req.method !== 'POST') return undefined;
  if (path === '/v1/audio/speech') return speechCall(asRecord(req.json));
  if (path === '/v1/audio/transcriptions') return transcriptionCall(req);
  if (path === '/v1/images/edits') return editCall(req, seed());
  if (path === '/v1/images/generations') {
    const body = asRecord(req.json);
    const model = str(body.model) ?? 'dall-e-2';
    const prompt = str(body.prompt);
    const checked = checkImageParams(model, prompt, body.n, body.size, body.response_format);
    if ('type' in checked) return checked;
    const n = seed();
    return { operation: 'images.generations', model, stream: false, inputTokens: tokensOf(prompt!), respond: () => imageAnswer(model, checked.rules, prompt!, checked.n, checked.format, n, 0) };
  }
  return undefined;
}
