import { randomUUID } from 'node:crypto';
import { PlatformError } from './errors';
import { EVENTBRITE_FIELDS, EventbriteClient, eventbriteProtocol } from './eventbrite';
import { HUBSPOT_FIELDS, HubspotClient, hubspotProtocol } from './hubspot';
import { PlatformHttp, withOAuthRefresh, type PlatformProtocol } from './http';
import type { ContactsPage, EventContext, PlatformClient, SupportedFields } from './platform';
import type {
  AccountInfo,
  Checkpoint,
  EventContactLink,
  FetchedContact,
  FetchedEvent,
  FieldMapping,
  Platform,
  PlatformConnection,
  RequestGate,
  RunSyncOptions,
  SyncModel,
  SyncOutcome,
  SyncPage,
  SyncTuning,
} from './types';
import { ZOOM_FIELDS, ZoomClient, zoomProtocol } from './zoom';

export const PLATFORMS: readonly Platform[] = ['hubspot', 'zoom', 'eventbrite'];

/** Requests in flight at once: the next page, and the first contact pages of the next events. */
const DEFAULT_CONCURRENCY = 2;

const FIELDS: Record<Platform, SupportedFields> = { hubspot: HUBSPOT_FIELDS, zoom: ZOOM_FIELDS, eventbrite: EVENTBRITE_FIELDS };

/** Where one listing stands: the token of its next page, and the last item already written (to skip to after an expired token). */
interface ListPosition {
  cursor: string | null;
  lastId: string | null;
}

/**
 * The checkpoint of a pass (opaque to the app). The walk is nested: the events listing of each scope
 * (Eventbrite organization, Zoom user), and for each event of the last written events page, its
 * contact listings in order. Written with every page, so a pass killed anywhere resumes at the first
 * page not yet written.
 */
interface PassCheckpoint {
  v: 1;
  platform: Platform;
  kind: 'full' | 'incremental';
  passId: string;
  /** The incremental filter the pass started with (kept, so a resume filters the same way). */
  modifiedSince: string | null;
  /** The scopes to walk, listed once at the start of the pass. */
  scopes: string[];
  /** The scope whose events listing comes next; `scopes.length` when every events listing is done. */
  scope: number;
  events: ListPosition;
  /** Events already written whose contacts are not all written yet; the first is in progress. */
  pending: Array<{ id: string; ctx: EventContext }>;
  /** Within `pending[0]`: which contact listing, and where in it. */
  contacts: ListPosition & { listing: number };
  /** Consecutive 429s that had to be backed off on our own (the backoff doubles with it). */
  rateStreak: number;
  /** Contact listings of this pass the platform refused with an unexpected error, skipped so the rest syncs. */
  skipped?: number;
}

function isPassCheckpoint(value: unknown, platform: Platform, kind: 'full' | 'incremental'): value is PassCheckpoint {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Partial<PassCheckpoint>;
  return (
    c.v === 1 &&
    c.platform === platform &&
    c.kind === kind &&
    typeof c.passId === 'string' &&
    Array.isArray(c.scopes) &&
    typeof c.scope === 'number' &&
    Array.isArray(c.pending) &&
    typeof c.events === 'object' &&
    c.events !== null &&
    typeof c.contacts === 'object' &&
    c.contacts !== null
  );
}

interface Connected {
  client: PlatformClient;
  http: PlatformHttp;
}

function connect(conn: PlatformConnection, fieldMappings: FieldMapping[], tuning: SyncTuning, signal?: AbortSignal, gate?: RequestGate): Connected {
  const now = tuning.now ?? (() => new Date());
  // Zoom's protocol fetches its token through the same HTTP client it is part of.
  const holder: { http?: PlatformHttp } = {};
  let protocol: PlatformProtocol;
  switch (conn.platform) {
    case 'hubspot':
      protocol = hubspotProtocol(conn.credentials);
      break;
    case 'zoom':
      protocol = zoomProtocol(conn, now, () => holder.http!);
      break;
    case 'eventbrite':
      protocol = eventbriteProtocol(conn.credentials);
      break;
    default:
      throw new PlatformError('failed', `Unknown platform ${String(conn.platform)}: use one of ${PLATFORMS.join(', ')}.`);
  }
  protocol = withOAuthRefresh(protocol, conn, now);
  const http = new PlatformHttp(conn, protocol, tuning, signal, gate);
  holder.http = http;
  const options = { http, credentials: conn.credentials, fieldMappings, pageSize: tuning.pageSize };
  const client = conn.platform === 'hubspot' ? new HubspotClient(options) : conn.platform === 'zoom' ? new ZoomClient(options, now) : new EventbriteClient(options);
  return { client, http };
}

