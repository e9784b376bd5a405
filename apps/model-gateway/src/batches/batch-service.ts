import { createHash, randomUUID } from 'node:crypto';
import { QUEUE_NAMES, addToOutbox, type DirectProducer } from '@patchbay/queues';
import { isUuid } from '@patchbay/service-kit';
import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../db';
import { Prisma } from '../generated/prisma/client';
import { GatewayError } from '../http/errors';
import { BATCH_LINE_ENDPOINTS } from './batch-input';
import { fileNotFound, ownedBy, type BatchLimits, type BatchOwner } from './batch-files';
import { parseBatchInput } from './batch-input';

/** Statuses of a batch that is not done yet: what the 25-per-organization cap counts. */
export const OPEN_STATUSES = ['validating', 'in_progress', 'finalizing', 'cancelling'] as const;

/** The headers that place a request in a scope; a batch keeps the ones it was created with for its lines. */
export const SCOPE_HEADERS = ['x-svc-customer', 'x-project-id', 'x-svc-routing-policy-id'] as const;

type BatchRow = Prisma.BatchGetPayload<object>;

const seconds = (d: Date | null): number | null => (d ? Math.floor(d.getTime() / 1000) : null);

/** OpenAI's batch object, field for field (timestamps in Unix seconds, as the SDK types them). */
export function renderBatch(row: BatchRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'batch',
    endpoint: row.endpoint,
    errors: row.errors ?? null,
    input_file_id: row.inputFileId,
    completion_window: row.completionWindow,
    status: row.status,
    output_file_id: row.outputFileId,
    error_file_id: row.errorFileId,
    created_at: seconds(row.createdAt),
    in_progress_at: seconds(row.inProgressAt),
    expires_at: seconds(row.expiresAt),
    finalizing_at: seconds(row.finalizingAt),
    completed_at: seconds(row.completedAt),
    failed_at: seconds(row.failedAt),
    expired_at: seconds(row.expiredAt),
    cancelling_at: seconds(row.cancellingAt),
    cancelled_at: seconds(row.cancelledAt),
    request_counts: { total: row.totalLines, completed: row.completedLines, failed: row.failedLines },
    metadata: row.metadata ?? null,
    // Optional in OpenAI's object: present once the batch has finalized.
    ...(row.model ? { model: row.model } : {}),
    ...(row.usage ? { usage: row.usage } : {}),
  };
}

