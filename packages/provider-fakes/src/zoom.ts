import { FakeRoutes, bearerToken, type FakeReply, type FakeRequest } from './fake-server';
import { ChildCollections, LazyCollection, SequenceRanges } from './lazy-collection';
import { createFakeClock, nextUtcMidnight, type FakeClock, type FakeClockOptions } from './platform-clock';
import { addControlRoutes } from './platform-control';
import { FaultQueue, type FaultControl } from './platform-faults';
import { RateLimiter, type RateBucketSpec } from './platform-limits';
import { addOAuthRoutes, type FakeOAuthApp, type FakeOAuthControl, type OAuthFailure } from './platform-oauth';
import { startPlatformServer, type PlatformLoggedRequest, type PlatformRequest } from './platform-server';
import { decodePageToken, encodePageToken, fingerprint, makeToken } from './platform-tokens';
import { eventTitle, isoSeconds, person, seedTimeline, shortId, type Person } from './seed-data';

/**
 * A fake of Zoom's REST API v2 for what a marketing sync reads: an account's users, their webinars,
 * each webinar's registrants and the participants of past webinars, behind Server-to-Server OAuth
 * (`POST /oauth/token` with `grant_type=account_credentials`, Basic client id and secret, one-hour
 * tokens without refresh). Real paths under `/v2`, `{code, message}` errors, `next_page_token`
 * pagination (30 a page by default, at most 300, tokens that expire after 15 minutes of the fake's
 * clock), per-second and daily limits by Light/Medium/Heavy category with Zoom's 429 and
 * X-RateLimit-* headers, and a test API to seed, change and fault it. See the package README.
 */

/** The Server-to-Server OAuth app credentials of the account every fake Zoom starts with. */
export const ZOOM_FAKE_CREDENTIALS = {
  accountId: 'fakeZoomAccount000001',
  clientId: 'fakeZoomClientId00001',
  clientSecret: 'fakeZoomClientSecret0000000000001',
} as const;

export type ZoomCategory = 'Light' | 'Medium' | 'Heavy';

/**
 * Zoom's limits by plan (`free`: 4/2/1 per second and 6,000/2,000/1,000 a day for Light/Medium/Heavy;
 * `pro`: 30/20/10 per second and 30,000 Heavy a day; `business`: 80/60/40 and 60,000), or your own.
 */
export type ZoomLimits =
  | 'unlimited'
  | 'free'
  | 'pro'
  | 'business'
  | { light?: number; medium?: number; heavy?: number; daily?: { light?: number; medium?: number; heavy?: number } };

