import { createHash } from 'node:crypto';
import { toCountryCode } from './countries';
import { PlatformError } from './errors';
import { bodyFields, describe, ownBackoff, type PlatformHttp, type PlatformProtocol, type PlatformResponse, type RateContext, type RequestSpec, type Verdict } from './http';
import { clampPageSize, splitName, type ClientOptions, type ContactsPage, type EventContext, type EventsPage, type PlatformClient, type SupportedFields } from './platform';
import { isoOrNull, makeContact, makeEvent, textOrNull } from './records';
import type { AccountInfo, FetchedContact, FieldMapping, PlatformConnection, TokenCache } from './types';

/**
 * Zoom webinars: a user's webinars (`GET /users/{userId}/webinars`), their registrants and, for held
 * ones, their participants (`GET /past_webinars/{id}/participants`), paged with `next_page_token`
 * (at most 300 a page; a token lasts 15 minutes). Authorization is a bearer token, or
 * Server-to-Server OAuth: account_id + client_id + client_secret exchanged at the token URL (its own
 * setting, zoom.us/oauth/token) for a one-hour token, cached until shortly before it expires.
 */

const MAX_PAGE = 300;
/** A token is used until this long before Zoom says it expires. */
const TOKEN_MARGIN_MS = 60_000;

export const ZOOM_FIELDS: SupportedFields = {
  events: ['id', 'uuid', 'host_id', 'topic', 'type', 'start_time', 'duration', 'timezone', 'agenda', 'created_at', 'join_url', 'is_simulive'],
  contacts: [
    'id', 'first_name', 'last_name', 'email', 'address', 'city', 'country', 'zip', 'state', 'phone', 'industry', 'org', 'job_title',
    'purchasing_time_frame', 'role_in_purchase_process', 'no_of_employees', 'comments', 'custom_questions.*', 'status', 'create_time', 'join_url',
    // Participants who did not register.
    'name', 'user_id', 'user_email', 'join_time', 'leave_time', 'duration',
  ],
};

class MemoryTokenCache implements TokenCache {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();
  get(key: string) {
    return this.tokens.get(key);
  }
  set(key: string, value: { token: string; expiresAt: number }) {
    this.tokens.set(key, value);
  }
  delete(key: string) {
    this.tokens.delete(key);
  }
}

/** One cache per process for connections that bring none: tokens are per Zoom app, not per sync. */
const processTokenCache = new MemoryTokenCache();