/**
 * Checks a connection's credentials with one cheap call (HubSpot account details or one event, Zoom
 * `/users/me`, Eventbrite `/users/me/`). Throws `PlatformError`: `credentials_invalid` for credentials
 * the platform refuses, `rate_limited` / `transient` when it cannot tell right now.
 */
export async function verifyCredentials(conn: PlatformConnection, options: { tuning?: SyncTuning; signal?: AbortSignal } = {}): Promise<AccountInfo> {
  const { client } = connect(conn, [], options.tuning ?? {}, options.signal);
  return client.verify();
}

/** The platform field paths a field mapping may name for a model (`x.*`: any key below `x`). */
export function supportedFieldsFor(platform: Platform, model: SyncModel): string[] {
  const fields = FIELDS[platform]?.[model];
  if (!fields) throw new Error(`Unknown platform or model: ${platform} ${model}`);
  return [...fields];
}

/**
 * Whether `remotePath` is one a field mapping may use: a supported path, a path below one, or a name
 * under a `*` entry. Returns the reason when not, in words to show the caller.
 */
export function checkFieldMapping(platform: Platform, mapping: Pick<FieldMapping, 'model' | 'remotePath' | 'target'>): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(mapping.target)) return `target "${mapping.target}" must be a name of letters, digits and underscores`;
  const path = mapping.remotePath;
  if (path === '' || path.split('.').some((p) => p === '')) return `remote path "${path}" must be dot-separated names`;
  const fields = supportedFieldsFor(platform, mapping.model);
  const ok = fields.some((f) => (f.endsWith('.*') ? path.startsWith(f.slice(0, -1)) && path.length > f.length - 1 : path === f || path.startsWith(`${f}.`)));
  return ok ? null : `remote path "${path}" is not a ${platform} ${mapping.model} field; use one of: ${fields.join(', ')}`;
}

/**
 * Walks a platform: each events page, then the contacts of each of its events, one page at a time,
 * handing every page to the sink with a checkpoint that resumes after it. Returns when the walk ends,
 * or promptly on a rate limit, dead credentials, or a transient failure that outlasted a few short
 * retries. Never sleeps longer than `tuning.maxInlineWaitMs` for a 429.
 */