/** A deterministic UUID for a name (job ids: the same batch step or line always names the same job). */
export function derivedUuid(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function batchStepJobId(batchId: string, step: 'start' | 'finalize'): string {
  return derivedUuid(`batch:${batchId}:${step}`);
}

function invalid(message: string, code: string, param: string): GatewayError {
  return new GatewayError(400, 'invalid_request_error', message, code, undefined, param);
}

function batchNotFound(id: string): GatewayError {
  return new GatewayError(404, 'not_found_error', `No batch with id ${id} exists for this key's organization and environment.`, 'batch_not_found', undefined, 'batch_id');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** metadata as OpenAI takes it: at most 16 string pairs, keys up to 64 and values up to 512 characters. */
function validMetadata(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (!isRecord(value)) throw invalid('metadata must be an object of string values.', 'invalid_metadata', 'metadata');
  const entries = Object.entries(value);
  if (entries.length > 16) throw invalid('metadata takes at most 16 keys.', 'invalid_metadata', 'metadata');
  for (const [k, v] of entries) {
    if (k.length > 64) throw invalid(`metadata key "${k.slice(0, 20)}…" is longer than 64 characters.`, 'invalid_metadata', 'metadata');
    if (typeof v !== 'string' || v.length > 512) throw invalid(`metadata.${k} must be a string of at most 512 characters.`, 'invalid_metadata', 'metadata');
  }
  return value as Record<string, string>;
}

export interface BatchServiceDeps {
  db: Db;
  limits: BatchLimits;
  /** Delivers outbox rows (the start job) right after the commit. */
  relay: { kick(): Promise<void> | void };
}

/**
 * Creates a batch from an uploaded input file: its lines are copied (the file may be deleted later),
 * the open-batch cap is checked under a per-organization lock so concurrent creates cannot pass it
 * together, and the start job is written to the outbox in the same transaction (a Redis outage
 * delays the batch, never loses it).
 */
export async function createBatch(deps: BatchServiceDeps, owner: BatchOwner, keyHash: string, body: unknown, headers: IncomingHttpHeaders): Promise<Record<string, unknown>> {
  if (!isRecord(body)) throw invalid('The body must be a JSON object {input_file_id, endpoint, completion_window, metadata?}.', 'invalid_request_body', 'body');
  const { input_file_id: inputFileId, endpoint, completion_window: window } = body;
  if (typeof inputFileId !== 'string' || inputFileId === '') throw invalid('input_file_id is required: the id POST /v1/files returned.', 'missing_required_parameter', 'input_file_id');
  if (typeof endpoint !== 'string' || !(BATCH_LINE_ENDPOINTS as readonly string[]).includes(endpoint)) {
    throw invalid(`endpoint must be one of ${BATCH_LINE_ENDPOINTS.join(', ')}.`, 'invalid_endpoint', 'endpoint');
  }
  if (window !== '24h') throw invalid('completion_window must be "24h".', 'invalid_completion_window', 'completion_window');
  const metadata = validMetadata(body.metadata);
  if (!isUuid(inputFileId)) throw fileNotFound(inputFileId);
  const scopeHeaders: Record<string, string> = {};
  for (const name of SCOPE_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string' && value !== '') scopeHeaders[name] = value;
  }

  const { db, limits } = deps;
  const file = await db.batchFile.findFirst({ where: { id: inputFileId, ...ownedBy(owner) }, select: { purpose: true, content: true } });
  if (!file) throw fileNotFound(inputFileId);
  if (file.purpose !== 'batch') throw invalid(`File ${inputFileId} has purpose "${file.purpose}"; a batch takes a file uploaded with purpose "batch".`, 'invalid_input_file', 'input_file_id');
  // Validated at upload; parsed again for the lines.
  const lines = parseBatchInput(Buffer.from(file.content), limits.maxLines);
  const stray = lines.findIndex((l) => l.url !== endpoint);
  if (stray !== -1) {
    const line = lines[stray]!;
    throw invalid(`Line ${stray + 1} (custom_id "${line.customId}") has url ${line.url}, but the batch endpoint is ${endpoint}; every line must use the batch's endpoint.`, 'endpoint_mismatch', 'endpoint');
  }

  const id = randomUUID();
  const now = new Date();
  const row = await db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`batches:${owner.organizationId}`}, 0))`;
      const open = await tx.batch.count({ where: { organizationId: owner.organizationId, status: { in: [...OPEN_STATUSES] } } });
      if (open >= limits.maxOpenBatches) {
        throw new GatewayError(429, 'rate_limit_error', `The organization has ${open} open batches, the most it may have (${limits.maxOpenBatches}); wait for one to finish or cancel one.`, 'too_many_open_batches');
      }
      const created = await tx.batch.create({
        data: {
          id,
          ...owner,
          keyHash,
          endpoint,
          inputFileId,
          completionWindow: '24h',
          metadata: metadata ?? Prisma.DbNull,
          scopeHeaders,
          status: 'validating',
          totalLines: lines.length,
          createdAt: now,
          expiresAt: new Date(now.getTime() + 24 * 3600 * 1000),
        },
      });
      for (let i = 0; i < lines.length; i += 1000) {
        await tx.batchLine.createMany({
          data: lines.slice(i, i + 1000).map((l, j) => ({ batchId: id, line: i + j, customId: l.customId, url: l.url, body: l.body as Prisma.InputJsonValue })),
        });
      }
      await addToOutbox(tx, { queue: QUEUE_NAMES.gatewayBatches, payload: { event_id: batchStepJobId(id, 'start'), batch_id: id, step: 'start' } });
      return created;
    },
    { timeout: 60_000 },
  );
  await deps.relay.kick();
  return renderBatch(row);
}

export async function getBatch(db: Db, owner: BatchOwner, id: string): Promise<Record<string, unknown>> {
  if (!isUuid(id)) throw batchNotFound(id);
  const row = await db.batch.findFirst({ where: { id, ...ownedBy(owner) } });
  if (!row) throw batchNotFound(id);
  return renderBatch(row);
}

/** OpenAI's cursor list: newest first; `after` is the id of the last batch of the previous page. */
export async function listBatches(db: Db, owner: BatchOwner, query: URLSearchParams): Promise<Record<string, unknown>> {
  const limitText = query.get('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit must be an integer from 1 to 100.', 'invalid_limit', 'limit');
  const after = query.get('after');
  let cursor: { createdAt: Date; id: string } | null = null;
  if (after !== null) {
    const found = isUuid(after) ? await db.batch.findFirst({ where: { id: after, ...ownedBy(owner) }, select: { createdAt: true, id: true } }) : null;
    if (!found) throw invalid(`after names no batch of this organization (${after}); pass the last_id of the previous page.`, 'invalid_cursor', 'after');
    cursor = found;
  }
  const rows = await db.batch.findMany({
    where: {
      ...ownedBy(owner),
      ...(cursor ? { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  return { object: 'list', data: page.map(renderBatch), first_id: page[0]?.id ?? null, last_id: page[page.length - 1]?.id ?? null, has_more: rows.length > limit };
}

/**
 * Cancels a batch: lines not started are marked cancelled at once (no worker runs them), lines
 * running finish; the batch is `cancelling` until then and `cancelled` once its result files
 * (what did run) are written. 409 for a batch that is already done.
 */
export async function cancelBatch(deps: BatchServiceDeps & { producer: Pick<DirectProducer, 'send'> }, owner: BatchOwner, id: string): Promise<Record<string, unknown>> {
  if (!isUuid(id)) throw batchNotFound(id);
  const { db } = deps;
  const row = await db.$transaction(async (tx) => {
    const batch = await tx.batch.findFirst({ where: { id, ...ownedBy(owner) }, select: { status: true } });
    if (!batch) throw batchNotFound(id);
    if (batch.status === 'cancelling' || batch.status === 'cancelled') return tx.batch.findUniqueOrThrow({ where: { id } });
    if (batch.status !== 'validating' && batch.status !== 'in_progress') {
      throw new GatewayError(409, 'invalid_request_error', `Batch ${id} is ${batch.status}; only a validating or in_progress batch can be cancelled.`, 'batch_not_cancellable', undefined, 'batch_id');
    }
    const moved = await tx.batch.updateMany({ where: { id, status: { in: ['validating', 'in_progress'] } }, data: { status: 'cancelling', cancellingAt: new Date() } });
    if (moved.count === 1) await tx.batchLine.updateMany({ where: { batchId: id, status: 'pending' }, data: { status: 'cancelled', finishedAt: new Date() } });
    return tx.batch.findUniqueOrThrow({ where: { id } });
  });
  // The finalize step writes the files once no line is running (a running line's worker sends it too).
  await deps.producer.send(QUEUE_NAMES.gatewayBatches, { event_id: randomUUID(), batch_id: id, step: 'finalize' });
  return renderBatch(row);
}
