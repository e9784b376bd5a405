import { open } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runWithFailover, type RouteDecision } from '@patchbay/model-routing';
import { Cancellation, WireError, type GatewayFields, type NormalizedUsage, type PriorityOrderEntry, type Surface } from '@patchbay/model-wire';
import type { GatewayUsageRecordJob } from '@patchbay/queues';
import { beginRequest, type Logger } from '@patchbay/service-kit';
import { MEDIA_BILLING_UNITS, microsToUsd, type CatalogModel, type MediaModelType } from '../catalog/catalog';
import { guardMediaText } from '../guardrails/guardrails';
import { GatewayError, sendModelError, toGatewayErrorLike } from '../http/errors';
import { BodyReadError, discardRest, readJsonBody, sendJson } from '../http/json-body';
import { authenticateModelCaller, modelMatches, type Caller } from '../keys/callers';
import type { Route } from '../routing/vendor-route';
import { admit, RequestLedger, resolveScope, spendSubject, type ModelDeps } from '../model/model-request';
import { appRoute, decideMediaRoutes } from '../routing/routing';
import { editImages, generateImages, speechFormats, synthesizeSpeech, transcribe, type MediaCallOptions } from './media-vendors';
import { readMultipartUpload, type MultipartUpload, type UploadedFile, type UploadLimits } from './multipart-upload';

/**
 * The media endpoints (issue 27 §2): image generation and edits, text to speech, speech to text, at
 * /v1/… and under /v1/openai/… (and /v1/openai/v1/…) so the OpenAI SDK's images and audio methods
 * work with either base URL. The same pipeline as chat where it applies: the key first (a bad key never
 * costs an upload), the key's allowlist and the organization's blocklist, customer/project/tag
 * attribution, routing (a model, priority_order, a routing policy of media models: @patchbay/model-routing
 * with the endpoint named), budgets and key limits admitted before any vendor call, failover across the
 * routes on the vendor failures chat fails over on, the shared circuit breaker fed by every attempt, and
 * one usage record per attempt carrying the billed unit (per_image, per_character, per_second).
 */

/** The spec's inline-media limits, applied to uploads (Limits table: 20 MB images, 25 MB audio). */
export const IMAGE_UPLOAD_LIMIT_BYTES = 20 * 1024 * 1024;
export const AUDIO_UPLOAD_LIMIT_BYTES = 25 * 1024 * 1024;
/** The header that carries the characters a speech request was billed for (facts file §2.4, renamed Svc). */
export const BILLED_CHARACTERS_HEADER = 'X-Svc-Billed-Characters';
export const BILLED_SECONDS_HEADER = 'X-Svc-Billed-Seconds';
export const BILLED_IMAGES_HEADER = 'X-Svc-Billed-Images';

type MediaKind = 'images.generations' | 'images.edits' | 'audio.speech' | 'audio.transcriptions';

/** The routing endpoint of each kind (model-routing's ModelEndpoint). */
const ENDPOINT: Record<MediaKind, 'images' | 'speech' | 'transcription'> = {
  'images.generations': 'images',
  'images.edits': 'images',
  'audio.speech': 'speech',
  'audio.transcriptions': 'transcription',
};

const MODEL_TYPE: Record<MediaKind, MediaModelType> = {
  'images.generations': 'image',
  'images.edits': 'image',
  'audio.speech': 'speech',
  'audio.transcriptions': 'transcription',
};

/** What the usage record names as the surface. */
const SURFACE: Record<MediaKind, string> = {
  'images.generations': 'openai-images',
  'images.edits': 'openai-images',
  'audio.speech': 'openai-audio-speech',
  'audio.transcriptions': 'openai-audio-transcriptions',
};

const PATHS: Array<[string, MediaKind]> = (
  [
    ['/images/generations', 'images.generations'],
    ['/images/edits', 'images.edits'],
    ['/audio/speech', 'audio.speech'],
    ['/audio/transcriptions', 'audio.transcriptions'],
  ] as Array<[string, MediaKind]>
).flatMap(([path, kind]) => [[`/v1${path}`, kind] as [string, MediaKind], [`/v1/openai${path}`, kind] as [string, MediaKind], [`/v1/openai/v1${path}`, kind] as [string, MediaKind]]);

