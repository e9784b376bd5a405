import type { DirectProducer } from '@patchbay/queues';
import type { GatewayFields } from '@patchbay/model-wire';
import { beginRequest, isUuid, type Logger } from '@patchbay/service-kit';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from '../db';
import { GatewayError, sendModelError } from '../http/errors';
import { BodyReadError, discardRest, readJsonBody, readRawBody, sendJson } from '../http/json-body';
import type { GatewayCaches } from '../keys/principals';
import { authenticateModelCaller, type Caller } from '../keys/callers';
import { resolveScope } from '../model/model-request';
import { deleteFile, fileContent, fileNotFound, getFile, listFiles, ownerOf, uploadFile, type BatchLimits } from './batch-files';
import { cancelBatch, createBatch, getBatch, listBatches } from './batch-service';
import type { SubmitSlots } from './submit-slots';

export interface BatchEndpointDeps {
  db: Db;
  caches: GatewayCaches;
  limits: BatchLimits;
  slots: SubmitSlots;
  relay: { kick(): Promise<void> | void };
  producer: Pick<DirectProducer, 'send'>;
  logger: Logger;
}

/** Room for the multipart framing and the purpose field around the file itself. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
const JSON_BODY_LIMIT = 1024 * 1024;

// /v1/files…, /v1/batches… and the same under /v1/openai (the OpenAI SDK's baseURL {gateway_url}/v1/openai).
const PATH = /^\/v1(?:\/openai)?\/(files|batches)(?:\/([^/]+))?(?:\/(content|cancel))?$/;

type Handler = (caller: Caller, req: IncomingMessage, res: ServerResponse, id: string | null, query: URLSearchParams) => Promise<void>;

/** `GET files/:id/content`: the handler's key for a request. */
function routeKey(method: string, resource: string, id: string | undefined, action: string | undefined): string {
  return `${method} ${resource}${id !== undefined ? '/:id' : ''}${action ? `/${action}` : ''}`;
}

async function uploadHandler(deps: BatchEndpointDeps, caller: Caller, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new GatewayError(400, 'invalid_request_error', 'POST /v1/files takes multipart/form-data with the fields "file" (the JSONL) and "purpose" ("batch").', 'invalid_content_type', undefined, 'file');
  }
  const raw = await readRawBody(req, deps.limits.fileMaxBytes + MULTIPART_OVERHEAD_BYTES).catch((err: unknown) => {
    if ((err as { type?: string }).type === 'entity.too.large') {
      throw new GatewayError(413, 'invalid_request_error', `The upload is larger than the ${deps.limits.fileMaxBytes}-byte limit of a batch input file; split it into several batches.`, 'file_too_large', undefined, 'file');
    }
    throw err;
  });
  let form: FormData;
  try {
    // Node's own multipart parser (the Fetch API's), on a body already read under the limit above.
    form = await new Response(raw ?? Buffer.alloc(0), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new GatewayError(400, 'invalid_request_error', 'The multipart body could not be parsed; send the fields "file" and "purpose" as multipart/form-data.', 'invalid_multipart', undefined, 'file');
  }
  const file = form.get('file');
  if (file === null || typeof file === 'string') {
    throw new GatewayError(400, 'invalid_request_error', 'The "file" field is missing or is not a file; attach the JSONL as a file part named "file".', 'missing_required_parameter', undefined, 'file');
  }
  const content = Buffer.from(await file.arrayBuffer());
  const filename = (file as File).name || 'upload.jsonl';
  sendJson(res, 200, {}, await uploadFile(deps.db, ownerOf(caller), { purpose: form.get('purpose'), filename: filename.slice(0, 255), content }, deps.limits));
}

/** No body fields: what resolveScope checks of a batch create is its headers (X-Svc-Customer, X-Project-Id, X-Svc-Routing-Policy-Id). */
const SCOPE_ONLY_FIELDS: GatewayFields = {
  model: null, routing_policy_id: null, priority_order: null, vendor: null, vendors: null, tags: [], project_id: null, customer: null,
  include_routing_metadata: false, include_guardrails_metadata: false, service_tier: null, service_tier_fallback: false, user: null, stream: false, store: null, metadata: null,
};

