import { FakeRoutes, bearerToken, type FakeReply, type FakeRequest } from './fake-server';
import { ChildCollections, LazyCollection, SequenceRanges } from './lazy-collection';
import { createFakeClock, type FakeClock, type FakeClockOptions } from './platform-clock';
import { addControlRoutes } from './platform-control';
import { FaultQueue, type FaultControl } from './platform-faults';
import { RateLimiter, type RateBucketSpec } from './platform-limits';
import { addOAuthRoutes, type FakeOAuthApp, type FakeOAuthControl } from './platform-oauth';
import { startPlatformServer, type PlatformLoggedRequest, type PlatformRequest } from './platform-server';
import { decodePageToken, encodePageToken, fingerprint, makeToken } from './platform-tokens';
import { eventTitle, isoSeconds, mix, person, seedTimeline, type Person } from './seed-data';

/**
 * A fake of Eventbrite's API v3 for what a marketing sync reads: the user's organizations, each
 * organization's events and each event's attendees. Real paths under `/v3`, Bearer (or `?token=`)
 * private/OAuth tokens, `{error, error_description, status_code}` errors, `continuation` /
 * `has_more_items` pagination of about 50 per page, `status` / `order_by` / `time_filter` on events,
 * `changed_since` / `status` on attendees, hourly and daily limits answered with HIT_RATE_LIMIT, and
 * a test API to seed, change and fault it. See the package README.
 */

/** The token of the account every fake Eventbrite starts with. */
export const EVENTBRITE_FAKE_TOKENS = {
  valid: 'EBFAKEPRIVATETOKEN00001',
} as const;

/** Limits by name: `published` is Eventbrite's documented 2,000 calls an hour and 48,000 a day per token. */
export type EventbriteLimits = 'unlimited' | 'published' | { perHour?: number; perDay?: number };

export interface FakeEventbriteOptions {
  /** Default `unlimited`; a test of throttling picks `published` or its own numbers, or queues `faults.rateLimit`. */
  limits?: EventbriteLimits;
  clock?: FakeClock | FakeClockOptions;
  /** Keep every request in `requests` (default true). */
  recordRequests?: boolean;
  /** Awaited before every answer (a real API's latency), for benchmarks. */
  latency?: () => Promise<void>;
  /** Port to listen on (default: any free port). */
  port?: number;
  /** Serve the test controls under `/__fake/` (default false; the CLI turns them on). */
  control?: boolean;
  /** The OAuth app's client id and secret (default: made up; read them from `oauth.app`). */
  oauthApp?: FakeOAuthApp;
}

export interface EventbriteSeedOptions {
  events: number;
  attendeesPerEvent: number;
  /** The organization to add them to (default the account's first). */
  organizationId?: string;
  /**
   * How many different people attend, across all seeded events of the fake (default: every attendee
   * is a different person). With fewer, the same person (same email) attends several events.
   */
  distinctPeople?: number;
  /** Share of the events that are already over at seeding time (default 0.5). */
  pastShare?: number;
  /** Varies the made-up names (default 1). */
  seed?: number;
}

export interface EventbriteEventInput {
  organizationId?: string;
  name?: string;
  description?: string;
  /** Epoch ms (default: a day after now). */
  start?: number;
  /** Epoch ms (default: an hour after start). */
  end?: number;
  status?: EventbriteEventStatus;
  onlineEvent?: boolean;
  attendees?: number;
}

export interface EventbriteAttendeeInput {
  firstName?: string;
  lastName?: string;
  email?: string;
  cellPhone?: string;
  address?: Partial<EventbriteAddress>;
}

export type EventbriteEventStatus = 'draft' | 'live' | 'started' | 'ended' | 'completed' | 'canceled';

export interface EventbriteAddress {
  address_1: string | null;
  address_2: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string | null;
}

/** One Eventbrite user, with its token and organizations: what a linked account points at. */
export interface FakeEventbriteAccount {
  userId: string;
  token: string;
  organizationIds(): string[];
  createOrganization(name?: string): { id: string; name: string };
  /** Adds `events` events with `attendeesPerEvent` attendees each, made on demand (100,000 records seed in milliseconds). */
  seed(options: EventbriteSeedOptions): { organizationId: string; firstEventId: string; lastEventId: string };
  createEvent(input?: EventbriteEventInput): EventbriteEventJson;
  /** Changes an event; its `changed` moves. */
  updateEvent(eventId: string, patch: Omit<EventbriteEventInput, 'organizationId' | 'attendees'>): EventbriteEventJson;
  /** Cancels an event: it keeps its id with `status: "canceled"` and leaves the default event list (`status=all` shows it). */
  cancelEvent(eventId: string): EventbriteEventJson;
  /** Deletes an event: it is gone from every list and its URLs answer 404. */
  deleteEvent(eventId: string): void;
  addAttendee(eventId: string, input?: EventbriteAttendeeInput): EventbriteAttendeeJson;
  /** Changes an attendee's profile; its `changed` moves. */
  updateAttendee(eventId: string, attendeeId: string, patch: EventbriteAttendeeInput): EventbriteAttendeeJson;
  /** Marks an attendee cancelled (or refunded): it stays listed with `cancelled: true`, status "Not Attending". */
  cancelAttendee(eventId: string, attendeeId: string, options?: { refunded?: boolean }): EventbriteAttendeeJson;
  /** Removes an attendee (a deleted order): gone from the list. */
  deleteAttendee(eventId: string, attendeeId: string): void;
  getEvent(eventId: string): EventbriteEventJson | undefined;
  /** Every event of an organization as the API shows it with `status=all`, oldest first (for test expectations). */
  allEvents(organizationId?: string): EventbriteEventJson[];
  /** Every attendee of an event, oldest first. */
  allAttendees(eventId: string): EventbriteAttendeeJson[];
  /** The token stops working: every call with it answers 401 INVALID_AUTH. */
  revokeToken(): void;
}