/** Every media path, for the app's listener (the upload limit differs from the JSON body limit). */
export const MEDIA_PATHS: ReadonlySet<string> = new Set(PATHS.map(([path]) => path));

// Media errors use OpenAI's envelope (the SDK methods these endpoints serve are OpenAI's).
const ENVELOPE: Surface = 'openai-chat';

const invalid = (code: string, message: string, param: string | null = null) => WireError.invalid(code, message, param);

/** What one media request asked for, whatever its body format. */
interface MediaInput {
  model: string | null;
  vendor: string | null;
  vendors: string[] | null;
  /** Models to try in order (`priority_order`, on the JSON endpoints); null: none. */
  priorityOrder: PriorityOrderEntry[] | null;
  routingPolicyId: string | null;
  customer: string | null;
  projectId: string | null;
  tags: Array<{ key: string; value: string }>;
  fields: Record<string, unknown>;
}

function str(value: unknown, param: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid('invalid_request_body', `"${param}" must be a string.`, param);
  return value;
}

function tagsOf(value: unknown): Array<{ key: string; value: string }> {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') {
    try {
      return tagsOf(JSON.parse(value));
    } catch {
      throw invalid('invalid_request_body', '"tags" must be an object of key-value strings or a list of {key, value}.', 'tags');
    }
  }
  if (Array.isArray(value)) return value.map((t) => ({ key: String((t as { key?: unknown }).key), value: String((t as { value?: unknown }).value) }));
  if (typeof value === 'object') return Object.entries(value as Record<string, unknown>).map(([key, v]) => ({ key, value: String(v) }));
  throw invalid('invalid_request_body', '"tags" must be an object of key-value strings or a list of {key, value}.', 'tags');
}

function inputFrom(fields: Record<string, unknown>): MediaInput {
  const vendors = fields.vendors;
  const priority = fields.priority_order;
  let priorityOrder: PriorityOrderEntry[] | null = null;
  if (priority !== undefined && priority !== null) {
    if (!Array.isArray(priority) || priority.length === 0 || priority.length > 10) throw invalid('invalid_priority_order', '"priority_order" is a list of 1 to 10 {model, vendors?} entries.', 'priority_order');
    priorityOrder = priority.map((entry, i) => {
      const model = (entry as { model?: unknown })?.model;
      if (typeof model !== 'string' || model === '') throw invalid('invalid_priority_order', `priority_order[${i}] has no model.`, `priority_order[${i}].model`);
      const v = (entry as { vendors?: unknown }).vendors;
      if (v !== undefined && (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== 'string'))) throw invalid('invalid_priority_order', `priority_order[${i}].vendors must be a non-empty list of vendor names.`, `priority_order[${i}].vendors`);
      return v === undefined ? { model } : { model, vendors: v as string[] };
    });
  }
  const model = str(fields.model, 'model') ?? null;
  if (priorityOrder && model !== null && priorityOrder[0]!.model !== model) throw invalid('priority_order_model_conflict', '"model" must be the first priority_order entry (or leave "model" out).', 'model');
  return {
    model,
    vendor: str(fields.vendor, 'vendor') ?? null,
    vendors: Array.isArray(vendors) ? vendors.map(String) : typeof vendors === 'string' ? vendors.split(',').map((v) => v.trim()) : null,
    priorityOrder,
    routingPolicyId: str(fields.routing_policy_id, 'routing_policy_id') ?? null,
    customer: str(fields.customer, 'customer') ?? null,
    projectId: str(fields.project_id, 'project_id') ?? null,
    tags: tagsOf(fields.tags),
    fields,
  };
}

function gatewayFields(input: MediaInput): GatewayFields {
  return {
    model: input.model,
    routing_policy_id: input.routingPolicyId,
    priority_order: input.priorityOrder,
    vendor: input.vendor,
    vendors: input.vendors,
    tags: input.tags,
    project_id: input.projectId,
    customer: input.customer,
    include_routing_metadata: false,
    include_guardrails_metadata: false,
    service_tier: null,
    service_tier_fallback: false,
    user: null,
    stream: false,
    store: null,
    metadata: null,
  };
}