export interface FakeZoomOptions {
  /** Default `unlimited`. */
  limits?: ZoomLimits;
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

export interface ZoomSeedOptions {
  webinars: number;
  registrantsPerWebinar: number;
  /** The host (default the account owner). */
  userId?: string;
  /** Share of the webinars already held at seeding time (default 0.5): they have participants, three registrants in four. */
  pastShare?: number;
  /** How many different people register across the fake's seeded webinars (default: all different). */
  distinctPeople?: number;
  seed?: number;
}

export interface ZoomWebinarInput {
  topic?: string;
  agenda?: string;
  /** Epoch ms (default a day after now). */
  startTime?: number;
  durationMinutes?: number;
  userId?: string;
}

export interface ZoomRegistrantInput {
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string;
  address?: string;
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
  org?: string;
  job_title?: string;
}

export type ZoomRegistrantStatus = 'approved' | 'pending' | 'denied';
export type ZoomWebinarJson = Record<string, unknown> & { id: number; uuid: string; topic: string; start_time: string };
export type ZoomRegistrantJson = Record<string, unknown> & { id: string; email: string; status: ZoomRegistrantStatus };
export type ZoomParticipantJson = Record<string, unknown> & { registrant_id: string; user_email: string };

/** One Zoom account: its S2S OAuth app, its users and their webinars. */
export interface FakeZoomAccount {
  accountId: string;
  clientId: string;
  clientSecret: string;
  /** The owner's user id (what `me` stands for). */
  ownerId: string;
  createUser(input?: { email?: string; firstName?: string; lastName?: string }): { id: string; email: string };
  /** An access token as `/oauth/token` would give one (valid for an hour of the fake clock). */
  issueAccessToken(): string;
  /** Every access token issued so far stops working: 401 code 124 "Invalid access token.". */
  revokeAccessTokens(): void;
  /** The app is deactivated: its tokens stop working and the token endpoint answers invalid_client. */
  disableApp(): void;
  seed(options: ZoomSeedOptions): { firstWebinarId: number; lastWebinarId: number };
  createWebinar(input?: ZoomWebinarInput): ZoomWebinarJson;
  updateWebinar(webinarId: number, patch: ZoomWebinarInput): ZoomWebinarJson;
  /** Deletes a webinar: out of the list; its URLs answer 404 code 3001. */
  deleteWebinar(webinarId: number): void;
  addRegistrant(webinarId: number, input?: ZoomRegistrantInput & { status?: ZoomRegistrantStatus }): ZoomRegistrantJson;
  updateRegistrant(webinarId: number, registrantId: string, patch: ZoomRegistrantInput): ZoomRegistrantJson;
  /** Approves, denies or sets pending: the registrant list shows `approved` by default. */
  setRegistrantStatus(webinarId: number, registrantId: string, status: ZoomRegistrantStatus): ZoomRegistrantJson;
  deleteRegistrant(webinarId: number, registrantId: string): void;
  /** Adds a participant to a held webinar (for a registrant, or a guest). */
  addParticipant(webinarId: number, input?: { registrantId?: string; name?: string; email?: string; durationSeconds?: number }): ZoomParticipantJson;
  getWebinar(webinarId: number): ZoomWebinarJson | undefined;
  /** Every webinar of a user (default the owner) as the list shows them, in order. */
  allWebinars(userId?: string): ZoomWebinarJson[];
  allRegistrants(webinarId: number, status?: ZoomRegistrantStatus): ZoomRegistrantJson[];
  allParticipants(webinarId: number): ZoomParticipantJson[];
}

export interface FakeZoom {
  url: string;
  /** What `PATCHBAY_MKTG_ZOOM_BASE_URL` is set to (`${url}/v2`, like https://api.zoom.us/v2). */
  baseUrl: string;
  /** The S2S OAuth token endpoint (`${url}/oauth/token`, like https://zoom.us/oauth/token). */
  tokenUrl: string;
  requests: PlatformLoggedRequest[];
  clock: FakeClock;
  faults: FaultControl;
  limits: { set(limits: ZoomLimits): void };
  /** The account the fake starts with (ZOOM_FAKE_CREDENTIALS). */
  account: FakeZoomAccount;
  createAccount(): FakeZoomAccount;
  /** The user-level OAuth app (code grant with PKCE, rotating refresh tokens) on the token endpoint above. */
  oauth: FakeOAuthControl<FakeZoomAccount>;
  /** What `PATCHBAY_MKTG_ZOOM_AUTHORIZE_URL` is set to (like https://zoom.us/oauth/authorize). */
  authorizeUrl: string;
  close(): Promise<void>;
}

interface WebinarRec {
  seq: number;
  user: User;
  topic: string;
  agenda: string;
  start: number;
  duration: number;
  created: number;
  registrants: RegistrantSeed;
}

interface RegistrantSeed {
  count: number;
  seed: number;
  personBase: number;
  distinct?: number;
  createdFrom: number;
  spacing: number;
  /** Held before seeding: three registrants in four took part. */
  held: boolean;
}

interface RegistrantRec {
  n: number;
  webinarSeq: number;
  person: Person;
  extra: Record<string, string>;
  status: ZoomRegistrantStatus;
  created: number;
}

interface ParticipantRec {
  n: number;
  registrantId: string;
  name: string;
  email: string;
  join: number;
  duration: number;
}

interface User {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  created: number;
  account: Account;
  webinars: LazyCollection<WebinarRec>;
}

interface Account {
  accountId: string;
  clientId: string;
  clientSecret: string;
  users: User[];
  disabled: boolean;
  /**
   * Access tokens with a serial number below this are revoked. Serials, not the clock: a token issued
   * in the same millisecond as a revocation but after it must work (the client's new token).
   */
  revokedBefore: number;
}

interface AccessToken {
  account: Account;
  /** The token's place in issue order, compared with the account's revokedBefore. */
  serial: number;
  expiresAt: number;
}

const WEBINAR_ID_BASE = 81_000_000_000;
const PER_WEBINAR_MAX = 1_000_000;
const TOKEN_TTL_MS = 3_600_000;
const PAGE_TOKEN_TTL_MS = 15 * 60_000;
const DEFAULT_PAGE_SIZE = 30;
const MAX_PAGE_SIZE = 300;
const UUID_SALT = 0x2001;
const REGISTRANT_SALT = 0x3001;

const zoomError = (status: number, code: number, message: string, extra: Record<string, unknown> = {}): FakeReply => ({ status, body: { code, message, ...extra } });
const validationFailed = (field: string, message = 'Invalid field.') => zoomError(400, 300, 'Validation Failed.', { errors: [{ field, message }] });

/** Zoom's rate-limit category of each path (its docs' "Rate Limit Label"). */
function categoryOf(path: string): ZoomCategory {
  if (/^\/v2\/(webinars\/[^/]+|users\/[^/]+)\/?$/.test(path)) return 'Light';
  return 'Medium';
}

function checkLimits(limits: unknown): ZoomLimits {
  if (limits === 'unlimited' || limits === 'free' || limits === 'pro' || limits === 'business') return limits;
  const whole = (v: unknown) => v === undefined || (Number.isInteger(v) && (v as number) >= 0);
  if (typeof limits === 'object' && limits !== null) {
    const { daily, ...perSecond } = limits as Record<string, unknown>;
    if (Object.values(perSecond).every(whole) && (daily === undefined || (typeof daily === 'object' && daily !== null && Object.values(daily).every(whole)))) return limits as ZoomLimits;
  }
  throw new Error('limits is "unlimited", "free", "pro", "business" or {"light", "medium", "heavy", "daily": {…}} as whole numbers');
}

function limitBuckets(limits: ZoomLimits): Map<ZoomCategory, RateBucketSpec[]> {
  const out = new Map<ZoomCategory, RateBucketSpec[]>();
  if (limits === 'unlimited') return out;
  type Plan = { light?: number; medium?: number; heavy?: number; daily?: { light?: number; medium?: number; heavy?: number } };
  const plans: Record<'free' | 'pro' | 'business', Plan> = {
    free: { light: 4, medium: 2, heavy: 1, daily: { light: 6000, medium: 2000, heavy: 1000 } },
    pro: { light: 30, medium: 20, heavy: 10, daily: { heavy: 30_000 } },
    business: { light: 80, medium: 60, heavy: 40, daily: { heavy: 60_000 } },
  };
  const plan: Plan = typeof limits === 'string' ? plans[limits] : limits;
  for (const [category, key] of [['Light', 'light'], ['Medium', 'medium'], ['Heavy', 'heavy']] as const) {
    const buckets: RateBucketSpec[] = [];
    const qps = plan[key];
    const daily = plan.daily?.[key];
    if (qps !== undefined) buckets.push({ name: 'QPS', limit: qps, window: { fixed: 1000 } });
    if (daily !== undefined) buckets.push({ name: 'Daily-limit', limit: daily, window: 'utc-day' });
    out.set(category, buckets);
  }
  return out;
}

export async function startFakeZoom(options: FakeZoomOptions = {}): Promise<FakeZoom> {
  const clock = options.clock && 'now' in options.clock ? options.clock : createFakeClock(options.clock);
  let buckets = limitBuckets(checkLimits(options.limits ?? 'unlimited'));
  let limiters = new Map([...buckets].map(([c, specs]) => [c, new RateLimiter(specs)]));
  const accounts = new Map<string, Account>();
  const accessTokens = new Map<string, AccessToken>();
  const webinarSeqs = new SequenceRanges<User>();
  let nextAccount = 0;
  let nextUser = 0;
  let nextPerson = 0;

  const webinarId = (seq: number) => WEBINAR_ID_BASE + seq;
  const webinarUuid = (seq: number) => `${shortId(seq, UUID_SALT)}==`;
  const registrantId = (webinarSeq: number, n: number) => shortId(webinarSeq * PER_WEBINAR_MAX + n, REGISTRANT_SALT);

  /** A webinar by numeric id or UUID, if it exists and belongs to `account`. */
  const findWebinar = (account: Account, raw: string | undefined) => {
    if (!raw) return undefined;
    let seq: number;
    if (/^\d+$/.test(raw)) seq = Number(raw) - WEBINAR_ID_BASE;
    else {
      const uuid = raw.endsWith('==') ? raw.slice(0, -2) : raw;
      seq = decodeShortId(uuid);
      if (seq < 0 || shortId(seq, UUID_SALT) !== uuid) return undefined;
    }
    const found = webinarSeqs.find(seq);
    if (!found || found.ref.account !== account) return undefined;
    const rec = found.ref.webinars.get(found.pos);
    return rec ? { user: found.ref, pos: found.pos, rec } : undefined;
  };

  const personOf = (s: RegistrantSeed, k: number) => person(s.seed, s.distinct ? (s.personBase + k) % s.distinct : s.personBase + k);
  const webinarAt = (user: User, pos: number) => user.webinars.get(pos);

  const registrants = ChildCollections.seeded<User, WebinarRec, RegistrantRec>(webinarSeqs, webinarAt, ({ registrants: s }, seq) => ({
    count: s.count,
    make: (k) => ({ n: k, webinarSeq: seq, person: personOf(s, k), extra: {}, status: 'approved', created: s.createdFrom + k * s.spacing }),
  }));

  // The participants of a held webinar: three seeded registrants in four (k % 4 !== 3) took part.
  const participants = ChildCollections.seeded<User, WebinarRec, ParticipantRec>(webinarSeqs, webinarAt, (rec, seq) => {
    const s = rec.registrants;
    if (!s.held) return null;
    return {
      count: s.count - Math.floor(s.count / 4),
      make: (p) => {
        const k = p + Math.floor(p / 3);
        const who = personOf(s, k);
        const duration = Math.max(60, rec.duration * 60 - ((k * 37) % 900));
        return { n: p, registrantId: registrantId(seq, k), name: `${who.firstName} ${who.lastName}`, email: who.email, join: rec.start + ((k * 13) % 300) * 1000, duration };
      },
    };
  });

  /** A Zoom list page: counts, the token to the next page ('' at the end) and the items under `key`. */
  const listBody = (key: string, items: unknown[], total: number, at: { size: number; pageNumber: number }, nextToken: string, withPageNumber = true) => ({
    page_count: Math.max(1, Math.ceil(total / at.size)),
    ...(withPageNumber && at.pageNumber ? { page_number: at.pageNumber } : {}),
    page_size: at.size,
    total_records: total,
    next_page_token: nextToken,
    [key]: items,
  });

  const renderWebinar = (rec: WebinarRec): ZoomWebinarJson => ({
    uuid: webinarUuid(rec.seq),
    id: webinarId(rec.seq),
    host_id: rec.user.id,
    topic: rec.topic,
    type: 5,
    start_time: isoSeconds(rec.start),
    duration: rec.duration,
    timezone: 'UTC',
    agenda: rec.agenda,
    created_at: isoSeconds(rec.created),
    join_url: `https://us06web.zoom.us/j/${webinarId(rec.seq)}`,
    is_simulive: false,
  });

  const renderWebinarDetail = (rec: WebinarRec) => ({
    ...renderWebinar(rec),
    host_email: rec.user.email,
    registration_url: `https://us06web.zoom.us/webinar/register/WN_${webinarUuid(rec.seq).slice(0, 22)}`,
    settings: { approval_type: 0, registration_type: 1, audio: 'both', auto_recording: 'none', hd_video: true, on_demand: false, practice_session: false },
  });

  const renderRegistrant = (r: RegistrantRec): ZoomRegistrantJson => {
    const id = registrantId(r.webinarSeq, r.n);
    const p = r.person;
    return {
      id,
      first_name: p.firstName,
      last_name: p.lastName,
      email: p.email,
      address: `${100 + (r.n % 900)} Harbour Road`,
      city: p.place.city,
      country: p.place.iso2 === 'ZZ' ? p.place.name : p.place.iso2,
      zip: p.place.postalCode,
      state: p.place.state,
      phone: p.phone,
      industry: 'Software',
      org: p.company,
      job_title: p.jobTitle,
      purchasing_time_frame: '',
      role_in_purchase_process: '',
      no_of_employees: '',
      comments: '',
      custom_questions: [],
      ...r.extra,
      status: r.status,
      create_time: isoSeconds(r.created),
      join_url: `https://us06web.zoom.us/w/${webinarId(r.webinarSeq)}?tk=${id}`,
    };
  };

  const renderParticipant = (p: ParticipantRec): ZoomParticipantJson => ({
    id: '',
    name: p.name,
    user_id: String(16_778_240 + p.n),
    registrant_id: p.registrantId,
    user_email: p.email,
    join_time: isoSeconds(p.join),
    leave_time: isoSeconds(p.join + p.duration * 1000),
    duration: p.duration,
    failover: false,
    status: 'in_meeting',
    internal_user: false,
  });

  const renderUser = (u: User) => ({
    id: u.id,
    first_name: u.firstName,
    last_name: u.lastName,
    display_name: `${u.firstName} ${u.lastName}`,
    email: u.email,
    type: 2,
    timezone: 'UTC',
    verified: 1,
    dept: '',
    created_at: isoSeconds(u.created),
    user_created_at: isoSeconds(u.created),
    last_login_time: isoSeconds(u.created),
    language: 'en-US',
    status: 'active',
    role_id: '0',
  });

  // ---- pagination ----------------------------------------------------------------------------------

  interface PageState extends Record<string, unknown> {
    f: string;
    p: number;
    /** When the token was issued, on the fake clock: it lasts 15 minutes. */
    t: number;
  }

  /** Page size, and where to start: from `next_page_token`, `page_number`, or the top. */
  const paging = (req: FakeRequest, f: string): { size: number; from: number | null; pageNumber: number; skip: number } | { error: FakeReply } => {
    const rawSize = req.query.get('page_size');
    let size = DEFAULT_PAGE_SIZE;
    if (rawSize !== null) {
      const n = Number(rawSize);
      if (!Number.isInteger(n) || n < 1) return { error: validationFailed('page_size') };
      size = Math.min(n, MAX_PAGE_SIZE);
    }
    const token = req.query.get('next_page_token');
    if (token) {
      const state = decodePageToken<PageState>(token);
      if (!state || state.f !== f || clock.now() - state.t > PAGE_TOKEN_TTL_MS) return { error: zoomError(400, 300, 'The next page token is invalid or expired.') };
      return { size, from: state.p, pageNumber: 0, skip: 0 };
    }
    const rawPage = req.query.get('page_number');
    if (rawPage === null) return { size, from: null, pageNumber: 1, skip: 0 };
    const page = Number(rawPage);
    if (!Number.isInteger(page) || page < 1) return { error: validationFailed('page_number') };
    return { size, from: null, pageNumber: page, skip: (page - 1) * size };
  };

  const pageOf = <T>(list: LazyCollection<T>, f: string, at: { size: number; from: number | null; skip: number }, keep?: (item: T) => boolean) => {
    let from = at.from ?? 0;
    if (at.from === null && at.skip > 0) from = list.page(0, at.skip, keep).next ?? list.length;
    const page = list.page(from, at.size, keep);
    return { items: page.items.map((i) => i.item), nextToken: page.next === null ? '' : encodePageToken({ f, p: page.next, t: clock.now() }) };
  };

  // ---- routes --------------------------------------------------------------------------------------

  const identity = (req: FakeRequest) => (req as PlatformRequest<Account>).identity;
  const userOf = (req: FakeRequest): { user: User } | { error: FakeReply } => {
    const account = identity(req);
    const raw = req.params.userId!;
    const user = raw === 'me' ? account.users[0] : account.users.find((u) => u.id === raw || u.email.toLowerCase() === raw.toLowerCase());
    return user ? { user } : { error: zoomError(404, 1001, `User does not exist: ${raw}.`) };
  };
  type Found = NonNullable<ReturnType<typeof findWebinar>>;
  const webinarOf = (req: FakeRequest): { found: Found } | { error: FakeReply } => {
    const found = findWebinar(identity(req), req.params.webinarId);
    return found ? { found } : { error: zoomError(404, 3001, `Webinar does not exist: ${req.params.webinarId}.`) };
  };

  const routes = new FakeRoutes()
    .route('GET', '/v2/users', (req) => {
      const account = identity(req);
      const f = fingerprint(['users', account.accountId]);
      const at = paging(req, f);
      if ('error' in at) return at.error;
      const list = new LazyCollection<User>();
      for (const u of account.users) list.append(u);
      const page = pageOf(list, f, at);
      return { body: listBody('users', page.items.map(renderUser), account.users.length, at, page.nextToken) };
    })
    .route('GET', '/v2/users/:userId', (req) => {
      const who = userOf(req);
      return 'error' in who ? who.error : { body: { ...renderUser(who.user), account_id: identity(req).accountId } };
    })
    .route('GET', '/v2/users/:userId/webinars', (req) => {
      const who = userOf(req);
      if ('error' in who) return who.error;
      const type = req.query.get('type') ?? 'scheduled';
      if (type !== 'scheduled' && type !== 'upcoming') return validationFailed('type', "Invalid field. Use 'scheduled' or 'upcoming'.");
      const f = fingerprint(['webinars', who.user.id, type]);
      const at = paging(req, f);
      if ('error' in at) return at.error;
      const now = clock.now();
      // Scheduled lists every webinar not deleted; upcoming only those not over yet.
      const keep = type === 'upcoming' ? (w: WebinarRec) => w.start + w.duration * 60_000 >= now : undefined;
      const list = who.user.webinars;
      const total = keep ? list.page(0, Number.MAX_SAFE_INTEGER, keep).items.length : list.liveCount;
      const page = pageOf(list, f, at, keep);
      return { body: listBody('webinars', page.items.map(renderWebinar), total, at, page.nextToken) };
    })
    .route('GET', '/v2/webinars/:webinarId', (req) => {
      const w = webinarOf(req);
      return 'error' in w ? w.error : { body: renderWebinarDetail(w.found.rec) };
    })
    .route('GET', '/v2/webinars/:webinarId/registrants', (req) => {
      const w = webinarOf(req);
      if ('error' in w) return w.error;
      const status = req.query.get('status') ?? 'approved';
      if (!['approved', 'pending', 'denied'].includes(status)) return validationFailed('status', "Invalid field. Use 'pending', 'approved' or 'denied'.");
      const f = fingerprint(['registrants', w.found.rec.seq, status]);
      const at = paging(req, f);
      if ('error' in at) return at.error;
      const list = registrants.read(w.found.rec.seq);
      const keep = (r: RegistrantRec) => r.status === status;
      // Seeded registrants are all approved: only changed ones can have another status.
      let changedAway = 0;
      let changedTo = 0;
      for (const pos of list.overriddenPositions()) {
        const r = list.get(pos);
        if (r && r.status !== 'approved') changedAway += 1;
        if (r && r.status === status) changedTo += 1;
      }
      const total = status === 'approved' ? list.liveCount - changedAway : changedTo;
      const page = pageOf(list, f, at, keep);
      return { body: listBody('registrants', page.items.map(renderRegistrant), total, at, page.nextToken) };
    })
    .route('GET', '/v2/past_webinars/:webinarId/participants', (req) => {
      const found = findWebinar(identity(req), req.params.webinarId);
      const list = found && participants.read(found.rec.seq);
      // A webinar that does not exist, or has not been held: Zoom's report says it is not found or has expired.
      if (!found || !list || (list.length === 0 && found.rec.start + found.rec.duration * 60_000 > clock.now())) {
        return zoomError(404, 3001, `Webinar ${req.params.webinarId} not found or has expired.`);
      }
      const f = fingerprint(['participants', found.rec.seq]);
      const at = paging(req, f);
      if ('error' in at) return at.error;
      const page = pageOf(list, f, { ...at, skip: 0 });
      return { body: listBody('participants', page.items.map(renderParticipant), list.liveCount, at, page.nextToken, false) };
    });

  // The S2S OAuth token endpoint (zoom.us/oauth/token): Basic client id and secret, account_credentials grant.
  const publicRoutes = new FakeRoutes().route('POST', '/oauth/token', (req) => {
    const form = (req.json ?? {}) as Record<string, string>;
    const grant = req.query.get('grant_type') ?? form.grant_type;
    // The user-level OAuth app's grants (authorization code with PKCE, refresh) share the endpoint.
    if (grant === 'authorization_code' || grant === 'refresh_token') return oauth.handleToken(req);
    const accountId = req.query.get('account_id') ?? form.account_id;
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [clientId, clientSecret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    const account = [...accounts.values()].find((a) => a.clientId === clientId);
    if (!account || account.clientSecret !== clientSecret || account.disabled) return { status: 401, body: { reason: 'Invalid client_id or client_secret', error: 'invalid_client' } };
    if (grant !== 'account_credentials') return { status: 400, body: { reason: 'Unsupported grant type', error: 'unsupported_grant_type' } };
    if (accountId !== account.accountId) return { status: 400, body: { reason: 'Invalid request : account_id is invalid.', error: 'invalid_request' } };
    return { body: { access_token: issue(account), token_type: 'bearer', expires_in: TOKEN_TTL_MS / 1000, scope: 'user:read:admin webinar:read:admin report:read:admin', api_url: 'https://api.zoom.us' } };
  });

  /** Tokens issued so far: each one's serial. */
  let issued = 0;
  const issue = (account: Account, expiresAt?: number): string => {
    const token = `eyJ${makeToken('', 24)}`;
    const now = clock.now();
    issued += 1;
    accessTokens.set(token, { account, serial: issued, expiresAt: expiresAt ?? now + TOKEN_TTL_MS });
    return token;
  };

  // Zoom's user-level OAuth app (zoom.us/oauth/authorize, zoom.us/oauth/token): HTTP Basic client
  // credentials, one-hour access tokens, and a refresh token replaced by every refresh.
  const oauth = addOAuthRoutes<FakeZoomAccount>(publicRoutes, {
    clock,
    authorizePath: '/oauth/authorize',
    tokenPath: null,
    clientAuth: 'basic',
    accessTokenTtlSeconds: TOKEN_TTL_MS / 1000,
    refresh: 'rotate',
    scope: 'user:read webinar:read report:read',
    tokenExtras: { api_url: 'https://api.zoom.us' },
    defaultAccount: () => account,
    issueAccessToken: (handle, expiresAt) => issue(accounts.get(handle.accountId)!, expiresAt ?? undefined),
    tokenError: zoomTokenError,
    app: options.oauthApp,
  });

  const faults = new FaultQueue();
  const setLimits = (limits: ZoomLimits) => {
    buckets = limitBuckets(checkLimits(limits));
    limiters = new Map([...buckets].map(([c, specs]) => [c, new RateLimiter(specs)]));
  };
  if (options.control) {
    addControlRoutes(publicRoutes, {
      platform: 'zoom',
      baseUrl: () => `${server.url}/v2`,
      clock,
      faults,
      requests: (): PlatformLoggedRequest[] => server.requests,
      setLimits: (limits) => setLimits(limits as ZoomLimits),
      seed: (body) => account.seed(body as unknown as ZoomSeedOptions),
      createAccount: () => {
        const created = createAccount();
        return { accountId: created.accountId, clientId: created.clientId, clientSecret: created.clientSecret };
      },
      revoke: (body) => {
        const target = accounts.get(typeof body.accountId === 'string' ? body.accountId : ZOOM_FAKE_CREDENTIALS.accountId);
        if (!target) throw new Error('Send {"accountId"?: an account of the fake, "app"?: true}.');
        if (body.app === true) target.disabled = true;
        else target.revokedBefore = issued + 1;
      },
    });
  }
  const server = await startPlatformServer<Account>({
    clock,
    routes,
    publicRoutes,
    faults,
    port: options.port,
    recordRequests: options.recordRequests,
    latency: options.latency,
    authenticate: (req) => {
      const token = bearerToken(req);
      if (!token) return { reply: zoomError(401, 124, 'Invalid access token.') };
      const entry = accessTokens.get(token);
      if (!entry || entry.account.disabled || entry.serial < entry.account.revokedBefore) return { reply: zoomError(401, 124, 'Invalid access token.') };
      if (clock.now() >= entry.expiresAt) return { reply: zoomError(401, 124, 'Access token is expired.') };
      return { identity: entry.account };
    },
    limit: (req, account) => {
      const category = categoryOf(req.path);
      const limiter = limiters.get(category);
      if (!limiter || limiter.specs.length === 0) return { headers: {} };
      const now = clock.now();
      const taken = limiter.take(account.accountId, now);
      const daily = taken.buckets.find((b) => b.spec.name === 'Daily-limit');
      if (taken.allowed) {
        return { headers: { 'x-ratelimit-category': category, ...(daily ? { 'x-ratelimit-limit': String(daily.spec.limit), 'x-ratelimit-remaining': String(daily.remaining) } : {}) } };
      }
      return { reply: rateLimitReply(category, taken.tripped.spec.name === 'Daily-limit' ? 'Daily-limit' : 'QPS', taken.tripped.spec.limit, now) };
    },
    serverError: (status) => zoomError(status, status, status === 500 ? 'Internal Server Error.' : 'The service is temporarily unavailable. Please try again later.'),
    rateLimited: (policy, req) => {
      const category = categoryOf(req.path);
      const type = policy === 'Daily-limit' ? 'Daily-limit' : 'QPS';
      const spec = buckets.get(category)?.find((b) => b.name === type);
      return rateLimitReply(category, type, spec?.limit ?? (type === 'QPS' ? 20 : 2000), clock.now());
    },
    notFound: () => zoomError(404, 404, 'Not Found'),
    methodNotAllowed: (allowed) => ({ ...zoomError(405, 405, 'Method Not Allowed'), headers: { allow: allowed.join(', ') } }),
  });

  /**
   * Zoom's 429. Per-second: "You have reached the maximum per-second rate limit for this API. Try
   * again later." with X-RateLimit-Type QPS; daily: Retry-After is the UTC midnight it resets at,
   * written as a date (as Zoom's docs show it), not a number of seconds.
   */
  function rateLimitReply(category: ZoomCategory, type: 'QPS' | 'Daily-limit', limit: number, now: number): FakeReply {
    const headers: Record<string, string> = { 'x-ratelimit-category': category, 'x-ratelimit-type': type, 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': '0' };
    if (type === 'Daily-limit') headers['retry-after'] = isoSeconds(nextUtcMidnight(now));
    const message =
      type === 'QPS'
        ? 'You have reached the maximum per-second rate limit for this API. Try again later.'
        : `You have exceeded the daily rate limit of (${limit}) for ${category} API requests. You may resume these requests at GMT 00:00:00.`;
    return { status: 429, headers, body: { code: 429, message } };
  }

  // ---- the test API ------------------------------------------------------------------------------------

  const makeUser = (account: Account, input: { email?: string; firstName?: string; lastName?: string } = {}): User => {
    nextUser += 1;
    const user: User = {
      id: shortId(nextUser, 0x1001),
      email: input.email ?? `host${nextUser}@example.com`,
      firstName: input.firstName ?? 'Host',
      lastName: input.lastName ?? `Number${nextUser}`,
      created: clock.now(),
      account,
      webinars: new LazyCollection(),
    };
    account.users.push(user);
    return user;
  };

  const mustUser = (account: Account, id?: string) => {
    const user = id === undefined ? account.users[0] : account.users.find((u) => u.id === id);
    if (!user) throw new Error(`No user ${id} in account ${account.accountId}`);
    return user;
  };
  const mustWebinar = (account: Account, id: number) => {
    const found = findWebinar(account, String(id));
    if (!found) throw new Error(`No webinar ${id} in account ${account.accountId}`);
    return found;
  };
  const mustRegistrant = (account: Account, id: number, rid: string) => {
    const w = mustWebinar(account, id);
    const n = decodeShortId(rid) - w.rec.seq * PER_WEBINAR_MAX;
    const list = registrants.write(w.rec.seq);
    const rec = n >= 0 && registrantId(w.rec.seq, n) === rid ? list.get(n) : undefined;
    if (!rec) throw new Error(`No registrant ${rid} in webinar ${id}`);
    return { w, list, pos: n, rec };
  };

  const handle = (account: Account): FakeZoomAccount => ({
    accountId: account.accountId,
    clientId: account.clientId,
    clientSecret: account.clientSecret,
    ownerId: account.users[0]!.id,
    createUser: (input) => {
      const user = makeUser(account, input);
      return { id: user.id, email: user.email };
    },
    issueAccessToken: () => issue(account),
    revokeAccessTokens: () => {
      account.revokedBefore = issued + 1;
    },
    disableApp: () => {
      account.disabled = true;
    },
    seed: (seedOptions) => {
      const user = mustUser(account, seedOptions.userId);
      const { webinars: count, registrantsPerWebinar: per } = seedOptions;
      const at = clock.now();
      const { past, startOf } = seedTimeline(at, count, per, seedOptions.pastShare, ['webinars', 'registrants per webinar']);
      const seed = seedOptions.seed ?? 1;
      const personBase = nextPerson;
      nextPerson += count * per;
      const firstSeq = webinarSeqs.reserve(count, user, user.webinars.length);
      user.webinars.appendLazy(count, (k) => {
        const created = at - (count - k) * 60_000 - 86_400_000;
        const start = startOf(k);
        const t = eventTitle(seed, firstSeq + k);
        return {
          seq: firstSeq + k,
          user,
          topic: t.title,
          agenda: t.summary,
          start,
          duration: 60,
          created,
          registrants: { count: per, seed, personBase: personBase + k * per, distinct: seedOptions.distinctPeople, createdFrom: created + 1000, spacing: Math.max(1, Math.floor(59_000 / Math.max(1, per))), held: k < past },
        };
      });
      return { firstWebinarId: webinarId(firstSeq), lastWebinarId: webinarId(firstSeq + Math.max(0, count - 1)) };
    },
    createWebinar: (input = {}) => {
      const user = mustUser(account, input.userId);
      const now = clock.stamp();
      const seq = webinarSeqs.reserve(1, user, user.webinars.length);
      const t = eventTitle(1, seq);
      const rec: WebinarRec = {
        seq,
        user,
        topic: input.topic ?? t.title,
        agenda: input.agenda ?? t.summary,
        start: input.startTime ?? now + 86_400_000,
        duration: input.durationMinutes ?? 60,
        created: now,
        registrants: { count: 0, seed: 1, personBase: 0, createdFrom: now, spacing: 1, held: false },
      };
      user.webinars.append(rec);
      return renderWebinar(rec);
    },
    updateWebinar: (id, patch) => {
      const w = mustWebinar(account, id);
      const rec: WebinarRec = { ...w.rec, topic: patch.topic ?? w.rec.topic, agenda: patch.agenda ?? w.rec.agenda, start: patch.startTime ?? w.rec.start, duration: patch.durationMinutes ?? w.rec.duration };
      w.user.webinars.set(w.pos, rec);
      return renderWebinar(rec);
    },
    deleteWebinar: (id) => {
      const w = mustWebinar(account, id);
      w.user.webinars.remove(w.pos);
    },
    addRegistrant: (id, input = {}) => {
      const w = mustWebinar(account, id);
      const list = registrants.write(w.rec.seq);
      const { status, ...fields } = input;
      const p = { ...person(1, nextPerson++) };
      if (fields.first_name !== undefined) p.firstName = fields.first_name;
      if (fields.last_name !== undefined) p.lastName = fields.last_name;
      if (fields.email !== undefined) p.email = fields.email;
      const rec: RegistrantRec = { n: list.length, webinarSeq: w.rec.seq, person: p, extra: extraFields(fields), status: status ?? 'approved', created: clock.stamp() };
      list.append(rec);
      return renderRegistrant(rec);
    },
    updateRegistrant: (id, rid, patch) => {
      const { list, pos, rec } = mustRegistrant(account, id, rid);
      const p = { ...rec.person };
      if (patch.first_name !== undefined) p.firstName = patch.first_name;
      if (patch.last_name !== undefined) p.lastName = patch.last_name;
      if (patch.email !== undefined) p.email = patch.email;
      const next: RegistrantRec = { ...rec, person: p, extra: { ...rec.extra, ...extraFields(patch) } };
      list.set(pos, next);
      return renderRegistrant(next);
    },
    setRegistrantStatus: (id, rid, status) => {
      const { list, pos, rec } = mustRegistrant(account, id, rid);
      const next = { ...rec, status };
      list.set(pos, next);
      return renderRegistrant(next);
    },
    deleteRegistrant: (id, rid) => {
      const { list, pos } = mustRegistrant(account, id, rid);
      list.remove(pos);
    },
    addParticipant: (id, input = {}) => {
      const w = mustWebinar(account, id);
      const list = participants.write(w.rec.seq);
      const registrant = input.registrantId ? mustRegistrant(account, id, input.registrantId).rec : undefined;
      const name = input.name ?? (registrant ? `${registrant.person.firstName} ${registrant.person.lastName}` : 'Guest');
      const rec: ParticipantRec = { n: list.length, registrantId: input.registrantId ?? '', name, email: input.email ?? registrant?.person.email ?? '', join: w.rec.start, duration: input.durationSeconds ?? 600 };
      list.append(rec);
      return renderParticipant(rec);
    },
    getWebinar: (id) => {
      const found = findWebinar(account, String(id));
      return found ? renderWebinar(found.rec) : undefined;
    },
    allWebinars: (userId) => [...mustUser(account, userId).webinars.entries()].map((e) => renderWebinar(e.item)),
    allRegistrants: (id, status) => [...registrants.read(mustWebinar(account, id).rec.seq).entries()].map((e) => e.item).filter((r) => !status || r.status === status).map(renderRegistrant),
    allParticipants: (id) => [...participants.read(mustWebinar(account, id).rec.seq).entries()].map((e) => renderParticipant(e.item)),
  });

  const createAccount = (credentials?: { accountId: string; clientId: string; clientSecret: string }): FakeZoomAccount => {
    nextAccount += 1;
    const account: Account = {
      accountId: credentials?.accountId ?? `fakeZoomAccount${String(nextAccount).padStart(6, '0')}`,
      clientId: credentials?.clientId ?? makeToken('zc', 10),
      clientSecret: credentials?.clientSecret ?? makeToken('zs', 16),
      users: [],
      disabled: false,
      revokedBefore: 0,
    };
    makeUser(account, { email: `owner${nextAccount}@example.com`, firstName: 'Account', lastName: 'Owner' });
    accounts.set(account.accountId, account);
    return handle(account);
  };

  const account = createAccount(ZOOM_FAKE_CREDENTIALS);

  return {
    url: server.url,
    baseUrl: `${server.url}/v2`,
    tokenUrl: `${server.url}/oauth/token`,
    requests: server.requests,
    clock,
    faults: server.faults,
    limits: { set: setLimits },
    account,
    createAccount: () => createAccount(),
    oauth,
    authorizeUrl: `${server.url}/oauth/authorize`,
    close: server.close,
  };
}

/** Zoom's token endpoint errors: `{reason, error}`, 401 for the client credentials, else 400. */
function zoomTokenError(failure: OAuthFailure, description: string): FakeReply {
  const answers: Record<OAuthFailure, [number, string, string]> = {
    invalid_client: [401, 'invalid_client', 'Invalid client_id or client_secret'],
    bad_code: [400, 'invalid_grant', 'Invalid authorization code'],
    bad_redirect_uri: [400, 'invalid_grant', 'Redirect URI mismatch.'],
    pkce_failed: [400, 'invalid_grant', 'Invalid code_verifier'],
    bad_refresh_token: [400, 'invalid_grant', 'Invalid Token!'],
    unsupported_grant_type: [400, 'unsupported_grant_type', 'Unsupported grant type'],
    invalid_request: [400, 'invalid_request', description],
  };
  const [status, error, reason] = answers[failure];
  return { status, body: { reason, error } };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The number a `shortId` carries in its last eleven characters, or -1. */
function decodeShortId(id: string): number {
  if (id.length !== 22) return -1;
  let n = 0;
  for (let i = 21; i >= 11; i -= 1) {
    const digit = ALPHABET.indexOf(id[i]!);
    if (digit < 0) return -1;
    n = n * 64 + digit;
  }
  return Number.isSafeInteger(n) ? n : -1;
}

function extraFields(input: ZoomRegistrantInput): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['phone', 'address', 'city', 'state', 'zip', 'country', 'org', 'job_title'] as const) {
    const value = input[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
