import { createHash } from 'node:crypto';
import { NotFoundError, ValidationError, type FieldError } from '@patchbay/errors';
import { cursorList, decodeCursor, encodeCursor, parseCursorPageSize, parseDateTimeQuery, type CursorList, type CursorPosition } from '@patchbay/pagination';
import { isUuid } from '@patchbay/service-kit';
import type { Db } from '../db';

/** Merge's RemoteData: the platform path called and the original payload. */
export interface RemoteDataView {
  path: string;
  data: unknown;
}

/** The spec's Marketing Event. */
export interface EventView {
  id: string;
  remote_id: string;
  created_at: string;
  modified_at: string;
  name: string | null;
  description: string | null;
  remote_created_at: string | null;
  start_time: string | null;
  end_time: string | null;
  remote_was_deleted: boolean;
  emails: string[] | null;
  messages: string[] | null;
  field_mappings: Record<string, unknown> | null;
  remote_data: RemoteDataView[] | null;
}

/** The facts file's Merge mktg Contact. */
export interface ContactView {
  id: string;
  remote_id: string;
  created_at: string;
  modified_at: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  state: string | null;
  /** ISO 3166-1 alpha-2, or MERGE_NONSTANDARD_VALUE. */
  country: string | null;
  postal_code: string | null;
  remote_created_at: string | null;
  remote_updated_at: string | null;
  remote_was_deleted: boolean;
  field_mappings: Record<string, unknown> | null;
  remote_data: RemoteDataView[] | null;
}

/** The raw query parameters of a list, as the controller received them. */
export interface ListQuery {
  created_after?: string;
  created_before?: string;
  modified_after?: string;
  modified_before?: string;
  remote_id?: string;
  include_deleted_data?: string;
  include_remote_data?: string;
  include_shell_data?: string;
  cursor?: string;
  page_size?: string;
}

interface ParsedList {
  createdAfter?: Date;
  createdBefore?: Date;
  modifiedAfter?: Date;
  modifiedBefore?: Date;
  remoteId?: string;
  includeDeleted: boolean;
  includeRemote: boolean;
  includeShell: boolean;
  pageSize: number;
  from: CursorPosition | null;
}

export function parseBooleanQuery(field: string, value: string | undefined, errors: FieldError[]): boolean {
  if (value === undefined || value === '') return false;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  errors.push({ field: `query.${field}`, message: 'must be true or false' });
  return false;
}

const CURSOR_FILTERS_DIFFER =
  'was returned for a request with other filters; keep every query parameter except cursor and page_size unchanged while paging, or drop the cursor to start from the first page';

/**
 * Parses a list's parameters. The cursor is bound to the list it came from (linked account, parent and
 * every filter): the binding is part of the opaque cursor and a mismatch is a 400 that says so.
 */
export function parseListQuery(query: ListQuery, binding: { scope: string; allowed: Array<keyof ListQuery> }): ParsedList {
  const errors: FieldError[] = [];
  const allowed = new Set(binding.allowed);
  const date = (field: 'created_after' | 'created_before' | 'modified_after' | 'modified_before') =>
    allowed.has(field) ? parseDateTimeQuery(field, query[field], errors) : undefined;
  const parsed = {
    createdAfter: date('created_after'),
    createdBefore: date('created_before'),
    modifiedAfter: date('modified_after'),
    modifiedBefore: date('modified_before'),
    remoteId: allowed.has('remote_id') && query.remote_id !== undefined && query.remote_id !== '' ? query.remote_id : undefined,
    includeDeleted: parseBooleanQuery('include_deleted_data', query.include_deleted_data, errors),
    includeRemote: parseBooleanQuery('include_remote_data', query.include_remote_data, errors),
    includeShell: parseBooleanQuery('include_shell_data', query.include_shell_data, errors),
  };
  let pageSize = 100;
  try {
    pageSize = parseCursorPageSize(query.page_size);
  } catch (err) {
    if (err instanceof ValidationError) errors.push(...(err.fieldErrors ?? []));
    else throw err;
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const fingerprint = filterFingerprint(binding.scope, parsed);
  let from: CursorPosition | null = null;
  if (query.cursor !== undefined && query.cursor !== '') {
    from = decodeCursor(query.cursor);
    const [createdAt, id, boundTo] = from.key;
    if (from.key.length !== 3 || typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt)) || !isUuid(id)) {
      throw ValidationError.forField('query.cursor', 'is not a cursor this API returned; send the next or previous value of an earlier page unchanged');
    }
    if (boundTo !== fingerprint) throw ValidationError.forField('query.cursor', CURSOR_FILTERS_DIFFER);
  }
  return { ...parsed, pageSize, from };
}