/** The media model a name resolves to, with the spec's 400s and the key's and organization's 403s. */
function mediaModel(deps: ModelDeps, caller: Caller, name: string | null, kind: MediaKind): CatalogModel {
  if (name?.startsWith('@alias/')) {
    throw invalid('alias_not_supported', `${name}: @alias/ models resolve on /v1/responses and the chat surfaces only; the media endpoints take one concrete model (provider/model, e.g. ${kind === 'audio.transcriptions' ? 'openai/whisper-1' : kind === 'audio.speech' ? 'openai/tts-1' : 'openai/gpt-image-1'}).`, 'model');
  }
  const model = deps.catalog.resolve(name);
  const wanted = MODEL_TYPE[kind];
  if (model.type !== wanted) {
    const where = model.type === 'chat' ? 'a chat model: call /v1/responses or /v1/chat/completions' : model.type === 'embedding' ? 'an embedding model: call /v1/embeddings' : `a${model.type === 'image' ? 'n image' : ` ${model.type}`} model: call ${model.type === 'image' ? '/v1/images/generations or /v1/images/edits' : model.type === 'speech' ? '/v1/audio/speech' : '/v1/audio/transcriptions'}`;
    throw invalid('unsupported_endpoint_for_model', `${model.id} is ${where}.`, 'model');
  }
  if (caller.key.allowedModels !== null && !modelMatches(caller.key.allowedModels, model.id)) {
    throw new GatewayError(403, 'permission_error', `This key may not call ${model.id}; its allowed_models do not include it.`, 'model_not_allowed');
  }
  if (modelMatches(caller.org.blocklist, model.id)) throw new GatewayError(403, 'blocked_by_policy', `${model.id} is blocked by the organization's policy.`, 'blocked_by_policy');
  return model;
}

/**
 * The routes to try, in order, as routing decides them for chat: a concrete model (its vendor pins),
 * `priority_order`, or a routing policy of this endpoint's models (routing_policy_id or
 * X-Svc-Routing-Policy-Id, the key's binding, the customer's, project's or organization's default).
 * A named model is checked here first for the media endpoints' own messages (alias_not_supported, a
 * chat model on a media endpoint). `fits` drops routes the endpoint itself rules out (a speech route
 * whose character limit the input passes); `refuse` says why when none is left.
 */
function mediaRoutes(deps: ModelDeps, req: IncomingMessage, caller: Caller, input: MediaInput, kind: MediaKind, fits: (route: Route) => boolean = () => true, refuse?: (all: Route[]) => Error): RouteDecision {
  if (input.model !== null && input.priorityOrder === null) mediaModel(deps, caller, input.model, kind);
  let decision: RouteDecision;
  try {
    decision = decideMediaRoutes(deps, req, caller, gatewayFields(input), ENDPOINT[kind]);
  } catch (err) {
    if (err instanceof WireError && err.code === 'model_required') {
      throw invalid('model_required', `"model" is required: a ${MODEL_TYPE[kind]} model as provider/model (GET /v1/models lists them), or a routing policy of ${MODEL_TYPE[kind]} models (routing_policy_id).`, 'model');
    }
    throw err;
  }
  const routes = decision.routes.filter((r) => fits(appRoute(deps, caller, r)));
  if (routes.length === 0) throw refuse ? refuse(decision.routes.map((r) => appRoute(deps, caller, r))) : invalid('model_unavailable', 'No route could serve the request.', 'model');
  return routes.length === decision.routes.length ? decision : { ...decision, routes };
}

/** Micro-USD of `units` at a route's media price. */
function unitCostMicros(route: Route, kind: MediaKind, units: number): number {
  const price = route.price;
  const perUnit = MODEL_TYPE[kind] === 'image' ? price.per_image : MODEL_TYPE[kind] === 'speech' ? price.per_character : price.per_second;
  return Math.ceil((perUnit ?? 0) * units * 1e6);
}

/** The usage record of one attempt, billed in the media unit instead of tokens. */
class MediaLedger extends RequestLedger {
  units = 0;

  constructor(
    deps: ModelDeps,
    caller: Caller,
    private readonly kind: MediaKind,
  ) {
    super(withUnit(deps, () => ({ billed_unit: MEDIA_BILLING_UNITS[MODEL_TYPE[kind]], billed_units: this.units })), caller, SURFACE[kind] as Surface, false);
  }

  override cost(usage: NormalizedUsage | null): number {
    return usage && this.route ? unitCostMicros(this.route, this.kind, this.units) : 0;
  }
}

