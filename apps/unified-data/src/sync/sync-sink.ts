import type { EventContactLink, FetchedContact, FetchedEvent, SyncPage, SyncSink } from '@patchbay/marketing-platforms';
import type { Db, Tx } from '../db';

/** The run the sink writes for: its checkpoint row is the fence (a superseded run's pages are refused). */
export interface SinkRun {
  linkedAccountId: string;
  runId: string;
}

export class RunSupersededError extends Error {
  constructor() {
    super('the sync run was superseded or its linked account deleted; the page was not written');
    this.name = 'RunSupersededError';
  }
}

/** Keeps the last of each remote_id: one statement may not touch a row twice. */
function lastByRemoteId<T extends { remoteId: string }>(records: T[]): T[] {
  return [...new Map(records.map((r) => [r.remoteId, r])).values()];
}

/**
 * Postgres SQL shared by both record upserts. created_at is the first time unified-data stored the record
 * (millisecond precision, so the list's keyset cursor round-trips through JavaScript exactly, in the
 * order the platform returned the records); modified_at moves only when the content hash changes, or a
 * shell / deleted record comes back. run_writes counts how often the current run wrote the record: more
 * than 1 means a page was written twice.
 */
const CHANGE_SET = `
  modified_at = CASE WHEN t.hash IS DISTINCT FROM EXCLUDED.hash OR t.is_shell OR t.remote_was_deleted THEN EXCLUDED.modified_at ELSE t.modified_at END,
  field_mappings = EXCLUDED.field_mappings,
  remote_data = EXCLUDED.remote_data,
  hash = EXCLUDED.hash,
  is_shell = false,
  remote_was_deleted = false,
  run_writes = CASE WHEN t.last_run_id = EXCLUDED.last_run_id THEN t.run_writes + 1 ELSE 1 END,
  last_run_id = EXCLUDED.last_run_id`;

const NOW_MS = `date_trunc('milliseconds', clock_timestamp())`;

/**
 * created_at of a page's new records: now, but always after every record the account already has. One
 * sync writes an account at a time, so each page's records sort strictly after every committed one and a
 * client paging meanwhile cannot have passed them (two pages within one millisecond would otherwise tie
 * on created_at and interleave by id). Records of one page share it and are ordered by id.
 */
const NEXT_CREATED_AT = (table: 'events' | 'contacts') =>
  `greatest(${NOW_MS}, COALESCE((SELECT max(created_at) FROM ${table} WHERE linked_account_id = $1::uuid), '-infinity'::timestamptz) + interval '1 millisecond')`;

const EVENT_ROW = `ord int, remote_id text, name text, description text, remote_created_at timestamptz, start_time timestamptz,
  end_time timestamptz, emails jsonb, messages jsonb, field_mappings jsonb, remote_data jsonb, hash text`;
const CONTACT_ROW = `ord int, remote_id text, first_name text, last_name text, email text, phone text, state text, country text,
  postal_code text, remote_created_at timestamptz, remote_updated_at timestamptz, field_mappings jsonb, remote_data jsonb, hash text`;

/**
 * For the link ends of one side (`e` events, `c` contacts): `old_<side>`, the rows stored before this
 * statement, and `shell_<side>`, shell rows for ends neither stored nor written by this page.
 */
const SHELLS = (table: 'events' | 'contacts', end: 'e' | 'c', side: 'ev' | 'co') => `
old_${side} AS (SELECT id, remote_id FROM ${table} WHERE linked_account_id = $1::uuid AND remote_id = ANY(ARRAY(SELECT DISTINCT ${end} FROM lk))),
shell_${side} AS (
  INSERT INTO ${table} (id, linked_account_id, remote_id, created_at, modified_at, is_shell)
  SELECT gen_random_uuid(), $1::uuid, x.${end}, (SELECT t FROM base_${side}), ${NOW_MS}, true
  FROM (SELECT DISTINCT ${end} FROM lk) x
  WHERE EXISTS (SELECT 1 FROM fence) AND x.${end} NOT IN (SELECT remote_id FROM ${side}) AND x.${end} NOT IN (SELECT remote_id FROM old_${side})
  ON CONFLICT (linked_account_id, remote_id) DO NOTHING
  RETURNING id, remote_id
)`;