/** Short hash of what a cursor is bound to: the list (account, parent) and every filter. */
function filterFingerprint(scope: string, p: Omit<ParsedList, 'pageSize' | 'from'>): string {
  const canonical = JSON.stringify([
    scope,
    p.createdAfter?.toISOString() ?? null,
    p.createdBefore?.toISOString() ?? null,
    p.modifiedAfter?.toISOString() ?? null,
    p.modifiedBefore?.toISOString() ?? null,
    p.remoteId ?? null,
    p.includeDeleted,
    p.includeRemote,
    p.includeShell,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

const EVENT_COLUMNS = `t.id, t.remote_id, t.created_at, t.modified_at, t.name, t.description, t.remote_created_at, t.start_time, t.end_time,
  t.remote_was_deleted, t.is_shell, t.emails, t.messages, t.field_mappings`;
const CONTACT_COLUMNS = `t.id, t.remote_id, t.created_at, t.modified_at, t.first_name, t.last_name, t.email, t.phone, t.state, t.country, t.postal_code,
  t.remote_created_at, t.remote_updated_at, t.remote_was_deleted, t.is_shell, t.field_mappings`;

type Row = Record<string, unknown> & { id: string; created_at: Date; is_shell: boolean };

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null);

function eventView(r: Row, includeRemote: boolean): EventView {
  const shell = r.is_shell;
  return {
    id: r.id,
    remote_id: r.remote_id as string,
    created_at: r.created_at.toISOString(),
    modified_at: iso(r.modified_at) as string,
    name: (r.name as string | null) ?? null,
    description: (r.description as string | null) ?? null,
    remote_created_at: iso(r.remote_created_at),
    start_time: iso(r.start_time),
    end_time: iso(r.end_time),
    remote_was_deleted: r.remote_was_deleted as boolean,
    emails: shell ? null : (r.emails as string[]),
    messages: shell ? null : (r.messages as string[]),
    field_mappings: (r.field_mappings as Record<string, unknown> | null) ?? null,
    remote_data: includeRemote ? ((r.remote_data as RemoteDataView[] | null) ?? null) : null,
  };
}

function contactView(r: Row, includeRemote: boolean): ContactView {
  return {
    id: r.id,
    remote_id: r.remote_id as string,
    created_at: r.created_at.toISOString(),
    modified_at: iso(r.modified_at) as string,
    first_name: (r.first_name as string | null) ?? null,
    last_name: (r.last_name as string | null) ?? null,
    email: (r.email as string | null) ?? null,
    phone: (r.phone as string | null) ?? null,
    state: (r.state as string | null) ?? null,
    country: (r.country as string | null) ?? null,
    postal_code: (r.postal_code as string | null) ?? null,
    remote_created_at: iso(r.remote_created_at),
    remote_updated_at: iso(r.remote_updated_at),
    remote_was_deleted: r.remote_was_deleted as boolean,
    field_mappings: (r.field_mappings as Record<string, unknown> | null) ?? null,
    remote_data: includeRemote ? ((r.remote_data as RemoteDataView[] | null) ?? null) : null,
  };
}

/**
 * One keyset page in Merge's order: created_at ascending (the order unified-data stored the records,
 * as Merge sorts), ties broken by id. New records always land after the last page, and updates never
 * move a record, so paging while a sync writes skips nothing and repeats nothing.
 */
async function keysetPage(db: Db, sqlFrom: string, params: unknown[], p: ParsedList, columns: string): Promise<Row[]> {
  const where: string[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(clause.replace('?', `$${params.length}`));
  };
  if (!p.includeDeleted) where.push('NOT t.remote_was_deleted');
  if (!p.includeShell) where.push('NOT t.is_shell');
  if (p.createdAfter) add('t.created_at > ?', p.createdAfter);
  if (p.createdBefore) add('t.created_at < ?', p.createdBefore);
  if (p.modifiedAfter) add('t.modified_at > ?', p.modifiedAfter);
  if (p.modifiedBefore) add('t.modified_at < ?', p.modifiedBefore);
  if (p.remoteId !== undefined) add('t.remote_id = ?', p.remoteId);
  const back = p.from?.direction === 'previous';
  if (p.from) {
    params.push(new Date(p.from.key[0] as string), p.from.key[1]);
    where.push(`(t.created_at, t.id) ${back ? '<' : '>'} ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(p.pageSize + 1);
  const order = back ? 'DESC' : 'ASC';
  const sql = `SELECT ${columns}${p.includeRemote ? ', t.remote_data' : ''} FROM ${sqlFrom}
    ${where.length > 0 ? `AND ${where.join(' AND ')}` : ''}
    ORDER BY t.created_at ${order}, t.id ${order} LIMIT $${params.length}`;
  const rows = await db.$queryRawUnsafe<Row[]>(sql, ...params);
  return back ? rows.reverse() : rows;
}

function page<T>(rows: Row[], p: ParsedList, fingerprintScope: string, view: (r: Row) => T): CursorList<T> {
  const fingerprint = filterFingerprint(fingerprintScope, p);
  const list = cursorList(rows, { pageSize: p.pageSize, from: p.from, keyOf: (r) => [r.created_at.toISOString(), r.id, fingerprint] });
  return { next: list.next, previous: list.previous, results: list.results.map(view) };
}

const EVENT_FILTERS: Array<keyof ListQuery> = ['created_after', 'created_before', 'modified_after', 'modified_before', 'remote_id'];

export async function listEvents(db: Db, linkedAccountId: string, query: ListQuery): Promise<CursorList<EventView>> {
  const scope = `events:${linkedAccountId}`;
  const p = parseListQuery(query, { scope, allowed: EVENT_FILTERS });
  const rows = await keysetPage(db, 'events t WHERE t.linked_account_id = $1::uuid', [linkedAccountId], p, EVENT_COLUMNS);
  return page(rows, p, scope, (r) => eventView(r, p.includeRemote));
}

export async function getEvent(db: Db, linkedAccountId: string, id: string, query: Pick<ListQuery, 'include_remote_data' | 'include_shell_data'>): Promise<EventView> {
  const errors: FieldError[] = [];
  const includeRemote = parseBooleanQuery('include_remote_data', query.include_remote_data, errors);
  const includeShell = parseBooleanQuery('include_shell_data', query.include_shell_data, errors);
  if (errors.length > 0) throw new ValidationError(errors);
  const notFound = () => new NotFoundError(`No event ${id} in this linked account.`);
  if (!isUuid(id)) throw notFound();
  const rows = await db.$queryRawUnsafe<Row[]>(
    `SELECT ${EVENT_COLUMNS}${includeRemote ? ', t.remote_data' : ''} FROM events t WHERE t.linked_account_id = $1::uuid AND t.id = $2::uuid`,
    linkedAccountId,
    id,
  );
  const row = rows[0];
  if (!row || (row.is_shell && !includeShell)) throw notFound();
  return eventView(row, includeRemote);
}

export async function listEventContacts(db: Db, linkedAccountId: string, parentId: string, query: ListQuery): Promise<CursorList<ContactView>> {
  const notFound = () => new NotFoundError(`No event ${parentId} in this linked account.`);
  if (!isUuid(parentId)) throw notFound();
  const scope = `contacts:${linkedAccountId}:${parentId}`;
  const p = parseListQuery(query, { scope, allowed: [] });
  const parent = await db.event.findFirst({ where: { id: parentId, linkedAccountId }, select: { id: true } });
  if (!parent) throw notFound();
  const rows = await keysetPage(
    db,
    'event_contacts ec JOIN contacts t ON t.id = ec.contact_id WHERE ec.event_id = $1::uuid',
    [parentId],
    p,
    CONTACT_COLUMNS,
  );
  return page(rows, p, scope, (r) => contactView(r, p.includeRemote));
}

/**
 * The `next` cursor of an events list with these filters, positioned after the event (createdAt, id):
 * what a client holds deep into a walk. For tools (the benchmark jumps a million rows in); clients only
 * ever send back cursors the API returned.
 */
export function eventsCursorAfter(linkedAccountId: string, query: Omit<ListQuery, 'cursor'>, createdAt: Date, id: string): string {
  const scope = `events:${linkedAccountId}`;
  const p = parseListQuery(query, { scope, allowed: EVENT_FILTERS });
  return encodeCursor({ key: [createdAt.toISOString(), id, filterFingerprint(scope, p)], direction: 'next' });
}