/** The deps with a recorder that adds the billed unit to each usage record. */
function withUnit(deps: ModelDeps, unit: () => Pick<GatewayUsageRecordJob, 'billed_unit' | 'billed_units'>): ModelDeps {
  const recorder = Object.create(deps.recorder) as ModelDeps['recorder'];
  recorder.record = (job: GatewayUsageRecordJob) => deps.recorder.record({ ...job, ...unit() });
  return { ...deps, recorder };
}

/** Media bills in units, not tokens: a usage of zero tokens marks the attempt as billed (RequestLedger settles on a usage). */
const BILLED: NormalizedUsage = { inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, cacheWrite1hInputTokens: 0, outputTokens: 0, reasoningTokens: 0 };

interface Attempted<T> {
  value: T;
  route: Route;
  ledger: MediaLedger;
  headers: Record<string, string>;
}

/**
 * Runs `call` over the decision's routes with chat's failover (@patchbay/model-routing's
 * runWithFailover): each attempt admitted against budgets and key limits first (the worst case at that
 * route) and recorded, moving on where chat fails over (vendor 429, 5xx, timeouts, billing, 404,
 * refusals) and stopping on anything else. Every attempt feeds its route's circuit breaker and latency,
 * and a route whose breaker is open is skipped while another is closed.
 */
async function withFailover<T>(deps: ModelDeps, caller: Caller, input: MediaInput, kind: MediaKind, headersIn: IncomingMessage['headers'], decision: RouteDecision, reserveUnits: (route: Route) => number, call: (route: Route, options: MediaCallOptions) => Promise<T>, signal: Cancellation): Promise<Attempted<T>> {
  const scope = resolveScope({ headers: headersIn }, caller, gatewayFields(input));
  let ledger: MediaLedger | null = null;
  let route: Route | null = null;
  let headers: Record<string, string> = {};
  const result = await runWithFailover(
    decision,
    async () => {
      const attempt = ledger!;
      const started = attempt.elapsedMs();
      try {
        return await call(route!, { http: route!.http, signal, timeoutMs: deps.timeouts.totalMs });
      } finally {
        attempt.vendorMs = attempt.elapsedMs() - started;
      }
    },
    {
      stream: false,
      signal,
      health: deps.routing.health,
      hooks: {
        beforeAttempt: async (routing, context) => {
          const chosen = appRoute(deps, caller, routing);
          const attempt = new MediaLedger(deps, caller, kind);
          attempt.scope = scope;
          attempt.route = chosen;
          route = chosen;
          ledger = attempt;
          try {
            // The client's request counts once toward the daily request count, not each attempt.
            const admitted = await admit(deps.spend, spendSubject(caller, scope, chosen.byok), unitCostMicros(chosen, kind, reserveUnits(chosen)), context.attempt === 0);
            attempt.reservation = admitted.reservation;
            headers = admitted.headers;
            deps.rateLimitHeaders?.note(caller.key.hash, admitted.headers);
          } catch (err) {
            const refusal = toGatewayErrorLike(err);
            attempt.finish('failed', refusal.status, null, refusal.code ?? null);
            throw err;
          }
        },
        attemptFailed: ({ error }) => {
          const failure = toGatewayErrorLike(error);
          ledger!.finish('failed', failure.status, null, failure.code ?? null);
        },
      },
    },
  );
  if (!result.ok) throw result.error;
  return { value: result.value, route: route!, ledger: ledger!, headers };
}

// ---------------------------------------------------------------- the four endpoints

async function handleImagesGenerations(deps: ModelDeps, req: IncomingMessage, res: ServerResponse, caller: Caller, body: Record<string, unknown>, signal: Cancellation): Promise<void> {
  const input = inputFrom(body);
  const asked = str(body.prompt, 'prompt');
  if (asked === undefined || asked.trim() === '') throw invalid('empty_input', '"prompt" is required: describe the image to generate.', 'prompt');
  // The organization's data-loss rules apply to the prompt as to a chat prompt (redacted, or 422 dlp_blocked).
  const [prompt] = guardMediaText(caller.org.guardrails, [asked], 'prompt') as [string];
  const n = imageCount(body.n);
  const routes = mediaRoutes(deps, req, caller, input, 'images.generations');
  const responseFormat = responseFormatOf(body.response_format);
  const extra = passThrough(body, ['model', 'prompt', 'n', 'size', 'quality', 'response_format', 'vendor', 'vendors', 'customer', 'project_id', 'tags', 'priority_order', 'routing_policy_id', 'user']);
  const request = { prompt, n, size: str(body.size, 'size'), quality: str(body.quality, 'quality'), responseFormat, extra };
  const done = await withFailover(deps, caller, input, 'images.generations', req.headers, routes, () => n, (route, options) => generateImages(route.target, request, options), signal);
  answerImages(res, done);
}