export function zoomProtocol(conn: PlatformConnection, now: () => Date, http: () => PlatformHttp): PlatformProtocol {
  const c = conn.credentials;
  const s2s = Boolean(c.account_id && c.client_id && c.client_secret);
  const cache = conn.tokenCache ?? processTokenCache;
  // The secret is part of the key only as a hash: a changed secret is another cache entry, and the key never shows it.
  const key = `zoom|${conn.tokenUrl ?? ''}|${c.account_id}|${c.client_id}|${createHash('sha256').update(c.client_secret ?? '').digest('hex').slice(0, 16)}`;

  const categories = new Map<string, string>();
  let fetching: Promise<string> | null = null;
  const fetchToken = async (): Promise<string> => {
    if (!conn.tokenUrl) throw new PlatformError('failed', 'Zoom Server-to-Server OAuth needs the token URL setting (https://zoom.us/oauth/token).');
    const url = http().url({ path: '', query: { grant_type: 'account_credentials', account_id: c.account_id } }, conn.tokenUrl);
    const res = await http().sendRaw(url, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`, accept: 'application/json' },
    });
    const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as Record<string, unknown>;
    if (res.status === 200 && typeof body.access_token === 'string') {
      const ttl = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3_600_000;
      cache.set(key, { token: body.access_token, expiresAt: now().getTime() + ttl - TOKEN_MARGIN_MS });
      return body.access_token;
    }
    if (res.status >= 500 || res.status === 429 || res.status === 408) throw new PlatformError('transient', `Zoom's token endpoint answered ${res.status}`, res.status);
    throw new PlatformError('credentials_invalid', `Zoom refused the Server-to-Server OAuth credentials (${res.status} ${describe(res.body)})`, res.status);
  };

  return {
    name: 'Zoom',
    authorization: async () => {
      if (!s2s) {
        if (!c.access_token) throw new PlatformError('credentials_invalid', 'Zoom needs credentials.access_token, or account_id, client_id and client_secret (Server-to-Server OAuth).');
        return `Bearer ${c.access_token}`;
      }
      const cached = cache.get(key);
      if (cached && cached.expiresAt > now().getTime()) return `Bearer ${cached.token}`;
      // Requests in flight together share one token exchange.
      fetching ??= fetchToken().finally(() => {
        fetching = null;
      });
      return `Bearer ${await fetching}`;
    },
    dropToken: (authorization) => {
      if (!s2s) return false;
      if (`Bearer ${cache.get(key)?.token}` === authorization) cache.delete(key);
      return true;
    },
    classify: classifyZoom,
    // Zoom limits each API category (Light, Medium, Heavy) per second, per account; every answer names its
    // category, and a per-second 429 the category's limit. Until an endpoint's category is known it is not paced.
    bucket: (spec) => {
      const category = categories.get(endpointOf(spec));
      return category ? { name: category, windowMs: 1000 } : null;
    },
    limitsOf: (res, spec) => {
      const category = res.headers.get('x-ratelimit-category');
      if (!category) return [];
      categories.set(endpointOf(spec), category);
      const limit = Number(res.headers.get('x-ratelimit-limit'));
      return res.status === 429 && res.headers.get('x-ratelimit-type') === 'QPS' && Number.isInteger(limit) && limit > 0 ? [{ name: category, limit, windowMs: 1000 }] : [];
    },
  };
}

/** An endpoint without its ids (`GET webinars registrants`): what Zoom assigns a rate-limit category to. */
function endpointOf(spec: RequestSpec): string {
  const parts = spec.path.split('/').filter((p) => p !== '');
  return `${spec.method} ${parts[0] ?? ''} ${parts[parts.length - 1] ?? ''}`;
}

function classifyZoom(res: PlatformResponse, spec: RequestSpec, ctx: RateContext): Verdict {
  const body = bodyFields(res);
  const what = describe(res.body);
  if (res.status === 429) {
    // (The daily limit's Retry-After, a date, is read before this.)
    const type = res.headers.get('x-ratelimit-type');
    if (type === 'QPS') return { rateLimitedUntil: new Date(ctx.now.getTime() + 1000), message: `Zoom per-second limit: ${what}` };
    if (type === 'Daily-limit') {
      const d = ctx.now;
      return { rateLimitedUntil: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)), message: `Zoom daily limit: ${what}` };
    }
    return { rateLimitedUntil: ownBackoff(ctx, 5_000, 10 * 60_000), message: `Zoom rate limit: ${what}`, own: true };
  }
  // 124 "Access token is expired." / "Invalid access token.": with S2S, a new token may do (the protocol decides).
  if (res.status === 401) return { reauth: true };
  if (res.status === 403) return { error: new PlatformError('credentials_invalid', `Zoom refused the credentials (403 ${what})`, 403) };
  if (res.status === 404) return { error: new PlatformError('not_found', `Zoom: not found (${what})`, 404) };
  if (res.status === 400 && spec.withCursor && body.code === 300 && /page token/i.test(String(body.message ?? ''))) {
    return { error: new PlatformError('page_token_expired', `Zoom: ${what}`, 400) };
  }
  return { error: new PlatformError('failed', `Zoom answered ${res.status}: ${what}`, res.status) };
}

type Json = Record<string, unknown>;

export class ZoomClient implements PlatformClient {
  /**
   * Zoom's registrants list answers `status=approved` unless told otherwise, so each status is its own
   * listing: approved, then pending (awaiting the host's approval) and denied, then the participants.
   */
  readonly listings = ['registrants:approved', 'registrants:pending', 'registrants:denied', 'participants'] as const;
  private readonly http: PlatformHttp;
  private readonly pageSize: number;
  private readonly mappings: FieldMapping[];

  constructor(
    options: ClientOptions,
    private readonly now: () => Date,
  ) {
    this.http = options.http;
    this.pageSize = clampPageSize(options.pageSize, MAX_PAGE);
    this.mappings = options.fieldMappings;
    this.userId = options.credentials.user_id || null;
    this.accountId = options.credentials.account_id || null;
  }

  private readonly userId: string | null;
  private readonly accountId: string | null;

  async verify(): Promise<AccountInfo> {
    // An account-level (Server-to-Server) app has no "me": it proves itself by listing the account's users.
    if (this.accountId && !this.userId) {
      const body = (await this.http.request({ method: 'GET', path: '/users', query: { status: 'active', page_size: 1 } })).body as { users?: Json[] };
      return { remoteAccountId: this.accountId, name: textOrNull(body.users?.[0]?.email) };
    }
    const res = await this.http.request({ method: 'GET', path: `/users/${encodeURIComponent(this.userId ?? 'me')}` });
    const body = res.body as Json;
    return { remoteAccountId: textOrNull(body.account_id) ?? this.accountId, name: textOrNull(body.email) };
  }

