import { isUuid } from '@patchbay/service-kit';
import { Router, type Request } from 'express';
import type { Db } from '../db';
import { ManagementError } from '../http/errors';
import { managementCaller, type ManagementAuth, type ManagementCaller } from '../keys/management-auth';
import { renderBatch } from './batch-service';

/** Lines of a result file shown by the output preview; the whole file stays with the key that made the batch. */
export const OUTPUT_PREVIEW_LINES = 50;
/** Bytes of a result file the preview reads at most (a line longer than what is left is cut off and marked). */
export const OUTPUT_PREVIEW_BYTES = 256 * 1024;

const STATUSES = new Set(['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled']);

/**
 * The organization's batches as the console and management keys see them (GET /v1/organization/batches):
 * every gateway key's and customer's batches of one environment, newest first, with the key and customer
 * that made each, and a preview of a finished batch's output and error files. OpenAI's /v1/batches and
 * /v1/files stay the key's own (a key sees its batches, a customer key its customer's); this view only
 * reads, and is guarded like the gateway keys it lists (view_api_keys, a management key's manage_api_keys).
 */
export function organizationBatchesRouter(deps: { db: Db; auth: ManagementAuth }): Router {
  const { db, auth } = deps;
  const router = Router();

  router.get('/v1/organization/batches', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_api_keys', { permission: 'view_api_keys' });
    const environment = environmentOf(req, caller);
    const limit = integerQuery(req, 'limit', 20, 1, 100);
    const status = stringQuery(req, 'status');
    if (status !== undefined && !STATUSES.has(status)) throw new ManagementError(400, `status must be one of ${[...STATUSES].join(', ')} (got "${status}").`);
    const keyHash = stringQuery(req, 'key_hash');
    const where = { organizationId: caller.organizationId, environment, ...(status ? { status } : {}), ...(keyHash ? { keyHash } : {}) };
    const after = stringQuery(req, 'after');
    let cursor: { createdAt: Date; id: string } | null = null;
    if (after !== undefined) {
      cursor = isUuid(after) ? await db.batch.findFirst({ where: { ...where, id: after }, select: { createdAt: true, id: true } }) : null;
      if (!cursor) throw new ManagementError(400, `after names no batch of this list (${after}); pass the last_id of the previous page.`);
    }
    const rows = await db.batch.findMany({
      where: { ...where, ...(cursor ? { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] } : {}) },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit + 1,
    });
    const page = rows.slice(0, limit);
    res.json({ object: 'list', environment, data: page.map(renderOrganizationBatch), first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: rows.length > limit });
  });

  router.get('/v1/organization/batches/:batch_id', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_api_keys', { permission: 'view_api_keys' });
    const row = await findBatch(db, caller, req);
    const [output, errors] = await Promise.all([preview(db, row.outputFileId), preview(db, row.errorFileId)]);
    res.json({ ...renderOrganizationBatch(row), output_preview: output, error_preview: errors });
  });

  return router;
}

function renderOrganizationBatch(row: Parameters<typeof renderBatch>[0]): Record<string, unknown> {
  return { ...renderBatch(row), environment: row.environment, key_hash: row.keyHash, customer_id: row.customerId };
}

async function findBatch(db: Db, caller: ManagementCaller, req: Request) {
  const id = String(req.params.batch_id);
  const environment = environmentOf(req, caller);
  const row = isUuid(id) ? await db.batch.findFirst({ where: { id, organizationId: caller.organizationId, environment } }) : null;
  if (!row) throw new ManagementError(404, `No batch ${id} in this organization's ${environment} environment.`);
  return row;
}

/**
 * The first lines of a result file, parsed (each line is one request's JSON result), or null when the
 * batch has no such file yet. `truncated` says there is more than the preview holds.
 */
async function preview(db: Db, fileId: string | null): Promise<{ file_id: string; lines: unknown[]; truncated: boolean } | null> {
  if (!fileId) return null;
  // substring() on bytea reads only the head of a large file.
  const rows = await db.$queryRaw<Array<{ head: Uint8Array | null; bytes: number }>>`SELECT substring(content from 1 for ${OUTPUT_PREVIEW_BYTES}) AS head, octet_length(content) AS bytes FROM batch_files WHERE id = ${fileId}::uuid`;
  const row = rows[0];
  if (!row || !row.head) return { file_id: fileId, lines: [], truncated: false };
  const text = Buffer.from(row.head).toString('utf8');
  const all = text.split('\n').filter((line) => line.trim() !== '');
  const complete = row.bytes <= OUTPUT_PREVIEW_BYTES ? all : all.slice(0, -1);
  const lines = complete.slice(0, OUTPUT_PREVIEW_LINES).map((line) => {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      return { unparsed_line: line };
    }
  });
  return { file_id: fileId, lines, truncated: complete.length > OUTPUT_PREVIEW_LINES || row.bytes > OUTPUT_PREVIEW_BYTES };
}

/** A member's session shows its own environment (the console's switch); a management key names one, production by default. */
function environmentOf(req: Request, caller: ManagementCaller): 'production' | 'test' {
  const asked = stringQuery(req, 'environment');
  if (asked !== undefined && asked !== 'production' && asked !== 'test') throw new ManagementError(400, `environment must be production or test (got "${asked}").`);
  if (caller.kind === 'member') {
    if (asked !== undefined && asked !== caller.session.environment) throw new ManagementError(400, `This session is in the ${caller.session.environment} environment; switch environments in the console instead of passing environment=${asked}.`);
    return caller.session.environment;
  }
  return (asked as 'production' | 'test' | undefined) ?? 'production';
}

function stringQuery(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ManagementError(400, `${name} must be given once.`);
  return value === '' ? undefined : value;
}

function integerQuery(req: Request, name: string, fallback: number, min: number, max: number): number {
  const text = stringQuery(req, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new ManagementError(400, `${name} must be a whole number from ${min} to ${max} (got "${text}").`);
  return value;
}