async function handleImagesEdits(deps: ModelDeps, req: IncomingMessage, res: ServerResponse, caller: Caller, upload: MultipartUpload, signal: Cancellation): Promise<void> {
  const fields = Object.fromEntries(upload.fields);
  const input = inputFrom(fields);
  if (fields.prompt === undefined || fields.prompt.trim() === '') throw invalid('empty_input', '"prompt" is required: describe the edit.', 'prompt');
  const [prompt] = guardMediaText(caller.org.guardrails, [fields.prompt], 'prompt') as [string];
  const images = upload.files.filter((f) => f.field === 'image' || f.field === 'image[]');
  if (images.length === 0) throw invalid('invalid_request_body', 'Upload at least one image as the "image" (or "image[]") form field.', 'image');
  const mask = upload.files.find((f) => f.field === 'mask') ?? null;
  const n = imageCount(fields.n);
  const routes = mediaRoutes(deps, req, caller, input, 'images.edits');
  const extra = passThrough(fields, ['model', 'prompt', 'n', 'size', 'quality', 'response_format', 'vendor', 'vendors', 'customer', 'project_id', 'tags', 'routing_policy_id', 'user']);
  const request = { prompt, n, size: fields.size, quality: fields.quality, responseFormat: responseFormatOf(fields.response_format), extra };
  const done = await withFailover(deps, caller, input, 'images.edits', req.headers, routes, () => n, (route, options) => editImages(route.target, request, images, mask, options), signal);
  answerImages(res, done);
}

function answerImages(res: ServerResponse, done: Attempted<Awaited<ReturnType<typeof generateImages>>>): void {
  const { value, ledger, headers, route } = done;
  ledger.units = value.images;
  const cost = ledger.cost(BILLED);
  const body: Record<string, unknown> = { created: Math.floor(Date.now() / 1000), data: value.data, model: route.model.id, vendor: route.route.vendor, cost_usd: microsToUsd(cost) };
  if (value.vendorUsage) body.usage = value.vendorUsage;
  if (value.text) body.text = value.text;
  sendJson(res, 200, { ...headers, [BILLED_IMAGES_HEADER]: String(value.images), 'X-Gateway-Overhead-Ms': ledger.overheadMs() }, body);
  ledger.finish('finished', 200, BILLED);
}

