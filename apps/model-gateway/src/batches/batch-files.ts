import { isUuid } from '@patchbay/service-kit';
import type { Db } from '../db';
import { GatewayError } from '../http/errors';
import type { Caller } from '../keys/callers';
import { BatchInputError, parseBatchInput } from './batch-input';

/** Who sees a file or batch: the key's organization and environment, and its customer for a customer key. */
export interface BatchOwner {
  organizationId: string;
  environment: 'production' | 'test';
  customerId: string | null;
}

export function ownerOf(caller: Caller): BatchOwner {
  return { organizationId: caller.key.organizationId, environment: caller.key.environment, customerId: caller.key.customerId };
}

/** The where clause every file and batch query carries: never another organization's, environment's or customer's rows. */
export function ownedBy(owner: BatchOwner): { organizationId: string; environment: 'production' | 'test'; customerId?: string } {
  return { organizationId: owner.organizationId, environment: owner.environment, ...(owner.customerId ? { customerId: owner.customerId } : {}) };
}

export interface BatchLimits {
  /** Largest input file (bytes). */
  fileMaxBytes: number;
  /** Most request lines in one input file. */
  maxLines: number;
  /** Open batches (validating, in_progress, finalizing, cancelling) per organization. */
  maxOpenBatches: number;
}

export type FilePurpose = 'batch' | 'batch_output' | 'batch_error';

interface FileRow {
  id: string;
  purpose: string;
  filename: string;
  bytes: number;
  createdAt: Date;
}

/** OpenAI's file object. */
export function renderFile(row: FileRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'file',
    bytes: row.bytes,
    created_at: Math.floor(row.createdAt.getTime() / 1000),
    expires_at: null,
    filename: row.filename,
    purpose: row.purpose,
    status: 'processed',
    status_details: null,
  };
}

export function fileNotFound(id: string): GatewayError {
  return new GatewayError(404, 'not_found_error', `No file with id ${id} exists for this key's organization and environment.`, 'file_not_found', undefined, 'file_id');
}

const FILE_COLUMNS = { id: true, purpose: true, filename: true, bytes: true, createdAt: true } as const;

/**
 * Stores an uploaded batch input file after validating every line (400 naming the first bad line,
 * or the line repeating a custom_id). Only purpose "batch" is accepted: this gateway keeps files for batches only.
 */
export async function uploadFile(db: Db, owner: BatchOwner, upload: { purpose: unknown; filename: string; content: Buffer }, limits: BatchLimits): Promise<Record<string, unknown>> {
  if (upload.purpose !== 'batch') {
    throw new GatewayError(400, 'invalid_request_error', `purpose must be "batch" (got ${JSON.stringify(upload.purpose ?? null)}); this gateway stores files for the Batch API only.`, 'invalid_purpose', undefined, 'purpose');
  }
  if (upload.content.length > limits.fileMaxBytes) {
    throw new GatewayError(413, 'invalid_request_error', `The file is ${upload.content.length} bytes; a batch input file may be at most ${limits.fileMaxBytes} bytes. Split it into several batches.`, 'file_too_large', undefined, 'file');
  }
  let lineCount: number;
  try {
    lineCount = parseBatchInput(upload.content, limits.maxLines).length;
  } catch (err) {
    if (err instanceof BatchInputError) throw new GatewayError(400, 'invalid_request_error', err.message, err.code, undefined, 'file');
    throw err;
  }
  const row = await db.batchFile.create({
    data: { ...owner, purpose: 'batch', filename: upload.filename, bytes: upload.content.length, lineCount, content: new Uint8Array(upload.content) },
    select: FILE_COLUMNS,
  });
  return renderFile(row);
}

/** OpenAI's file list: newest first, `after` the id of the previous page's last file, optional `purpose`. */
export async function listFiles(db: Db, owner: BatchOwner, query: URLSearchParams): Promise<Record<string, unknown>> {
  const limitText = query.get('limit');
  const limit = limitText === null ? 100 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new GatewayError(400, 'invalid_request_error', 'limit must be an integer from 1 to 10000.', 'invalid_limit', undefined, 'limit');
  const purpose = query.get('purpose');
  const after = query.get('after');
  let cursor: { createdAt: Date; id: string } | null = null;
  if (after !== null) {
    cursor = isUuid(after) ? await db.batchFile.findFirst({ where: { id: after, ...ownedBy(owner) }, select: { createdAt: true, id: true } }) : null;
    if (!cursor) throw new GatewayError(400, 'invalid_request_error', `after names no file of this organization (${after}); pass the last_id of the previous page.`, 'invalid_cursor', undefined, 'after');
  }
  const rows = await db.batchFile.findMany({
    where: {
      ...ownedBy(owner),
      ...(purpose ? { purpose } : {}),
      ...(cursor ? { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
    select: FILE_COLUMNS,
  });
  const page = rows.slice(0, limit);
  return { object: 'list', data: page.map(renderFile), first_id: page[0]?.id ?? null, last_id: page[page.length - 1]?.id ?? null, has_more: rows.length > limit };
}

export async function getFile(db: Db, owner: BatchOwner, id: string): Promise<Record<string, unknown>> {
  const row = await db.batchFile.findFirst({ where: { id, ...ownedBy(owner) }, select: FILE_COLUMNS });
  if (!row) throw fileNotFound(id);
  return renderFile(row);
}

export async function fileContent(db: Db, owner: BatchOwner, id: string): Promise<{ filename: string; content: Buffer }> {
  const row = await db.batchFile.findFirst({ where: { id, ...ownedBy(owner) }, select: { filename: true, content: true } });
  if (!row) throw fileNotFound(id);
  return { filename: row.filename, content: Buffer.from(row.content) };
}

/** Deletes a file; batches created from it keep their lines (copied at creation). */
export async function deleteFile(db: Db, owner: BatchOwner, id: string): Promise<Record<string, unknown>> {
  const deleted = await db.batchFile.deleteMany({ where: { id, ...ownedBy(owner) } });
  if (deleted.count === 0) throw fileNotFound(id);
  return { id, object: 'file', deleted: true };
}