export async function runSync(opts: RunSyncOptions): Promise<SyncOutcome> {
  const tuning = opts.tuning ?? {};
  let cp: PassCheckpoint | undefined;
  let connected: Connected;
  // Requests fetched ahead are cancelled and settled before runSync returns: none outlives the call.
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  const started = new Set<Promise<unknown>>();
  try {
    connected = connect(opts.conn, opts.fieldMappings, tuning, signal, opts.gate);
  } catch (err) {
    return { kind: 'failed', message: (err as Error).message };
  }
  const { client, http } = connected;
  try {
    if (isPassCheckpoint(opts.checkpoint, opts.conn.platform, opts.kind)) {
      cp = structuredClone(opts.checkpoint);
      http.rateStreak = cp.rateStreak ?? 0;
    } else {
      const since = opts.kind === 'incremental' && opts.modifiedSince ? opts.modifiedSince.toISOString() : null;
      const scopes = await client.scopes();
      cp = {
        v: 1,
        platform: opts.conn.platform,
        kind: opts.kind,
        passId: randomUUID(),
        modifiedSince: since,
        scopes,
        scope: 0,
        events: { cursor: null, lastId: null },
        pending: [],
        contacts: { listing: 0, cursor: null, lastId: null },
        rateStreak: http.rateStreak,
      };
    }
    const state = cp;
    const withContacts = opts.models === undefined || opts.models.includes('contacts');
    const since = state.modifiedSince ? new Date(state.modifiedSince) : null;
    const snapshot = (): Checkpoint => structuredClone({ ...state, rateStreak: http.rateStreak });
    const write = async (page: Omit<SyncPage, 'checkpoint' | 'passId'>, checkpoint: Checkpoint) => {
      try {
        await opts.sink.writePage({ ...page, checkpoint, passId: state.passId });
      } catch (err) {
        throw new SinkError((err as Error).message);
      }
    };

    type Fetched =
      | { kind: 'contacts'; eventId: string; page: ContactsPage; lastId: string | null; skipped?: boolean }
      | { kind: 'events'; page: { items: Array<{ itemId: string; event: FetchedEvent; ctx: EventContext }>; next: string | null }; lastId: string | null };

    const contactsFetch = (event: { id: string; ctx: EventContext }, listingIndex: number, pos: ListPosition) => async (): Promise<Fetched> => {
      const listing = client.listings[listingIndex]!;
      try {
        const { page, lastId } = await resumeListing(pos, (cursor) => client.contactsPage(event.id, event.ctx, listing, cursor, since));
        return { kind: 'contacts', eventId: event.id, page, lastId };
      } catch (err) {
        // One event's listing answering an unexpected 4xx must not stop every other event's contacts:
        // skip the rest of it and say so in the outcome (credentials, limits and outages still stop the run).
        if (!(err instanceof PlatformError) || err.kind !== 'failed') throw err;
        return { kind: 'contacts', eventId: event.id, page: { items: [], next: null }, lastId: null, skipped: true };
      }
    };
    /** First contact pages of the events after the current one, fetched ahead (they are written in order all the same). */
    const ahead = new Map<string, Promise<Fetched>>();
    const concurrency = Math.max(1, Math.floor(tuning.concurrency ?? DEFAULT_CONCURRENCY));
    const fetchAhead = () => {
      for (let i = 1; i < state.pending.length && ahead.size < concurrency - 1; i += 1) {
        const event = state.pending[i]!;
        if (!ahead.has(event.id)) ahead.set(event.id, start(contactsFetch(event, 0, { cursor: null, lastId: null }))!);
      }
    };

    /** The next page to fetch from where `state` stands, or null when the pass is over. Skips listings with nothing left. */
    const planNext = (): (() => Promise<Fetched>) | null => {
      // The contacts of the events already written come first.
      while (state.pending.length > 0) {
        const event = state.pending[0]!;
        if (client.listings[state.contacts.listing] === undefined) {
          state.pending.shift();
          state.contacts = { listing: 0, cursor: null, lastId: null };
          continue;
        }
        const pos = { ...state.contacts };
        const early = state.contacts.listing === 0 && pos.cursor === null && pos.lastId === null ? ahead.get(event.id) : undefined;
        if (early) {
          ahead.delete(event.id);
          return () => early;
        }
        return contactsFetch(event, state.contacts.listing, pos);
      }
      if (state.scope >= state.scopes.length) return null;
      const scope = state.scopes[state.scope]!;
      const pos = { ...state.events };
      return async () => {
        const { page, lastId } = await resumeListing(pos, async (cursor) => {
          const p = await client.eventsPage(scope, cursor);
          return { next: p.next, items: p.events.map((e, i) => ({ itemId: e.remoteId, event: e, ctx: p.contexts[i] ?? {} })) };
        });
        return { kind: 'events', page, lastId };
      };
    };

    /** Starts a fetch now (so it runs while the sink stores the previous page); its failure surfaces when awaited. */
    const start = (fetchPage: (() => Promise<Fetched>) | null): Promise<Fetched> | null => {
      if (!fetchPage) return null;
      const promise = fetchPage();
      const settled: Promise<void> = promise.then(
        (): void => void started.delete(settled),
        (): void => void started.delete(settled),
      );
      started.add(settled);
      return promise;
    };

    let inflight = start(planNext());
    while (inflight) {
      const fetched = await inflight;
      let page: Omit<SyncPage, 'checkpoint' | 'passId'> | null = null;
      if (fetched.kind === 'contacts') {
        if (fetched.skipped) state.skipped = (state.skipped ?? 0) + 1;
        const { contacts, links } = collect(fetched.eventId, fetched.page);
        if (fetched.page.next) state.contacts = { listing: state.contacts.listing, cursor: fetched.page.next, lastId: fetched.lastId ?? state.contacts.lastId };
        else if (state.contacts.listing + 1 < client.listings.length) state.contacts = { listing: state.contacts.listing + 1, cursor: null, lastId: null };
        else {
          state.pending.shift();
          state.contacts = { listing: 0, cursor: null, lastId: null };
        }
        // A last page with nothing on it moves the position only; the next write carries it.
        if (contacts.length > 0 || fetched.page.next) page = { model: 'contacts', events: [], contacts, links };
      } else {
        state.pending = withContacts ? fetched.page.items.map((i) => ({ id: i.event.remoteId, ctx: i.ctx })) : [];
        state.contacts = { listing: 0, cursor: null, lastId: null };
        if (fetched.page.next) state.events = { cursor: fetched.page.next, lastId: fetched.lastId ?? state.events.lastId };
        else {
          state.scope += 1;
          state.events = { cursor: null, lastId: null };
        }
        if (fetched.page.items.length > 0 || fetched.page.next) page = { model: 'events', events: fetched.page.items.map((i) => i.event), contacts: [], links: [] };
      }
      // The next page is fetched while this one is stored: the checkpoint written is the state after this page, whatever the fetch does.
      const checkpointed = page ? snapshot() : null;
      inflight = start(planNext());
      fetchAhead();
      if (page && checkpointed) await write(page, checkpointed);
    }
    const skipped = state.skipped ?? 0;
    if (skipped > 0) return { kind: 'done', completeFullPass: false, passId: state.passId, skippedListings: skipped };
    return { kind: 'done', completeFullPass: state.kind === 'full', passId: state.passId };
  } catch (err) {
    return outcomeOf(err, cp, http);
  } finally {
    stop.abort();
    await Promise.allSettled([...started]);
  }
}