/** Records this run saw unchanged: only the run's bookkeeping moves (no new content, so no JSON to send, parse or store). */
const TOUCH = (table: 'events' | 'contacts', param: string, side: 'ev' | 'co') => `
touch_${side} AS (
  UPDATE ${table} AS t SET run_writes = CASE WHEN t.last_run_id = $2::uuid THEN t.run_writes + 1 ELSE 1 END, last_run_id = $2::uuid
  WHERE t.linked_account_id = $1::uuid AND t.remote_id = ANY(${param}::text[]) AND EXISTS (SELECT 1 FROM fence)
  RETURNING t.id, t.remote_id
)`;

/**
 * One page as ONE statement (one round trip, atomic by itself): the checkpoint update that fences the
 * run, the event and contact upserts, shell records for link ends not stored yet, and the links. Every
 * write is conditioned on the fence, so a superseded run's page writes nothing. Sub-statements share one
 * snapshot, so rows this statement inserts are found through RETURNING, older ones by lookup.
 */
const PAGE_SQL = `
WITH base_ev AS (SELECT ${NEXT_CREATED_AT('events')} AS t),
base_co AS (SELECT ${NEXT_CREATED_AT('contacts')} AS t),
fence AS (
  UPDATE sync_runs SET checkpoint = $3::jsonb, pages_written = pages_written + $9::int
  WHERE linked_account_id = $1::uuid AND run_id = $2::uuid
  RETURNING 1
),
ev AS (
  INSERT INTO events AS t (id, linked_account_id, remote_id, created_at, modified_at, name, description, remote_created_at, start_time, end_time,
    emails, messages, field_mappings, remote_data, hash, is_shell, remote_was_deleted, last_run_id, run_writes)
  SELECT gen_random_uuid(), $1::uuid, r.remote_id, (SELECT t FROM base_ev), ${NOW_MS}, r.name, r.description, r.remote_created_at, r.start_time, r.end_time,
    COALESCE(r.emails, '[]'::jsonb), COALESCE(r.messages, '[]'::jsonb), r.field_mappings, r.remote_data, r.hash, false, false, $2::uuid, 1
  FROM jsonb_to_recordset($4::jsonb) AS r(${EVENT_ROW})
  WHERE EXISTS (SELECT 1 FROM fence)
  ORDER BY r.ord
  ON CONFLICT (linked_account_id, remote_id) DO UPDATE SET
    name = EXCLUDED.name, description = EXCLUDED.description, remote_created_at = EXCLUDED.remote_created_at,
    start_time = EXCLUDED.start_time, end_time = EXCLUDED.end_time, emails = EXCLUDED.emails, messages = EXCLUDED.messages,
    ${CHANGE_SET}
  RETURNING t.id, t.remote_id
),
co AS (
  INSERT INTO contacts AS t (id, linked_account_id, remote_id, created_at, modified_at, first_name, last_name, email, phone, state, country, postal_code,
    remote_created_at, remote_updated_at, field_mappings, remote_data, hash, is_shell, remote_was_deleted, last_run_id, run_writes)
  SELECT gen_random_uuid(), $1::uuid, r.remote_id, (SELECT t FROM base_co), ${NOW_MS}, r.first_name, r.last_name, r.email, r.phone, r.state, r.country, r.postal_code,
    r.remote_created_at, r.remote_updated_at, r.field_mappings, r.remote_data, r.hash, false, false, $2::uuid, 1
  FROM jsonb_to_recordset($5::jsonb) AS r(${CONTACT_ROW})
  WHERE EXISTS (SELECT 1 FROM fence)
  ORDER BY r.ord
  ON CONFLICT (linked_account_id, remote_id) DO UPDATE SET
    first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, email = EXCLUDED.email, phone = EXCLUDED.phone, state = EXCLUDED.state,
    country = EXCLUDED.country, postal_code = EXCLUDED.postal_code, remote_created_at = EXCLUDED.remote_created_at,
    remote_updated_at = EXCLUDED.remote_updated_at,
    ${CHANGE_SET}
  RETURNING t.id, t.remote_id
),
${TOUCH('events', '$7', 'ev')},
${TOUCH('contacts', '$8', 'co')},
lk AS (SELECT DISTINCT r.e, r.c FROM jsonb_to_recordset($6::jsonb) AS r(e text, c text)),
${SHELLS('events', 'e', 'ev')},
${SHELLS('contacts', 'c', 'co')},
all_ev AS (SELECT id, remote_id FROM ev UNION SELECT id, remote_id FROM touch_ev UNION SELECT id, remote_id FROM old_ev UNION SELECT id, remote_id FROM shell_ev),
all_co AS (SELECT id, remote_id FROM co UNION SELECT id, remote_id FROM touch_co UNION SELECT id, remote_id FROM old_co UNION SELECT id, remote_id FROM shell_co),
links AS (
  INSERT INTO event_contacts (event_id, contact_id, linked_account_id)
  SELECT DISTINCT e.id, c.id, $1::uuid
  FROM lk JOIN all_ev e ON e.remote_id = lk.e JOIN all_co c ON c.remote_id = lk.c
  WHERE EXISTS (SELECT 1 FROM fence)
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT (SELECT count(*) FROM fence)::int AS fenced, (SELECT count(*) FROM links)::int AS linked`;

