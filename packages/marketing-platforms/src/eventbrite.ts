import { toCountryCode } from './countries';
import { PlatformError } from './errors';
import { bearerTokenProtocol, bodyFields, describe, ownBackoff, type PlatformHttp, type PlatformProtocol, type PlatformResponse, type RateContext, type RequestSpec, type Verdict } from './http';
import { clampPageSize, type ClientOptions, type ContactsPage, type EventsPage, type PlatformClient, type SupportedFields } from './platform';
import { isoOrNull, makeContact, makeEvent, readPath, textOrNull } from './records';
import type { AccountInfo, FieldMapping } from './types';

/**
 * Eventbrite v3: the user's organizations, each organization's events (`status=all` so cancelled ones
 * stay visible, oldest first), each event's attendees (`changed_since` for incremental syncs), paged
 * with `continuation` until `has_more_items` is false.
 */

const MAX_PAGE = 200;

export const EVENTBRITE_FIELDS: SupportedFields = {
  events: [
    'id', 'name.text', 'name.html', 'description.text', 'description.html', 'summary', 'url', 'start.utc', 'start.local', 'start.timezone', 'end.utc',
    'end.local', 'end.timezone', 'organization_id', 'created', 'changed', 'published', 'capacity', 'status', 'currency', 'listed', 'shareable',
    'online_event', 'is_free', 'organizer_id', 'venue_id', 'category_id', 'subcategory_id', 'format_id', 'is_series', 'is_series_parent',
  ],
  contacts: [
    'id', 'created', 'changed', 'status', 'cancelled', 'refunded', 'checked_in', 'event_id', 'order_id', 'ticket_class_id', 'ticket_class_name',
    'profile.first_name', 'profile.last_name', 'profile.name', 'profile.email', 'profile.cell_phone', 'profile.work_phone', 'profile.home_phone',
    'profile.company', 'profile.job_title', 'profile.addresses.*', 'answers.*', 'costs.gross.value', 'costs.gross.currency',
  ],
};

export function eventbriteProtocol(credentials: Record<string, string>): PlatformProtocol {
  return bearerTokenProtocol('Eventbrite', credentials.access_token, 'a private token or OAuth access token', classifyEventbrite);
}

function classifyEventbrite(res: PlatformResponse, spec: RequestSpec, ctx: RateContext): Verdict {
  const body = bodyFields(res);
  const what = describe(res.body);
  if (res.status === 429) {
    // HIT_RATE_LIMIT with no Retry-After: hourly and daily windows whose start we cannot see.
    const daily = /per day/i.test(String(body.error_description ?? ''));
    return { rateLimitedUntil: daily ? ownBackoff(ctx, 3_600_000, 6 * 3_600_000) : ownBackoff(ctx, 5 * 60_000, 3_600_000), message: `Eventbrite rate limit: ${what}`, own: true };
  }
  if (res.status === 401 || res.status === 403 || body.error === 'INVALID_AUTH' || body.error === 'INVALID_AUTH_HEADER' || body.error === 'NO_AUTH') {
    return { error: new PlatformError('credentials_invalid', `Eventbrite refused the credentials (${res.status} ${what})`, res.status) };
  }
  if (res.status === 404) return { error: new PlatformError('not_found', `Eventbrite: not found (${what})`, 404) };
  if (res.status === 400 && spec.withCursor) {
    const detail = (body.error_detail as Record<string, Record<string, unknown>> | undefined)?.ARGUMENTS_ERROR;
    if (body.error === 'BAD_PAGE' || (detail && 'continuation' in detail)) return { error: new PlatformError('page_token_expired', `Eventbrite no longer takes the continuation: ${what}`, 400) };
  }
  return { error: new PlatformError('failed', `Eventbrite answered ${res.status}: ${what}`, res.status) };
}

type Json = Record<string, unknown>;
type Page = { pagination?: { continuation?: string; has_more_items?: boolean } };