async function handleSpeech(deps: ModelDeps, req: IncomingMessage, res: ServerResponse, caller: Caller, body: Record<string, unknown>, signal: Cancellation): Promise<void> {
  const input = inputFrom(body);
  const asked = str(body.input, 'input');
  if (asked === undefined || asked === '') throw invalid('empty_input', '"input" is required: the text to speak.', 'input');
  const [text] = guardMediaText(caller.org.guardrails, [asked], 'speech input') as [string];
  const voice = body.voice;
  if (typeof voice !== 'string' && !(voice && typeof voice === 'object' && typeof (voice as { id?: unknown }).id === 'string')) {
    throw invalid('invalid_request_body', '"voice" is required: a voice name such as "alloy", or {"id": "voice_…"}.', 'voice');
  }
  const format = str(body.response_format, 'response_format') ?? null;
  const speed = body.speed === undefined ? undefined : Number(body.speed);
  if (speed !== undefined && !(speed >= 0.25 && speed <= 4)) throw invalid('invalid_request_body', '"speed" is a number from 0.25 to 4.0.', 'speed');
  // The route's character limit (OpenAI 4,096): a route whose limit the input passes is not tried.
  const characters = [...text].length;
  const withinLimit = (r: Route) => r.route.maxInputCharacters === null || characters <= r.route.maxInputCharacters;
  const routes = mediaRoutes(
    deps,
    req,
    caller,
    input,
    'audio.speech',
    (r) => withinLimit(r) && (format === null || speechFormats(r.target).includes(format)),
    (all) => {
      const fits = all.filter(withinLimit);
      if (fits.length === 0) {
        const limit = Math.max(...all.map((r) => r.route.maxInputCharacters ?? 0));
        return invalid('input_too_long', `"input" is ${characters} characters; ${all[0]!.model.id} takes at most ${limit} per request. Split the text and make several requests.`, 'input');
      }
      return invalid('unsupported_params', `response_format "${format}" is not available on ${fits[0]!.model.id} (${fits[0]!.route.vendor}); it answers ${speechFormats(fits[0]!.target).join(', ')}.`, 'response_format');
    },
  );
  const request = { input: text, voice: voice as string | { id: string }, format, speed, instructions: str(body.instructions, 'instructions') };
  const done = await withFailover(deps, caller, input, 'audio.speech', req.headers, routes, () => characters, (route, options) => synthesizeSpeech(route.target, request, options), signal);
  const { value, ledger, headers } = done;
  ledger.units = characters;
  res.writeHead(200, { ...headers, 'content-type': value.contentType, [BILLED_CHARACTERS_HEADER]: String(characters), 'X-Gateway-Overhead-Ms': ledger.overheadMs(), ...(Buffer.isBuffer(value.body) ? { 'content-length': String(value.body.length) } : {}) });
  if (Buffer.isBuffer(value.body)) {
    res.end(value.body);
    ledger.finish('finished', 200, BILLED);
    return;
  }
  // The vendor's audio streams through as it arrives.
  const source = value.body;
  source.on('error', () => {
    ledger.finish('cut', 200, BILLED, 'stream_cut');
    res.destroy();
  });
  source.on('end', () => ledger.finish('finished', 200, BILLED));
  source.pipe(res);
}

async function handleTranscription(deps: ModelDeps, req: IncomingMessage, res: ServerResponse, caller: Caller, upload: MultipartUpload, signal: Cancellation): Promise<void> {
  const fields = Object.fromEntries(upload.fields);
  const input = inputFrom(fields);
  const file = upload.files.find((f) => f.field === 'file');
  if (!file) throw invalid('invalid_request_body', 'Upload the audio as the "file" form field.', 'file');
  const responseFormat = fields.response_format ?? 'json';
  if (!['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'].includes(responseFormat)) {
    throw invalid('invalid_request_body', '"response_format" is one of json, text, srt, verbose_json, vtt (diarized_json on diarizing models).', 'response_format');
  }
  const routes = mediaRoutes(deps, req, caller, input, 'audio.transcriptions');
  const estimated = await audioSeconds(file);
  const prompt = fields.prompt === undefined ? undefined : guardMediaText(caller.org.guardrails, [fields.prompt], 'prompt')[0];
  const request = { file, language: fields.language, prompt, responseFormat, temperature: fields.temperature };
  const done = await withFailover(deps, caller, input, 'audio.transcriptions', req.headers, routes, () => Math.max(estimated, 1), (route, options) => transcribe(route.target, request, options), signal);
  const { value, ledger, headers, route } = done;
  const seconds = value.seconds ?? Math.ceil(estimated);
  ledger.units = seconds;
  const cost = ledger.cost(BILLED);
  const common = { ...headers, [BILLED_SECONDS_HEADER]: String(seconds), 'X-Gateway-Overhead-Ms': ledger.overheadMs() };
  if (value.json) {
    const body = { ...value.json, vendor: route.route.vendor, language: value.json.language ?? fields.language ?? null, duration: typeof value.json.duration === 'number' ? value.json.duration : seconds, usage: { type: 'duration', seconds }, cost_usd: microsToUsd(cost) };
    sendJson(res, 200, common, body);
  } else {
    res.writeHead(200, { ...common, 'content-type': value.contentType, 'content-length': String(Buffer.byteLength(value.text)) });
    res.end(value.text);
  }
  ledger.finish('finished', 200, BILLED);
}

function imageCount(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 10) throw invalid('invalid_request_body', '"n" is the number of images, 1 to 10.', 'n');
  return n;
}

function responseFormatOf(raw: unknown): 'url' | 'b64_json' | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw !== 'url' && raw !== 'b64_json') throw invalid('invalid_request_body', '"response_format" is "url" or "b64_json".', 'response_format');
  return raw;
}