function eventRows(events: FetchedEvent[]): string {
  return JSON.stringify(
    lastByRemoteId(events).map((e, ord) => ({
      ord,
      remote_id: e.remoteId,
      name: e.fields.name,
      description: e.fields.description,
      remote_created_at: e.fields.remote_created_at,
      start_time: e.fields.start_time,
      end_time: e.fields.end_time,
      emails: e.fields.emails,
      messages: e.fields.messages,
      field_mappings: e.fieldMappings,
      remote_data: e.remoteData,
      hash: e.hash,
    })),
  );
}

function contactRows(contacts: FetchedContact[]): string {
  return JSON.stringify(
    lastByRemoteId(contacts).map((c, ord) => ({ ord, remote_id: c.remoteId, ...c.fields, field_mappings: c.fieldMappings, remote_data: c.remoteData, hash: c.hash })),
  );
}

const linkRows = (links: EventContactLink[]) => JSON.stringify(links.map((l) => ({ e: l.eventRemoteId, c: l.contactRemoteId })));

/**
 * The stored hash of each of a batch's records that is neither a shell nor marked deleted: one index scan
 * (`remote_id = ANY(...)` on the (linked_account_id, remote_id) key); the sink compares them with what it
 * fetched. (A join with unnest() of the fetched pairs was planned as a scan of the account's rows.)
 */
const STORED_HASHES_SQL = (table: 'events' | 'contacts') => `
SELECT remote_id, hash FROM ${table} WHERE linked_account_id = $1::uuid AND remote_id = ANY($2::text[]) AND NOT is_shell AND NOT remote_was_deleted`;

/** What one statement writes: one or more pages in order, with the checkpoint of the last. */
interface Batch {
  events: FetchedEvent[];
  contacts: FetchedContact[];
  links: EventContactLink[];
  checkpoint: SyncPage['checkpoint'];
  pages: number;
}

function batchOf(pages: SyncPage[]): Batch {
  return {
    events: pages.flatMap((p) => p.events),
    contacts: pages.flatMap((p) => p.contacts),
    links: pages.flatMap((p) => p.links),
    checkpoint: pages[pages.length - 1]!.checkpoint,
    pages: pages.length,
  };
}

export interface SinkOptions {
  /**
   * Pages wait (while the previous write runs) and are written together, up to about this many records
   * per statement; a page that would go past it waits for the write in progress (default 1000).
   */
  batchRecords?: number;
  /**
   * Whether records seen unchanged are marked as seen by this run (default true). A full pass must:
   * deletes are judged by what it did not see. An incremental pass judges nothing, so the rows it finds
   * unchanged are left alone (no write at all).
   */
  touchUnchanged?: boolean;
}

/**
 * The SyncSink of one run. Every statement writes whole pages and the checkpoint of the last of them
 * atomically, so a sync killed at any point resumes after the last committed page and writes nothing
 * twice. The checkpoint update names the run: a run that was superseded (or whose account was deleted)
 * writes nothing.
 *
 * Writes are pipelined: `writePage` queues the page and returns while an earlier write is still running
 * (the walk fetches on meanwhile), and the pages that queued up during one write go out together in the
 * next statement. Records a page repeats unchanged (same hash) are not sent again: one read of the stored
 * hashes per statement picks them out. A failed write surfaces on the next `writePage` or on `flush`,
 * which the caller awaits before it trusts the walk's outcome.
 */