const HANDLERS: Record<string, (deps: BatchEndpointDeps, ...args: Parameters<Handler>) => Promise<void>> = {
  'POST files': (deps, caller, req, res) => uploadHandler(deps, caller, req, res),
  'GET files': async (deps, caller, _req, res, _id, query) => sendJson(res, 200, {}, await listFiles(deps.db, ownerOf(caller), query)),
  'GET files/:id': async (deps, caller, _req, res, id) => sendJson(res, 200, {}, await getFile(deps.db, ownerOf(caller), id!)),
  'DELETE files/:id': async (deps, caller, _req, res, id) => sendJson(res, 200, {}, await deleteFile(deps.db, ownerOf(caller), id!)),
  'GET files/:id/content': async (deps, caller, _req, res, id) => {
    const file = await fileContent(deps.db, ownerOf(caller), id!);
    res.writeHead(200, { 'content-type': 'application/jsonl', 'content-length': file.content.length, 'content-disposition': `attachment; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"` });
    res.end(file.content);
  },
  'POST batches': async (deps, caller, req, res) => {
    // The scope headers the lines will carry, checked once here (one 400 rather than an error on every line).
    resolveScope(req, caller, SCOPE_ONLY_FIELDS);
    // The short cap on concurrent submits, held from before the body is read until the batch is stored.
    const release = await deps.slots.take(caller.key.organizationId);
    if (!release) {
      throw new GatewayError(429, 'rate_limit_error', 'Too many batches are being submitted for this organization at once; retry in 5 seconds.', 'batch_submit_busy', { 'Retry-After': '5' });
    }
    try {
      const body = await readJsonBody(req, JSON_BODY_LIMIT);
      sendJson(res, 200, {}, await createBatch(deps, ownerOf(caller), caller.key.hash, body, req.headers));
    } finally {
      await release();
    }
  },
  'GET batches': async (deps, caller, _req, res, _id, query) => sendJson(res, 200, {}, await listBatches(deps.db, ownerOf(caller), query)),
  'GET batches/:id': async (deps, caller, _req, res, id) => sendJson(res, 200, {}, await getBatch(deps.db, ownerOf(caller), id!)),
  'POST batches/:id/cancel': async (deps, caller, _req, res, id) => sendJson(res, 200, {}, await cancelBatch(deps, ownerOf(caller), id!)),
};

/**
 * OpenAI's Files and Batches endpoints, at /v1 and /v1/openai, on the plain node listener like the
 * model endpoints rather than in the express app: they take the same gateway keys through the same
 * authenticator and answer in the same error envelope, and the key is checked before an upload is
 * read (a bad key never costs a large file). Multipart needs no middleware: the body is read under
 * the file limit and parsed by Node's Fetch API. False leaves the request to the express app.
 */
export function batchEndpoints(deps: BatchEndpointDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const match = PATH.exec(q === -1 ? url : url.slice(0, q));
    if (!match) return false;
    const [, resource, id, action] = match;
    const handler = HANDLERS[routeKey(req.method ?? 'GET', resource!, id, action)];
    if (!handler) return false;
    const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
    // Not inside requestContextStorage.run: see model-routes.ts (promise hooks); lines name the id themselves.
    const requestId = beginRequest(deps.logger, req, res);
    (async () => {
      let caller: Caller;
      try {
        caller = await authenticateModelCaller(req, deps.caches);
        if (resource === 'files' && id !== undefined && !isUuid(id)) throw fileNotFound(id);
        await handler(deps, caller, req, res, id ?? null, query);
      } catch (err) {
        // An upload refused part-way: read off the rest first, so a client or proxy still sending it gets the answer.
        if (!req.complete && (err instanceof BodyReadError || (err instanceof GatewayError && err.status === 413))) await discardRest(req);
        if (res.headersSent) res.destroy();
        else sendModelError(res, 'openai-chat', err);
      }
    })().catch((err: unknown) => {
      deps.logger.error({ request_id: requestId, err: err instanceof Error ? { type: err.name, message: err.message } : { type: typeof err } }, 'batch request failed outside its handler');
      if (!res.headersSent) sendModelError(res, 'openai-chat', err);
    });
    return true;
  };
}