/** `2026-01-01T00:00:00Z`: the form Eventbrite takes for dates in queries. */
function eventbriteDate(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

export class EventbriteClient implements PlatformClient {
  readonly listings = ['attendees'] as const;
  private readonly http: PlatformHttp;
  private readonly pageSize: number;
  private readonly mappings: FieldMapping[];
  private readonly organizationId: string | null;

  constructor(options: ClientOptions) {
    this.http = options.http;
    this.pageSize = clampPageSize(options.pageSize, MAX_PAGE);
    this.mappings = options.fieldMappings;
    this.organizationId = options.credentials.organization_id || null;
  }

  async verify(): Promise<AccountInfo> {
    const body = (await this.http.request({ method: 'GET', path: '/users/me/' })).body as Json;
    return { remoteAccountId: textOrNull(body.id), name: textOrNull(body.name) };
  }

  async scopes(): Promise<string[]> {
    if (this.organizationId) return [this.organizationId];
    const ids: string[] = [];
    let continuation: string | null = null;
    do {
      const res = await this.http.request({ method: 'GET', path: '/users/me/organizations/', query: { continuation }, withCursor: continuation !== null });
      const body = res.body as Page & { organizations?: Json[] };
      for (const o of body.organizations ?? []) ids.push(String(o.id));
      continuation = nextOf(body);
    } while (continuation);
    return ids;
  }

  async eventsPage(scope: string, cursor: string | null): Promise<EventsPage> {
    const path = `/organizations/${encodeURIComponent(scope)}/events/`;
    const res = await this.http.request({ method: 'GET', path, query: { status: 'all', order_by: 'created_asc', page_size: this.pageSize, continuation: cursor }, withCursor: cursor !== null });
    const body = res.body as Page & { events?: Json[] };
    const events = (body.events ?? []).map((e) =>
      makeEvent(
        String(e.id),
        {
          name: textOrNull(readPath(e, 'name.text')),
          description: textOrNull(readPath(e, 'description.text')) ?? textOrNull(e.summary),
          remote_created_at: isoOrNull(e.created),
          start_time: isoOrNull(readPath(e, 'start.utc')),
          end_time: isoOrNull(readPath(e, 'end.utc')),
          emails: [],
          messages: [],
        },
        isoOrNull(e.changed),
        [{ path, data: e }],
        this.mappings,
      ),
    );
    return { events, contexts: events.map(() => ({})), next: nextOf(body) };
  }

  async contactsPage(eventId: string, _ctx: unknown, _listing: string, cursor: string | null, modifiedSince: Date | null): Promise<ContactsPage> {
    const path = `/events/${encodeURIComponent(eventId)}/attendees/`;
    let body: Page & { attendees?: Json[] };
    try {
      const query = { page_size: this.pageSize, continuation: cursor, changed_since: modifiedSince ? eventbriteDate(modifiedSince) : undefined };
      body = (await this.http.request({ method: 'GET', path, query, withCursor: cursor !== null })).body as typeof body;
    } catch (err) {
      if (err instanceof PlatformError && err.kind === 'not_found') return { items: [], next: null };
      throw err;
    }
    const attendees = body.attendees ?? [];
    const contacts = attendees.map((a) => {
      const profile = (a.profile ?? {}) as Json;
      const address = pickAddress(profile.addresses);
      return makeContact(
        String(a.id),
        {
          first_name: textOrNull(profile.first_name),
          last_name: textOrNull(profile.last_name),
          email: textOrNull(profile.email),
          phone: textOrNull(profile.cell_phone) ?? textOrNull(profile.work_phone) ?? textOrNull(profile.home_phone),
          state: textOrNull(address?.region),
          country: toCountryCode(address?.country),
          postal_code: textOrNull(address?.postal_code),
          remote_created_at: isoOrNull(a.created),
          remote_updated_at: isoOrNull(a.changed),
        },
        [{ path, data: a }],
        this.mappings,
      );
    });
    return { items: contacts.map((contact) => ({ itemId: contact.remoteId, contact })), next: nextOf(body) };
  }
}

function nextOf(body: Page): string | null {
  return body.pagination?.has_more_items && body.pagination.continuation ? body.pagination.continuation : null;
}

/** The attendee's home address, else billing, shipping or work (the first that has something). */
function pickAddress(addresses: unknown): Json | undefined {
  if (typeof addresses !== 'object' || addresses === null) return undefined;
  const all = addresses as Record<string, Json | undefined>;
  for (const kind of ['home', 'bill', 'ship', 'work']) {
    const a = all[kind];
    if (a && (a.country || a.region || a.postal_code)) return a;
  }
  return undefined;
}