  /** The users whose webinars are synced: the one named in the credentials, else every active user of the account. */
  async scopes(): Promise<string[]> {
    if (this.userId) return [this.userId];
    const ids: string[] = [];
    let token: string | null = null;
    do {
      const res = await this.http.request({ method: 'GET', path: '/users', query: { status: 'active', page_size: MAX_PAGE, next_page_token: token }, withCursor: token !== null });
      const body = res.body as { users?: Json[]; next_page_token?: string };
      for (const u of body.users ?? []) ids.push(String(u.id));
      token = body.next_page_token || null;
    } while (token);
    return ids;
  }

  async eventsPage(scope: string, cursor: string | null): Promise<EventsPage> {
    const path = `/users/${encodeURIComponent(scope)}/webinars`;
    const res = await this.http.request({ method: 'GET', path, query: { type: 'scheduled', page_size: this.pageSize, next_page_token: cursor }, withCursor: cursor !== null });
    const body = res.body as { webinars?: Json[]; next_page_token?: string };
    const items = body.webinars ?? [];
    const events = items.map((w) => {
      const start = isoOrNull(w.start_time);
      const end = start && typeof w.duration === 'number' ? new Date(Date.parse(start) + w.duration * 60_000).toISOString() : null;
      return makeEvent(
        String(w.id),
        { name: textOrNull(w.topic), description: textOrNull(w.agenda), remote_created_at: isoOrNull(w.created_at), start_time: start, end_time: end, emails: [], messages: [] },
        null,
        [{ path, data: w }],
        this.mappings,
      );
    });
    return { events, contexts: events.map((e) => ({ end: e.fields.end_time })), next: body.next_page_token || null };
  }

  async contactsPage(eventId: string, ctx: EventContext, listing: string, cursor: string | null): Promise<ContactsPage> {
    const empty: ContactsPage = { items: [], next: null };
    const registrants = listing.startsWith('registrants:');
    if (!registrants) {
      // Only a webinar that has ended has a participants report (Zoom answers 3001 "not found or has expired" before).
      const end = typeof ctx.end === 'string' ? Date.parse(ctx.end) : NaN;
      if (Number.isNaN(end) || end > this.now().getTime()) return empty;
    }
    const path = registrants ? `/webinars/${encodeURIComponent(eventId)}/registrants` : `/past_webinars/${encodeURIComponent(eventId)}/participants`;
    let body: { registrants?: Json[]; participants?: Json[]; next_page_token?: string };
    try {
      const query = { page_size: this.pageSize, next_page_token: cursor, ...(registrants ? { status: listing.slice('registrants:'.length) } : {}) };
      body = (await this.http.request({ method: 'GET', path, query, withCursor: cursor !== null })).body as typeof body;
    } catch (err) {
      if (err instanceof PlatformError && err.kind === 'not_found') return empty;
      throw err;
    }
    const next = body.next_page_token || null;
    if (registrants) return { items: (body.registrants ?? []).map((r) => ({ itemId: String(r.id), contact: this.fromRegistrant(r, path) })), next };
    const items = (body.participants ?? []).map((p) => {
      const id = participantId(p);
      // A participant who registered is that registrant's contact, already written with the registrants.
      return { itemId: id, contact: textOrNull(p.registrant_id) ? null : this.fromParticipant(id, p, path) };
    });
    return { items, next };
  }

  private fromRegistrant(r: Json, path: string): FetchedContact {
    return makeContact(
      String(r.id),
      {
        first_name: textOrNull(r.first_name),
        last_name: textOrNull(r.last_name),
        email: textOrNull(r.email),
        phone: textOrNull(r.phone),
        state: textOrNull(r.state),
        country: toCountryCode(r.country),
        postal_code: textOrNull(r.zip),
        remote_created_at: isoOrNull(r.create_time),
        // Zoom keeps no update time for a registrant.
        remote_updated_at: null,
      },
      [{ path, data: r }],
      this.mappings,
    );
  }

  private fromParticipant(id: string, p: Json, path: string): FetchedContact {
    const { first, last } = splitName(p.name);
    return makeContact(
      id,
      { first_name: first, last_name: last, email: textOrNull(p.user_email), phone: null, state: null, country: null, postal_code: null, remote_created_at: isoOrNull(p.join_time), remote_updated_at: null },
      [{ path, data: p }],
      this.mappings,
    );
  }
}

/** A stable id for a participant: the registrant's id, else Zoom's participant id, else the email, else the per-join user id. */
function participantId(p: Json): string {
  const registrant = textOrNull(p.registrant_id);
  if (registrant) return registrant;
  const id = textOrNull(p.id);
  if (id) return `participant:${id}`;
  const email = textOrNull(p.user_email);
  if (email) return `participant:${email.toLowerCase()}`;
  return `participant:${String(p.user_id ?? p.name ?? '')}`;
}