class SinkError extends Error {}

/** The records of a contacts page: each contact once, linked to its event once. */
function collect(eventId: string, page: ContactsPage): { contacts: FetchedContact[]; links: EventContactLink[] } {
  const contacts = new Map<string, FetchedContact>();
  for (const { contact } of page.items) if (contact) contacts.set(contact.remoteId, contact);
  return { contacts: [...contacts.values()], links: [...contacts.keys()].map((contactRemoteId) => ({ eventRemoteId: eventId, contactRemoteId })) };
}

/**
 * Fetches the next page of a listing at `pos`. When the platform no longer takes the page token
 * (expired, or invalid after a change), the listing starts again from its top and skips the items
 * up to and including `pos.lastId`, the last one already written, so nothing is written twice and
 * nothing is skipped. Should that item have gone meanwhile, the listing is read again from the top
 * without skipping (the sink is idempotent by remote id; skipping could lose records).
 */
async function resumeListing<T extends { itemId: string }>(pos: ListPosition, fetchPage: (cursor: string | null) => Promise<{ items: T[]; next: string | null }>): Promise<{ page: { items: T[]; next: string | null }; lastId: string | null }> {
  const last = (items: T[]) => (items.length > 0 ? items[items.length - 1]!.itemId : null);
  try {
    const page = await fetchPage(pos.cursor);
    return { page, lastId: last(page.items) };
  } catch (err) {
    if (!(err instanceof PlatformError) || err.kind !== 'page_token_expired' || pos.cursor === null) throw err;
  }
  if (pos.lastId !== null) {
    let cursor: string | null = null;
    do {
      const page = await fetchPage(cursor);
      const at = page.items.findIndex((i) => i.itemId === pos.lastId);
      if (at >= 0) {
        const rest = { items: page.items.slice(at + 1), next: page.next };
        return { page: rest, lastId: last(rest.items) ?? pos.lastId };
      }
      cursor = page.next;
    } while (cursor);
  }
  const page = await fetchPage(null);
  return { page, lastId: last(page.items) };
}

function outcomeOf(err: unknown, cp: PassCheckpoint | undefined, http: PlatformHttp): SyncOutcome {
  const checkpoint = (): Checkpoint => (cp ? structuredClone({ ...cp, rateStreak: http.rateStreak }) : null);
  if (err instanceof SinkError) return { kind: 'failed', message: `The sink could not store a page: ${err.message}` };
  if (!(err instanceof PlatformError)) return { kind: 'failed', message: `Unexpected error: ${(err as Error)?.message ?? String(err)}` };
  switch (err.kind) {
    case 'rate_limited':
      return { kind: 'rate_limited', retryAt: err.retryAt ?? new Date(http.tuning.now().getTime() + 60_000), checkpoint: checkpoint(), message: err.message };
    case 'credentials_invalid':
      return { kind: 'credentials_invalid', message: err.message };
    case 'transient':
    case 'aborted':
      return { kind: 'transient', message: err.message, checkpoint: checkpoint() };
    default:
      return { kind: 'failed', message: err.message };
  }
}