export interface FakeEventbrite {
  /** Server root. */
  url: string;
  /** What `PATCHBAY_MKTG_EVENTBRITE_BASE_URL` is set to (`${url}/v3`, like https://www.eventbriteapi.com/v3). */
  baseUrl: string;
  requests: PlatformLoggedRequest[];
  clock: FakeClock;
  faults: FaultControl;
  limits: { set(limits: EventbriteLimits): void };
  /** The account the fake starts with; its token is EVENTBRITE_FAKE_TOKENS.valid. */
  account: FakeEventbriteAccount;
  createAccount(options?: { name?: string; email?: string }): FakeEventbriteAccount;
  /** The OAuth app (code grant with PKCE; tokens never expire, no refresh grant). */
  oauth: FakeOAuthControl<FakeEventbriteAccount>;
  /** What `PATCHBAY_MKTG_EVENTBRITE_AUTHORIZE_URL` is set to (like https://www.eventbrite.com/oauth/authorize). */
  authorizeUrl: string;
  /** What `PATCHBAY_MKTG_EVENTBRITE_TOKEN_URL` is set to (like https://www.eventbrite.com/oauth/token). */
  oauthTokenUrl: string;
  close(): Promise<void>;
}

export type EventbriteEventJson = Record<string, unknown> & { id: string; changed: string; status: EventbriteEventStatus };
export type EventbriteAttendeeJson = Record<string, unknown> & { id: string; changed: string; event_id: string; cancelled: boolean };

interface EventRec {
  seq: number;
  org: Org;
  title: string;
  summary: string;
  description: string;
  created: number;
  changed: number;
  start: number;
  end: number;
  status: EventbriteEventStatus;
  online: boolean;
  free: boolean;
  attendees: AttendeeSeed;
}

interface AttendeeSeed {
  count: number;
  /** When the first seeded attendee registered, and how far apart the next ones did. */
  createdFrom: number;
  spacing: number;
  /** person(seed, n) of attendee k: n = personBase + k, or (personBase + k) % distinct. */
  seed: number;
  personBase: number;
  distinct?: number;
  checkedIn: boolean;
}

interface AttendeeRec {
  n: number;
  eventSeq: number;
  created: number;
  changed: number;
  person: Person;
  address: EventbriteAddress;
  cancelled: boolean;
  refunded: boolean;
  checkedIn: boolean;
}

/** All records of one seeding were last changed no later than `stamp`. */
interface SegMeta {
  stamp: number;
}

interface Org {
  id: string;
  name: string;
  created: number;
  account: Account;
  events: LazyCollection<EventRec, SegMeta>;
  views: Map<string, { version: number; positions: number[]; keys: Array<number | string> }>;
}

interface Account {
  userId: string;
  token: string;
  name: string;
  email: string;
  orgs: Org[];
  revoked: boolean;
}

const money = (value: number) => ({ currency: 'USD', value, major_value: (value / 100).toFixed(2), display: `$${(value / 100).toFixed(2)}` });
/** Every fake ticket costs the same: $25.00 gross. */
const ATTENDEE_COSTS = { base_price: money(2200), eventbrite_fee: money(200), gross: money(2500), payment_fee: money(100), tax: money(0) };
const EVENT_ID_BASE = 700_000_000_000;
const ATTENDEE_ID_BASE = 10_000_000_000_000;
const ATTENDEES_PER_EVENT_MAX = 1_000_000;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;
const STATUSES: readonly EventbriteEventStatus[] = ['draft', 'live', 'started', 'ended', 'completed', 'canceled'];
const ORDERS = ['start_asc', 'start_desc', 'created_asc', 'created_desc', 'name_asc', 'name_desc'] as const;
type Order = (typeof ORDERS)[number];

const ebError = (status: number, error: string, description: string, extra: Record<string, unknown> = {}): FakeReply => ({
  status,
  body: { status_code: status, error_description: description, error, ...extra },
});

/** Eventbrite's answer to bad query arguments: ARGUMENTS_ERROR naming each argument and what is wrong. */
const argumentsError = (problems: Record<string, string>): FakeReply =>
  ebError(400, 'ARGUMENTS_ERROR', `There are errors with your arguments: ${Object.entries(problems).map(([k, v]) => `${k} - ${v}`).join(', ')}`, {
    error_detail: { ARGUMENTS_ERROR: Object.fromEntries(Object.entries(problems).map(([k, v]) => [k, [v]])) },
  });

function checkLimits(limits: unknown): EventbriteLimits {
  if (limits === 'unlimited' || limits === 'published') return limits;
  if (typeof limits === 'object' && limits !== null && Object.values(limits).every((v) => v === undefined || (Number.isInteger(v) && (v as number) >= 0))) return limits as EventbriteLimits;
  throw new Error('limits is "unlimited", "published" or {"perHour", "perDay"} as whole numbers');
}