function passThrough(body: Record<string, unknown>, known: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([k, v]) => !known.includes(k) && v !== undefined));
}

/** How long an uploaded file plays: a WAV's own header, else its size at 128 kbit/s (a typical MP3). Used for the reservation and where the vendor reports no duration. */
async function audioSeconds(file: UploadedFile): Promise<number> {
  const handle = await open(file.path, 'r');
  try {
    const header = Buffer.alloc(44);
    const { bytesRead } = await handle.read(header, 0, 44, 0);
    if (bytesRead === 44 && header.subarray(0, 4).toString('ascii') === 'RIFF' && header.subarray(8, 12).toString('ascii') === 'WAVE') {
      const byteRate = header.readUInt32LE(28);
      if (byteRate > 0) return Math.max(0, file.bytes - 44) / byteRate;
    }
  } finally {
    await handle.close();
  }
  return file.bytes / 16_000;
}

// ---------------------------------------------------------------- the listener

/** Serves a request when it is a media request (POST on a media path); false leaves it to the next handler. */
export type MediaEndpoints = (req: IncomingMessage, res: ServerResponse) => boolean;

export function mediaEndpoints(deps: ModelDeps, options: { maxJsonBytes: number; logger: Logger; imageUploadBytes?: number; audioUploadBytes?: number }): MediaEndpoints {
  const table = new Map(PATHS);
  const limits: Record<'images.edits' | 'audio.transcriptions', UploadLimits> = {
    'images.edits': { fileBytes: options.imageUploadBytes ?? IMAGE_UPLOAD_LIMIT_BYTES, what: 'images upload', fieldBytes: 64 * 1024, maxFiles: 17 },
    'audio.transcriptions': { fileBytes: options.audioUploadBytes ?? AUDIO_UPLOAD_LIMIT_BYTES, what: 'audio file', fieldBytes: 64 * 1024, maxFiles: 1 },
  };
  const serve = async (kind: MediaKind, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const signal = new Cancellation();
    res.on('close', () => {
      if (!res.writableFinished) signal.abort();
    });
    let upload: MultipartUpload | null = null;
    let reading = false;
    let caller: Caller | null = null;
    try {
      caller = await authenticateModelCaller(req, deps.caches);
      reading = true;
      if (kind === 'images.edits' || kind === 'audio.transcriptions') {
        upload = await readMultipartUpload(req, limits[kind]);
        reading = false;
        if (kind === 'images.edits') await handleImagesEdits(deps, req, res, caller, upload, signal);
        else await handleTranscription(deps, req, res, caller, upload, signal);
        return;
      }
      const body = await readJsonBody(req, options.maxJsonBytes);
      reading = false;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('invalid_request_body', 'The body must be a JSON object.');
      if (kind === 'images.generations') await handleImagesGenerations(deps, req, res, caller, body as Record<string, unknown>, signal);
      else await handleSpeech(deps, req, res, caller, body as Record<string, unknown>, signal);
    } catch (err) {
      // A refused upload is not stored any further; what is still arriving is read off and dropped (never
      // kept) so the client gets the answer instead of a reset connection, then the connection closes.
      // (A key refused before reading leaves the body to node, which discards it.)
      if (reading && !req.complete) await discardRest(req);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // X-RateLimit-* on every answer to an authenticated request, refusals included (spec, Limits).
      const headers: Record<string, string> = err instanceof BodyReadError ? { connection: 'close' } : {};
      sendModelError(res, ENVELOPE, err, deps.rateLimitHeaders ? await deps.rateLimitHeaders.complete(caller, headers) : headers);
    } finally {
      if (upload) upload.dispose().catch(() => undefined);
    }
  };
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const kind = table.get(query === -1 ? url : url.slice(0, query));
    if (!kind) return false;
    const requestId = beginRequest(options.logger, req, res);
    serve(kind, req, res).catch((err: unknown) => {
      options.logger.error({ request_id: requestId, err: err instanceof Error ? { type: err.name, message: err.message } : { type: typeof err } }, 'media request failed outside its handler');
      if (!res.headersSent) sendModelError(res, ENVELOPE, err);
      else res.destroy();
    });
    return true;
  };
}