export class PostgresSyncSink implements SyncSink {
  pages = 0;
  records = 0;
  /** Statements written (each one or more pages). */
  statements = 0;
  private queued: SyncPage[] = [];
  private queuedRecords = 0;
  private writing: Promise<void> | null = null;
  private failure: Error | null = null;
  private readonly batchRecords: number;
  private readonly touchUnchanged: boolean;

  constructor(
    private readonly db: Db,
    private readonly run: SinkRun,
    private readonly signal?: AbortSignal,
    options: SinkOptions = {},
  ) {
    this.batchRecords = Math.max(1, options.batchRecords ?? 1000);
    this.touchUnchanged = options.touchUnchanged ?? true;
  }

  async writePage(page: SyncPage): Promise<void> {
    this.throwIfFailed();
    if (this.signal?.aborted) throw new RunSupersededError();
    // Room for it in the next statement, or wait for the write in progress (the walk must not run far ahead of what is stored).
    while (this.writing && this.queuedRecords > 0 && this.queuedRecords + recordsOf(page) > this.batchRecords) await this.writing;
    this.throwIfFailed();
    this.queued.push(page);
    this.queuedRecords += recordsOf(page);
    this.writing ??= this.drain();
  }

  /** Waits until every page handed over is committed; throws what a write failed with. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queued.length > 0 && !this.failure) {
        const pages = this.queued;
        this.queued = [];
        this.queuedRecords = 0;
        try {
          if (this.signal?.aborted) throw new RunSupersededError();
          await this.write(batchOf(pages));
          this.pages += pages.length;
          this.records += pages.reduce((n, p) => n + recordsOf(p), 0);
        } catch (err) {
          this.failure = err instanceof Error ? err : new Error(String(err));
          this.queued = [];
          this.queuedRecords = 0;
        }
      }
    } finally {
      this.writing = null;
    }
  }

  private async unchanged(table: 'events' | 'contacts', records: Array<FetchedEvent | FetchedContact>): Promise<Set<string>> {
    if (records.length === 0) return new Set();
    const rows = await this.db.$queryRawUnsafe<Array<{ remote_id: string; hash: string | null }>>(
      STORED_HASHES_SQL(table),
      this.run.linkedAccountId,
      records.map((r) => r.remoteId),
    );
    const stored = new Map(rows.map((r) => [r.remote_id, r.hash]));
    return new Set(records.filter((r) => stored.get(r.remoteId) === r.hash).map((r) => r.remoteId));
  }

  private async write(batch: Batch): Promise<void> {
    const events = lastByRemoteId(batch.events);
    const contacts = lastByRemoteId(batch.contacts);
    const [sameEvents, sameContacts] = [await this.unchanged('events', events), await this.unchanged('contacts', contacts)];
    const [result] = await this.db.$queryRawUnsafe<Array<{ fenced: number }>>(
      PAGE_SQL,
      this.run.linkedAccountId,
      this.run.runId,
      JSON.stringify(batch.checkpoint ?? null),
      eventRows(events.filter((e) => !sameEvents.has(e.remoteId))),
      contactRows(contacts.filter((c) => !sameContacts.has(c.remoteId))),
      linkRows(batch.links),
      this.touchUnchanged ? [...sameEvents] : [],
      this.touchUnchanged ? [...sameContacts] : [],
      batch.pages,
    );
    if (result?.fenced !== 1) throw new RunSupersededError();
    this.statements += 1;
  }
}

const recordsOf = (page: SyncPage) => page.events.length + page.contacts.length;

/**
 * After a complete, successful full pass: what the pass did not see is gone from the platform.
 * Shell records were never fetched, so they are not judged.
 */
export async function markMissingAsDeleted(db: Db | Tx, run: SinkRun, options: { contacts?: boolean } = {}): Promise<{ events: number; contacts: number }> {
  const mark = (table: 'events' | 'contacts') =>
    db.$executeRawUnsafe(
      `UPDATE ${table} SET remote_was_deleted = true, modified_at = ${NOW_MS}
       WHERE linked_account_id = $1::uuid AND NOT is_shell AND NOT remote_was_deleted AND last_run_id IS DISTINCT FROM $2::uuid`,
      run.linkedAccountId,
      run.runId,
    );
  // Contacts not walked (the model is disabled) are not judged.
  return { events: await mark('events'), contacts: options.contacts === false ? 0 : await mark('contacts') };
}