function limitBuckets(limits: EventbriteLimits): RateBucketSpec[] {
  if (limits === 'unlimited') return [];
  const { perHour, perDay } = limits === 'published' ? { perHour: 2000, perDay: 48_000 } : limits;
  const buckets: RateBucketSpec[] = [];
  if (perHour !== undefined) buckets.push({ name: 'hourly', limit: perHour, window: { fixed: 3_600_000 } });
  if (perDay !== undefined) buckets.push({ name: 'daily', limit: perDay, window: 'utc-day' });
  return buckets;
}

export async function startFakeEventbrite(options: FakeEventbriteOptions = {}): Promise<FakeEventbrite> {
  const clock = options.clock && 'now' in options.clock ? options.clock : createFakeClock(options.clock);
  const limiter = new RateLimiter(limitBuckets(checkLimits(options.limits ?? 'unlimited')));
  const accounts = new Map<string, Account>();
  const eventSeqs = new SequenceRanges<Org>();
  let nextOrg = 0;
  let nextUser = 0;
  let nextPerson = 0;
  let base = '';

  const eventId = (seq: number) => String(EVENT_ID_BASE + seq);
  const findEvent = (id: string | undefined): { org: Org; pos: number; rec: EventRec } | undefined => {
    if (!id || !/^\d+$/.test(id)) return undefined;
    const found = eventSeqs.find(Number(id) - EVENT_ID_BASE);
    const rec = found?.ref.events.get(found.pos);
    return found && rec ? { org: found.ref, pos: found.pos, rec } : undefined;
  };

  // An event's attendees, made from its seed description until one of them changes.
  const attendees = ChildCollections.seeded<Org, EventRec, AttendeeRec, SegMeta>(
    eventSeqs,
    (org, pos) => org.events.get(pos),
    ({ attendees: s }, seq) => ({
      count: s.count,
      make: (k) => {
        const n = s.distinct ? (s.personBase + k) % s.distinct : s.personBase + k;
        const p = person(s.seed, n);
        const created = s.createdFrom + k * s.spacing;
        return { n: k, eventSeq: seq, created, changed: created, person: p, address: addressOf(p), cancelled: false, refunded: false, checkedIn: s.checkedIn && k % 3 !== 2 };
      },
      meta: { stamp: s.createdFrom + s.count * s.spacing },
    }),
  );

  const renderEvent = (rec: EventRec): EventbriteEventJson => {
    const id = eventId(rec.seq);
    return {
      name: { text: rec.title, html: escapeHtml(rec.title) },
      description: { text: rec.description, html: `<p>${escapeHtml(rec.description)}</p>` },
      url: `https://www.eventbrite.com/e/${slug(rec.title)}-tickets-${id}`,
      start: { timezone: 'UTC', local: isoSeconds(rec.start).slice(0, 19), utc: isoSeconds(rec.start) },
      end: { timezone: 'UTC', local: isoSeconds(rec.end).slice(0, 19), utc: isoSeconds(rec.end) },
      organization_id: rec.org.id,
      created: isoSeconds(rec.created),
      changed: isoSeconds(rec.changed),
      published: rec.status === 'draft' ? null : isoSeconds(rec.created),
      capacity: Math.max(100, rec.attendees.count),
      capacity_is_custom: false,
      status: rec.status,
      currency: 'USD',
      listed: true,
      shareable: true,
      online_event: rec.online,
      tx_time_limit: 1200,
      hide_start_date: false,
      hide_end_date: false,
      locale: 'en_US',
      is_locked: false,
      privacy_setting: 'unlocked',
      is_series: false,
      is_series_parent: false,
      inventory_type: 'limited',
      is_reserved_seating: false,
      show_pick_a_seat: false,
      show_seatmap_thumbnail: false,
      show_colors_in_seatmap_thumbnail: false,
      source: 'coyote',
      is_free: rec.free,
      version: null,
      summary: rec.summary,
      facebook_event_id: null,
      logo_id: null,
      organizer_id: String(30_000_000_000 + Number(rec.org.id) % 1_000_000),
      venue_id: rec.online ? null : String(50_000_000 + rec.seq),
      category_id: '102',
      subcategory_id: null,
      format_id: '2',
      id,
      resource_uri: `${base}/v3/events/${id}/`,
      is_externally_ticketed: false,
      logo: null,
    };
  };

  const renderAttendee = (a: AttendeeRec): EventbriteAttendeeJson => {
    const id = String(ATTENDEE_ID_BASE + a.eventSeq * ATTENDEES_PER_EVENT_MAX + a.n);
    const evId = eventId(a.eventSeq);
    const created = isoSeconds(a.created);
    const changed = isoSeconds(a.changed);
    return {
      team: null,
      costs: ATTENDEE_COSTS,
      resource_uri: `${base}/v3/events/${evId}/attendees/${id}/`,
      id,
      changed,
      created,
      quantity: 1,
      variant_id: null,
      profile: {
        first_name: a.person.firstName,
        last_name: a.person.lastName,
        addresses: { home: a.address },
        cell_phone: a.person.phone,
        company: a.person.company,
        job_title: a.person.jobTitle,
        email: a.person.email,
        name: `${a.person.firstName} ${a.person.lastName}`,
      },
      barcodes: [{ status: a.checkedIn ? 'used' : 'unused', barcode: `${id}001`, created, changed, checkin_type: 0, is_printed: false }],
      answers: [],
      checked_in: a.checkedIn,
      cancelled: a.cancelled,
      refunded: a.refunded,
      affiliate: 'oddtdtcreator',
      guestlist_id: null,
      invited_by: null,
      status: a.cancelled || a.refunded ? 'Not Attending' : a.checkedIn ? 'Checked In' : 'Attending',
      ticket_class_name: 'General Admission',
      delivery_method: 'electronic',
      event_id: evId,
      order_id: String(2_000_000_000_000 + a.eventSeq * ATTENDEES_PER_EVENT_MAX + a.n),
      ticket_class_id: String(600_000_000 + a.eventSeq),
    };
  };

  const renderOrg = (org: Org) => ({ _type: 'organization', name: org.name, vertical: 'default', parent_id: null, locale: 'en_US', created: isoSeconds(org.created), image_id: null, id: org.id });

  // ---- pagination ----------------------------------------------------------------------------

  interface ListState extends Record<string, unknown> {
    /** Fingerprint of the list and its filters. */
    f: string;
    /** Page number of the page this token leads to. */
    n: number;
    /** Position-ordered lists: the next position. */
    p?: number;
    /** Sorted lists: the sort key and position of the last item sent. */
    k?: number | string;
    q?: number;
  }

  const pageSizeOf = (req: FakeRequest): number | FakeReply => {
    const raw = req.query.get('page_size');
    if (raw === null) return DEFAULT_PAGE_SIZE;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) return argumentsError({ page_size: 'INVALID' });
    return Math.min(n, MAX_PAGE_SIZE);
  };

  /** Reads `continuation` (or the older `page`) into where to start, or the error to answer. */
  const startOf = (req: FakeRequest, f: string): { state: ListState | null; page: number } | { error: FakeReply } => {
    const continuation = req.query.get('continuation');
    if (continuation) {
      const state = decodePageToken<ListState>(continuation);
      if (!state || state.f !== f) return { error: argumentsError({ continuation: 'INVALID' }) };
      return { state, page: state.n };
    }
    const rawPage = req.query.get('page');
    if (rawPage === null) return { state: null, page: 1 };
    const page = Number(rawPage);
    if (!Number.isInteger(page) || page < 1) return { error: ebError(400, 'BAD_PAGE', 'The page number you provided is invalid.') };
    return { state: null, page };
  };

  const paginated = (key: string, results: unknown[], info: { total: number; page: number; pageSize: number; next: ListState | null }) => ({
    pagination: {
      object_count: info.total,
      page_number: info.page,
      page_size: info.pageSize,
      page_count: Math.max(1, Math.ceil(info.total / info.pageSize)),
      ...(info.next ? { continuation: encodePageToken(info.next) } : {}),
      has_more_items: info.next !== null,
    },
    [key]: results,
  });

  // ---- events of an organization ----------------------------------------------------------------

  const counted = new Map<string, { version: number; count: number }>();

  const orderKey = (rec: EventRec, order: Order): number | string =>
    order.startsWith('start') ? rec.start : order.startsWith('name') ? rec.title.toLowerCase() : rec.created;

  /** Positions of an organization's events in `order` (created_asc is position order and needs none). */
  const sortedView = (org: Org, order: Order) => {
    const cached = org.views.get(order);
    if (cached && cached.version === org.events.version) return cached;
    const entries: Array<{ pos: number; key: number | string }> = [];
    for (const { pos, item } of org.events.entries()) entries.push({ pos, key: orderKey(item, order) });
    const desc = order.endsWith('desc') ? -1 : 1;
    entries.sort((a, b) => (a.key < b.key ? -desc : a.key > b.key ? desc : (a.pos - b.pos) * desc));
    const view = { version: org.events.version, positions: entries.map((e) => e.pos), keys: entries.map((e) => e.key) };
    org.views.set(order, view);
    return view;
  };

  const listEvents = (req: FakeRequest, org: Org): FakeReply => {
    const problems: Record<string, string> = {};
    const rawStatus = req.query.get('status');
    let statuses: Set<string> | null = new Set(STATUSES.filter((s) => s !== 'canceled'));
    if (rawStatus !== null) {
      const wanted = rawStatus.split(',').map((s) => s.trim()).filter(Boolean);
      if (wanted.length === 0 || wanted.some((s) => s !== 'all' && !STATUSES.includes(s as EventbriteEventStatus))) problems.status = 'INVALID';
      statuses = wanted.includes('all') ? null : new Set(wanted);
    }
    const order = (req.query.get('order_by') ?? 'start_asc') as Order;
    if (!ORDERS.includes(order)) problems.order_by = 'INVALID';
    const timeFilter = req.query.get('time_filter') ?? 'all';
    if (!['all', 'past', 'current_future'].includes(timeFilter)) problems.time_filter = 'INVALID';
    const nameFilter = req.query.get('name_filter')?.toLowerCase() ?? null;
    const pageSize = pageSizeOf(req);
    if (typeof pageSize !== 'number') return pageSize;
    if (Object.keys(problems).length > 0) return argumentsError(problems);

    const now = clock.now();
    const keep = (rec: EventRec) =>
      (statuses === null || statuses.has(rec.status)) &&
      (timeFilter === 'all' || (timeFilter === 'past' ? rec.end < now : rec.end >= now)) &&
      (nameFilter === null || rec.title.toLowerCase().includes(nameFilter));
    const f = fingerprint(['events', org.id, rawStatus, order, timeFilter, nameFilter]);
    const start = startOf(req, f);
    if ('error' in start) return start.error;

    // object_count needs a pass over the list; it is kept until the list changes (time filters move with the clock).
    const countKey = `${org.id}|${f}`;
    let total = counted.get(countKey);
    if (!total || total.version !== org.events.version || timeFilter !== 'all') {
      let count = 0;
      if (timeFilter === 'all' && nameFilter === null && (statuses === null || rawStatus === null)) {
        // Seeded events are never canceled, so only changed ones can be: no pass over the seeded ones.
        count = org.events.liveCount;
        if (statuses !== null) for (const pos of org.events.overriddenPositions()) if (org.events.get(pos)?.status === 'canceled') count -= 1;
      } else {
        for (const { item } of org.events.entries()) if (keep(item)) count += 1;
      }
      total = { version: org.events.version, count };
      counted.set(countKey, total);
    }

    const results: EventRec[] = [];
    let next: ListState | null = null;
    const skip = start.state ? 0 : (start.page - 1) * pageSize;
    if (!start.state && skip > 0 && skip >= total.count) return ebError(400, 'BAD_PAGE', `Page ${start.page} does not exist.`);
    if (order === 'created_asc') {
      let from = start.state?.p ?? 0;
      if (skip > 0) from = org.events.page(0, skip, keep).next ?? org.events.length;
      const page = org.events.page(from, pageSize, keep);
      results.push(...page.items.map((i) => i.item));
      if (page.next !== null) next = { f, n: start.page + 1, p: page.next };
    } else {
      const view = sortedView(org, order);
      let i = 0;
      if (start.state?.k !== undefined) i = firstAfter(view, start.state.k, start.state.q ?? -1, order.endsWith('desc') ? -1 : 1);
      let skipped = 0;
      let lastPos = -1;
      for (; i < view.positions.length; i += 1) {
        const pos = view.positions[i]!;
        const rec = org.events.get(pos);
        if (!rec || !keep(rec)) continue;
        if (skipped < skip) {
          skipped += 1;
          continue;
        }
        if (results.length === pageSize) {
          // The cursor is the last item sent: a keyset (sort key, position), valid across re-sorts after changes.
          next = { f, n: start.page + 1, k: orderKey(results[results.length - 1]!, order), q: lastPos };
          break;
        }
        results.push(rec);
        lastPos = pos;
      }
    }
    return { body: paginated('events', results.map(renderEvent), { total: total.count, page: start.page, pageSize, next }) };
  };

  // ---- attendees of an event --------------------------------------------------------------------

  const listAttendees = (req: FakeRequest, seq: number): FakeReply => {
    const problems: Record<string, string> = {};
    const rawStatus = req.query.get('status');
    if (rawStatus !== null && !['attending', 'not_attending', 'unpaid'].includes(rawStatus)) problems.status = 'INVALID';
    const rawSince = req.query.get('changed_since');
    const since = rawSince === null ? null : parseEventbriteDate(rawSince);
    if (rawSince !== null && since === null) problems.changed_since = 'INVALID';
    const pageSize = pageSizeOf(req);
    if (typeof pageSize !== 'number') return pageSize;
    if (Object.keys(problems).length > 0) return argumentsError(problems);
    const f = fingerprint(['attendees', seq, rawStatus, rawSince]);
    const start = startOf(req, f);
    if ('error' in start) return start.error;

    // Every fake attendee has paid, so `unpaid` lists none.
    const statusOk = (a: AttendeeRec) =>
      rawStatus === null ? true : rawStatus === 'attending' ? !a.cancelled && !a.refunded : rawStatus === 'not_attending' ? a.cancelled || a.refunded : false;
    const keep = (a: AttendeeRec) => (since === null || a.changed >= since) && statusOk(a);
    // Unchanged seeded attendees all changed no later than their seeding: a later changed_since skips them wholesale.
    const skipSegment = since === null ? undefined : (meta: SegMeta | undefined) => meta !== undefined && meta.stamp < since;
    const list = attendees.read(seq);
    let total = 0;
    if (since === null && rawStatus === null) total = list.liveCount;
    else total = list.page(0, Number.MAX_SAFE_INTEGER, keep, skipSegment).items.length;
    let from = start.state?.p ?? 0;
    if (!start.state && start.page > 1) {
      const skip = (start.page - 1) * pageSize;
      if (skip >= total) return ebError(400, 'BAD_PAGE', `Page ${start.page} does not exist.`);
      from = list.page(0, skip, keep, skipSegment).next ?? list.length;
    }
    const page = list.page(from, pageSize, keep, skipSegment);
    const next = page.next === null ? null : { f, n: start.page + 1, p: page.next };
    return { body: paginated('attendees', page.items.map((i) => renderAttendee(i.item)), { total, page: start.page, pageSize, next }) };
  };

  // ---- routes -------------------------------------------------------------------------------------

  const identity = (req: FakeRequest) => (req as PlatformRequest<Account>).identity;
  const ownedEvent = (req: FakeRequest) => {
    const found = findEvent(req.params.eventId);
    if (!found) return { reply: ebError(404, 'NOT_FOUND', 'The event you requested does not exist.') };
    if (found.org.account !== identity(req)) return { reply: ebError(403, 'NOT_AUTHORIZED', 'You do not have permission to access the resource you requested.') };
    return found;
  };
  const meOr = (req: FakeRequest): { me: Account } | { error: FakeReply } => {
    const me = identity(req);
    return req.params.userId === 'me' || req.params.userId === me.userId ? { me } : { error: ebError(403, 'NOT_AUTHORIZED', 'You do not have permission to access the resource you requested.') };
  };

  const routes = new FakeRoutes()
    .route('GET', '/v3/users/:userId', (req) => {
      const who = meOr(req);
      if ('error' in who) return who.error;
      const { me } = who;
      const [first, ...rest] = me.name.split(' ');
      return { body: { emails: [{ email: me.email, verified: true, primary: true }], id: me.userId, name: me.name, first_name: first, last_name: rest.join(' '), is_public: false, image_id: null } };
    })
    .route('GET', '/v3/users/:userId/organizations', (req) => {
      const who = meOr(req);
      if ('error' in who) return who.error;
      const { me } = who;
      const pageSize = pageSizeOf(req);
      if (typeof pageSize !== 'number') return pageSize;
      const f = fingerprint(['organizations', me.userId]);
      const start = startOf(req, f);
      if ('error' in start) return start.error;
      const from = start.state?.p ?? (start.page - 1) * pageSize;
      const slice = me.orgs.slice(from, from + pageSize);
      const next = from + pageSize < me.orgs.length ? { f, n: start.page + 1, p: from + pageSize } : null;
      return { body: paginated('organizations', slice.map(renderOrg), { total: me.orgs.length, page: start.page, pageSize, next }) };
    })
    .route('GET', '/v3/organizations/:orgId/events', (req) => {
      const org = identity(req).orgs.find((o) => o.id === req.params.orgId);
      if (!org) return ebError(403, 'NOT_AUTHORIZED', 'You do not have permission to access the resource you requested.');
      return listEvents(req, org);
    })
    .route('GET', '/v3/events/:eventId', (req) => {
      const found = ownedEvent(req);
      return 'reply' in found ? found.reply : { body: renderEvent(found.rec) };
    })
    .route('GET', '/v3/events/:eventId/attendees', (req) => {
      const found = ownedEvent(req);
      return 'reply' in found ? found.reply : listAttendees(req, found.rec.seq);
    });

  const faults = new FaultQueue();
  const publicRoutes = new FakeRoutes();
  // Eventbrite's OAuth (www.eventbrite.com/oauth/authorize and /oauth/token): client credentials in the
  // form, access tokens that do not expire and no refresh token.
  const oauth = addOAuthRoutes<FakeEventbriteAccount>(publicRoutes, {
    clock,
    authorizePath: '/oauth/authorize',
    tokenPath: '/oauth/token',
    clientAuth: 'post',
    accessTokenTtlSeconds: null,
    refresh: 'none',
    scope: '',
    defaultAccount: () => account,
    issueAccessToken: (handle) => {
      const token = makeToken('', 10).toUpperCase();
      accounts.set(token, accounts.get(handle.token)!);
      return token;
    },
    tokenError: (failure, description) => ({
      status: failure === 'invalid_client' ? 401 : 400,
      body: { error: failure === 'invalid_client' ? 'invalid_client' : failure === 'unsupported_grant_type' ? 'unsupported_grant_type' : failure === 'invalid_request' ? 'invalid_request' : 'invalid_grant', error_description: description },
    }),
    app: options.oauthApp,
  });
  const server = await startPlatformServer<Account>({
    clock,
    routes,
    faults,
    port: options.port,
    publicRoutes: options.control
      ? addControlRoutes(publicRoutes, {
          platform: 'eventbrite',
          baseUrl: (): string => `${server.url}/v3`,
          clock,
          faults,
          requests: (): PlatformLoggedRequest[] => server.requests,
          setLimits: (limits) => limiter.configure(limitBuckets(checkLimits(limits))),
          seed: (body) => account.seed(body as unknown as EventbriteSeedOptions),
          createAccount: () => {
            const created = createAccount();
            return { token: created.token, userId: created.userId, organizationIds: created.organizationIds() };
          },
          revoke: (body) => {
            const target = typeof body.token === 'string' ? accounts.get(body.token) : undefined;
            if (!target) throw new Error('Send {"token": a token of the fake}.');
            target.revoked = true;
          },
        })
      : publicRoutes,
    recordRequests: options.recordRequests,
    latency: options.latency,
    authenticate: (req) => {
      const header = req.headers.authorization;
      const token = header === undefined ? req.query.get('token') : bearerToken(req);
      if (header !== undefined && token === undefined) return { reply: ebError(400, 'INVALID_AUTH_HEADER', 'The Authorization header is malformed. It should be "Bearer <token>".') };
      if (!token) return { reply: ebError(401, 'NO_AUTH', 'An OAuth token is required for all requests.') };
      const account = accounts.get(token);
      // Eventbrite's published list gives INVALID_AUTH as 400; the API answers a dead token with 401, which is what a sync sees.
      if (!account || account.revoked) return { reply: ebError(401, 'INVALID_AUTH', 'The OAuth token you provided was invalid.') };
      return { identity: account };
    },
    limit: (_req, account) => {
      if (limiter.specs.length === 0) return { headers: {} };
      const taken = limiter.take(account.token, clock.now());
      if (taken.allowed) return { headers: {} };
      return { reply: rateLimitReply(taken.tripped.spec) };
    },
    serverError: (status) =>
      status === 503 ? ebError(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable. Please try again later.') : ebError(status, 'INTERNAL_ERROR', 'An internal error occurred. Please try again later.'),
    rateLimited: (policy) => rateLimitReply(policy === 'daily' ? { name: 'daily', limit: 48_000, window: 'utc-day' } : { name: 'hourly', limit: 2000, window: { fixed: 3_600_000 } }),
    notFound: () => ebError(404, 'NOT_FOUND', 'The path you requested does not exist.'),
    methodNotAllowed: (allowed) => ({ ...ebError(405, 'METHOD_NOT_ALLOWED', 'This endpoint does not support that HTTP method.'), headers: { allow: allowed.join(', ') } }),
  });
  base = server.url;

  function rateLimitReply(spec: RateBucketSpec): FakeReply {
    const per = spec.name === 'daily' ? 'day' : 'hour';
    return ebError(429, 'HIT_RATE_LIMIT', `You have exceeded the rate limit of ${spec.limit} calls per ${per}. Please try again later.`);
  }

  // ---- the test API -------------------------------------------------------------------------------

  const makeOrg = (account: Account, name?: string): Org => {
    nextOrg += 1;
    const org: Org = { id: String(100_000_000_000 + nextOrg * 7919), name: name ?? `${account.name}'s Organization ${nextOrg}`, created: clock.now(), account, events: new LazyCollection(), views: new Map() };
    account.orgs.push(org);
    return org;
  };

  const orgOf = (account: Account, id: string | undefined): Org => {
    const org = id === undefined ? account.orgs[0] : account.orgs.find((o) => o.id === id);
    if (!org) throw new Error(`No organization ${id} in this account`);
    return org;
  };

  const mustEvent = (account: Account, id: string) => {
    const found = findEvent(id);
    if (!found || found.org.account !== account) throw new Error(`No event ${id} in this account`);
    return found;
  };

  const appendEvent = (org: Org, rec: Omit<EventRec, 'seq'>): EventRec => {
    const pos = org.events.length;
    const seq = eventSeqs.reserve(1, org, pos);
    const full = { ...rec, seq };
    org.events.append(full, { stamp: rec.changed });
    return full;
  };

  const handle = (account: Account): FakeEventbriteAccount => ({
    userId: account.userId,
    token: account.token,
    organizationIds: () => account.orgs.map((o) => o.id),
    createOrganization: (name) => {
      const org = makeOrg(account, name);
      return { id: org.id, name: org.name };
    },
    seed: (seedOptions) => {
      const org = orgOf(account, seedOptions.organizationId);
      const { events: count, attendeesPerEvent } = seedOptions;
      const at = clock.now();
      const { startOf } = seedTimeline(at, count, attendeesPerEvent, seedOptions.pastShare, ['events', 'attendees per event']);
      const seed = seedOptions.seed ?? 1;
      const personBase = nextPerson;
      nextPerson += count * attendeesPerEvent;
      const firstPos = org.events.length;
      const firstSeq = eventSeqs.reserve(count, org, firstPos);
      const spacing = 60_000;
      org.events.appendLazy(
        count,
        (k) => {
          const created = at - (count - k) * spacing;
          const start = startOf(k);
          const end = start + 3_600_000;
          const t = eventTitle(seed, firstSeq + k);
          return {
            seq: firstSeq + k,
            org,
            title: t.title,
            summary: t.summary,
            description: `${t.summary} Hosted online by ${org.name}.`,
            created,
            changed: created,
            start,
            end,
            status: end < at ? 'ended' : k % 25 === 24 ? 'draft' : 'live',
            online: k % 4 !== 3,
            free: k % 3 === 0,
            attendees: {
              count: attendeesPerEvent,
              createdFrom: created + 1000,
              spacing: Math.max(1, Math.floor((spacing - 1000) / Math.max(1, attendeesPerEvent))),
              seed,
              personBase: personBase + k * attendeesPerEvent,
              distinct: seedOptions.distinctPeople,
              checkedIn: end < at,
            },
          };
        },
        { stamp: at },
      );
      return { organizationId: org.id, firstEventId: eventId(firstSeq), lastEventId: eventId(firstSeq + Math.max(0, count - 1)) };
    },
    createEvent: (input = {}) => {
      const org = orgOf(account, input.organizationId);
      const now = clock.stamp();
      const start = input.start ?? now + 86_400_000;
      const t = eventTitle(1, nextPerson);
      const rec = appendEvent(org, {
        org,
        title: input.name ?? t.title,
        summary: t.summary,
        description: input.description ?? t.summary,
        created: now,
        changed: now,
        start,
        end: input.end ?? start + 3_600_000,
        status: input.status ?? 'live',
        online: input.onlineEvent ?? true,
        free: true,
        attendees: { count: input.attendees ?? 0, createdFrom: now, spacing: 1, seed: 1, personBase: nextPerson, checkedIn: false },
      });
      nextPerson += input.attendees ?? 0;
      return renderEvent(rec);
    },
    updateEvent: (id, patch) => {
      const found = mustEvent(account, id);
      const rec: EventRec = {
        ...found.rec,
        title: patch.name ?? found.rec.title,
        description: patch.description ?? found.rec.description,
        start: patch.start ?? found.rec.start,
        end: patch.end ?? found.rec.end,
        status: patch.status ?? found.rec.status,
        online: patch.onlineEvent ?? found.rec.online,
        changed: clock.stamp(),
      };
      found.org.events.set(found.pos, rec);
      return renderEvent(rec);
    },
    cancelEvent: (id) => {
      const found = mustEvent(account, id);
      const rec: EventRec = { ...found.rec, status: 'canceled', changed: clock.stamp() };
      found.org.events.set(found.pos, rec);
      return renderEvent(rec);
    },
    deleteEvent: (id) => {
      const found = mustEvent(account, id);
      found.org.events.remove(found.pos);
    },
    addAttendee: (id, input = {}) => {
      const found = mustEvent(account, id);
      const list = attendees.write(found.rec.seq);
      const now = clock.stamp();
      const p = { ...person(1, nextPerson++) };
      applyPerson(p, input);
      const n = list.length;
      const rec: AttendeeRec = { n, eventSeq: found.rec.seq, created: now, changed: now, person: p, address: { ...addressOf(p), ...input.address }, cancelled: false, refunded: false, checkedIn: false };
      list.append(rec, { stamp: now });
      return renderAttendee(rec);
    },
    updateAttendee: (id, attendeeId, patch) => {
      const { list, pos, rec } = mustAttendee(account, id, attendeeId);
      const p = { ...rec.person };
      applyPerson(p, patch);
      const next: AttendeeRec = { ...rec, person: p, address: { ...rec.address, ...patch.address }, changed: clock.stamp() };
      list.set(pos, next);
      return renderAttendee(next);
    },
    cancelAttendee: (id, attendeeId, cancelOptions = {}) => {
      const { list, pos, rec } = mustAttendee(account, id, attendeeId);
      const next: AttendeeRec = { ...rec, cancelled: true, refunded: cancelOptions.refunded ?? false, changed: clock.stamp() };
      list.set(pos, next);
      return renderAttendee(next);
    },
    deleteAttendee: (id, attendeeId) => {
      const { list, pos } = mustAttendee(account, id, attendeeId);
      list.remove(pos);
    },
    getEvent: (id) => {
      const found = findEvent(id);
      return found && found.org.account === account ? renderEvent(found.rec) : undefined;
    },
    allEvents: (orgId) => [...orgOf(account, orgId).events.entries()].map((e) => renderEvent(e.item)),
    allAttendees: (id) => [...attendees.read(mustEvent(account, id).rec.seq).entries()].map((e) => renderAttendee(e.item)),
    revokeToken: () => {
      account.revoked = true;
    },
  });

  const mustAttendee = (account: Account, id: string, attendeeId: string) => {
    const found = mustEvent(account, id);
    const n = Number(attendeeId) - ATTENDEE_ID_BASE - found.rec.seq * ATTENDEES_PER_EVENT_MAX;
    const list = attendees.write(found.rec.seq);
    const rec = Number.isInteger(n) ? list.get(n) : undefined;
    if (!rec) throw new Error(`No attendee ${attendeeId} in event ${id}`);
    return { list, pos: n, rec };
  };

  const createAccount = (accountOptions: { name?: string; email?: string; token?: string } = {}): FakeEventbriteAccount => {
    nextUser += 1;
    const token = accountOptions.token ?? makeToken('', 10).toUpperCase();
    const account: Account = { userId: String(200_000_000_000 + nextUser * 104_729), token, name: accountOptions.name ?? `Organizer ${nextUser}`, email: accountOptions.email ?? `organizer${nextUser}@example.com`, orgs: [], revoked: false };
    makeOrg(account);
    accounts.set(token, account);
    return handle(account);
  };

  const account = createAccount({ token: EVENTBRITE_FAKE_TOKENS.valid, name: 'Fake Organizer', email: 'organizer@example.com' });

  return {
    url: server.url,
    baseUrl: `${server.url}/v3`,
    requests: server.requests,
    clock,
    faults: server.faults,
    limits: { set: (limits) => limiter.configure(limitBuckets(checkLimits(limits))) },
    account,
    createAccount,
    oauth,
    authorizeUrl: `${server.url}/oauth/authorize`,
    oauthTokenUrl: `${server.url}/oauth/token`,
    close: server.close,
  };
}

/** The first index of a sorted view after (key, pos) in the view's direction. */
function firstAfter(view: { positions: number[]; keys: Array<number | string> }, key: number | string, pos: number, dir: 1 | -1): number {
  let lo = 0;
  let hi = view.positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const k = view.keys[mid]!;
    const p = view.positions[mid]!;
    const cmp = k < key ? -1 : k > key ? 1 : p < pos ? -1 : p > pos ? 1 : 0;
    if (cmp * dir <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function addressOf(p: Person): EventbriteAddress {
  return { address_1: `${(mix(p.email.length, p.phone.length) % 900) + 100} Market Street`, address_2: null, city: p.place.city, region: p.place.stateCode, postal_code: p.place.postalCode, country: p.place.iso2 === 'ZZ' ? null : p.place.iso2 };
}

function applyPerson(p: Person, input: EventbriteAttendeeInput): void {
  if (input.firstName !== undefined) p.firstName = input.firstName;
  if (input.lastName !== undefined) p.lastName = input.lastName;
  if (input.email !== undefined) p.email = input.email;
  if (input.cellPhone !== undefined) p.phone = input.cellPhone;
}

/** Eventbrite takes `2026-01-01T00:00:00Z` (and, leniently, other ISO 8601 forms); null when it is not a date. */
function parseEventbriteDate(raw: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(raw)) return null;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? null : ms;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
