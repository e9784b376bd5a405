import { toCountryCode } from './countries';
import { PlatformError } from './errors';
import { bearerTokenProtocol, bodyFields, describe, ownBackoff, type PlatformHttp, type PlatformProtocol, type PlatformResponse, type RateContext, type RequestSpec, type Verdict } from './http';
import { clampPageSize, type ClientOptions, type ContactsPage, type EventsPage, type PlatformClient, type SupportedFields } from './platform';
import { isoOrNull, makeContact, makeEvent, textOrNull } from './records';
import type { AccountInfo, FetchedContact, FieldMapping, RemoteData } from './types';

/**
 * HubSpot Marketing Events v3: events from `GET /marketing/v3/marketing-events/` (`after`/`limit`,
 * at most 100, sorted by objectId), attendees from the participations breakdown, and their phone and
 * address from a CRM contacts batch read (a participation only carries id, email and names).
 */

const EVENTS_PATH = '/marketing/v3/marketing-events/';
const BATCH_READ_PATH = '/crm/v3/objects/contacts/batch/read';
const MAX_PAGE = 100;
/** The CRM properties a Contact is built from. */
const CONTACT_PROPERTIES = ['firstname', 'lastname', 'email', 'phone', 'state', 'country', 'zip', 'createdate', 'lastmodifieddate'];

export const HUBSPOT_FIELDS: SupportedFields = {
  events: [
    'objectId', 'eventName', 'eventDescription', 'eventType', 'eventOrganizer', 'eventUrl', 'startDateTime', 'endDateTime', 'eventCancelled',
    'eventCompleted', 'eventStatus', 'externalEventId', 'appInfo.id', 'appInfo.name', 'registrants', 'attendees', 'cancellations', 'noShows',
    'createdAt', 'updatedAt', 'customProperties.*',
  ],
  contacts: [
    'id', 'createdAt', 'updatedAt', 'archived', 'properties.email', 'properties.firstname', 'properties.lastname', 'properties.phone',
    'properties.address', 'properties.city', 'properties.state', 'properties.zip', 'properties.country', 'properties.company',
    'properties.jobtitle', 'properties.*',
  ],
};

/** HubSpot counts every call of a token in one rolling ten-second window (its size depends on the account's tier). */
const TEN_SECONDLY = 'ten-secondly';

export function hubspotProtocol(credentials: Record<string, string>): PlatformProtocol {
  return {
    ...bearerTokenProtocol('HubSpot', credentials.access_token, 'a private-app or OAuth access token', classifyHubspot),
    bucket: () => ({ name: TEN_SECONDLY, windowMs: 10_000 }),
    // Every answer, 429s included, states the window's size: X-HubSpot-RateLimit-Max per X-HubSpot-RateLimit-Interval-Milliseconds.
    limitsOf: (res) => {
      const limit = Number(res.headers.get('x-hubspot-ratelimit-max'));
      const windowMs = Number(res.headers.get('x-hubspot-ratelimit-interval-milliseconds')) || 10_000;
      return Number.isInteger(limit) && limit > 0 ? [{ name: TEN_SECONDLY, limit, windowMs }] : [];
    },
  };
}

function classifyHubspot(res: PlatformResponse, spec: RequestSpec, ctx: RateContext): Verdict {
  const body = bodyFields(res);
  const what = describe(res.body);
  if (res.status === 429) {
    if (body.policyName === 'DAILY') {
      // The day resets at midnight in the portal's time zone, which the API does not tell: look again hourly-ish.
      return { rateLimitedUntil: ownBackoff(ctx, 3_600_000, 4 * 3_600_000), message: `HubSpot daily limit reached: ${what}`, own: true };
    }
    // Ten-secondly (rolling) limits: the window the headers name, then doubling if it keeps happening.
    const interval = Number(res.headers.get('x-hubspot-ratelimit-interval-milliseconds')) || 10_000;
    return { rateLimitedUntil: ownBackoff(ctx, interval, 5 * 60_000), message: `HubSpot rate limit: ${what}`, own: true };
  }
  if (res.status === 401 || res.status === 403) return { error: new PlatformError('credentials_invalid', `HubSpot refused the credentials (${res.status} ${what})`, res.status) };
  if (res.status === 404) return { error: new PlatformError('not_found', `HubSpot: not found (${spec.path})`, 404) };
  if (res.status === 400 && spec.withCursor && /after/i.test(String(body.message ?? ''))) {
    return { error: new PlatformError('page_token_expired', `HubSpot no longer takes the page cursor: ${what}`, 400) };
  }
  return { error: new PlatformError('failed', `HubSpot answered ${res.status}: ${what}`, res.status) };
}

type Json = Record<string, unknown>;

export class HubspotClient implements PlatformClient {
  readonly listings = ['participations'] as const;
  private readonly http: PlatformHttp;
  private readonly pageSize: number;
  private readonly mappings: FieldMapping[];
  private readonly contactProperties: string[];

  constructor(options: ClientOptions) {
    this.http = options.http;
    this.pageSize = clampPageSize(options.pageSize, MAX_PAGE);
    this.mappings = options.fieldMappings;
    // A field mapping onto a CRM property needs that property in the batch read.
    const mapped = options.fieldMappings.filter((m) => m.model === 'contacts' && m.remotePath.startsWith('properties.')).map((m) => m.remotePath.split('.')[1]!);
    this.contactProperties = [...new Set([...CONTACT_PROPERTIES, ...mapped])];
  }

  async verify(): Promise<AccountInfo> {
    try {
      const res = await this.http.request({ method: 'GET', path: '/account-info/v3/details' });
      const body = res.body as Json;
      return { remoteAccountId: body.portalId === undefined ? null : String(body.portalId), name: textOrNull(body.uiDomain) };
    } catch (err) {
      // Account details need no scope on a real portal but are not everywhere (older tokens, the fake): the events list proves the token.
      if (!(err instanceof PlatformError) || (err.kind !== 'not_found' && err.kind !== 'failed')) throw err;
      await this.http.request({ method: 'GET', path: EVENTS_PATH, query: { limit: 1 } });
      return { remoteAccountId: null, name: null };
    }
  }

  async scopes(): Promise<string[]> {
    return [''];
  }

  async eventsPage(_scope: string, cursor: string | null): Promise<EventsPage> {
    const res = await this.http.request({ method: 'GET', path: EVENTS_PATH, query: { limit: this.pageSize, after: cursor }, withCursor: cursor !== null });
    const body = res.body as { results?: Json[]; paging?: { next?: { after?: string } } };
    const items = body.results ?? [];
    const events = items.map((e) =>
      makeEvent(
        String(e.objectId),
        {
          name: textOrNull(e.eventName),
          description: textOrNull(e.eventDescription),
          remote_created_at: isoOrNull(e.createdAt),
          start_time: isoOrNull(e.startDateTime),
          end_time: isoOrNull(e.endDateTime),
          emails: [],
          messages: [],
        },
        isoOrNull(e.updatedAt),
        [{ path: EVENTS_PATH, data: e }],
        this.mappings,
      ),
    );
    return { events, contexts: events.map(() => ({})), next: body.paging?.next?.after ?? null };
  }

  async contactsPage(eventId: string, _ctx: unknown, _listing: string, cursor: string | null): Promise<ContactsPage> {
    const path = `/marketing/v3/marketing-events/participations/${encodeURIComponent(eventId)}/breakdown`;
    let body: { results?: Json[]; paging?: { next?: { after?: string } } };
    try {
      body = (await this.http.request({ method: 'GET', path, query: { limit: this.pageSize, after: cursor }, withCursor: cursor !== null })).body as typeof body;
    } catch (err) {
      // Deleted since it was listed: nothing more to walk (the next full pass drops it).
      if (err instanceof PlatformError && err.kind === 'not_found') return { items: [], next: null };
      throw err;
    }
    const participations = body.results ?? [];
    const contactOf = (p: Json) => ((p.associations as Json | undefined)?.contact ?? {}) as Json;
    const ids = [...new Set(participations.map((p) => String(contactOf(p).contactId ?? '')).filter((id) => id !== ''))];
    const crm = await this.batchRead(ids);
    const items = participations.map((p) => {
      const assoc = contactOf(p);
      const id = String(assoc.contactId ?? '');
      const full = crm.get(id);
      const contact: FetchedContact | null = id === '' ? null : full ? this.fromCrm(id, full) : this.fromAssociation(id, assoc, path);
      return { itemId: String(p.id), contact };
    });
    return { items, next: body.paging?.next?.after ?? null };
  }

  /** CRM contacts by id; archived or unknown ones are simply absent (HubSpot answers 207 with their ids). */
  private async batchRead(ids: string[]): Promise<Map<string, Json>> {
    const out = new Map<string, Json>();
    if (ids.length === 0) return out;
    const res = await this.http.request({ method: 'POST', path: BATCH_READ_PATH, json: { properties: this.contactProperties, propertiesWithHistory: [], inputs: ids.map((id) => ({ id })) } });
    for (const c of ((res.body as Json).results ?? []) as Json[]) out.set(String(c.id), c);
    return out;
  }

  private fromCrm(id: string, c: Json): FetchedContact {
    const props = (c.properties ?? {}) as Json;
    const remoteData: RemoteData[] = [{ path: BATCH_READ_PATH, data: c }];
    return makeContact(
      id,
      {
        first_name: textOrNull(props.firstname),
        last_name: textOrNull(props.lastname),
        email: textOrNull(props.email),
        phone: textOrNull(props.phone),
        state: textOrNull(props.state),
        country: toCountryCode(props.country),
        postal_code: textOrNull(props.zip),
        remote_created_at: isoOrNull(c.createdAt ?? props.createdate),
        remote_updated_at: isoOrNull(c.updatedAt ?? props.lastmodifieddate),
      },
      remoteData,
      this.mappings,
    );
  }

  /** A contact the CRM read did not return (archived meanwhile): what the participation says about it. */
  private fromAssociation(id: string, assoc: Json, path: string): FetchedContact {
    return makeContact(
      id,
      { first_name: textOrNull(assoc.firstname), last_name: textOrNull(assoc.lastname), email: textOrNull(assoc.email), phone: null, state: null, country: null, postal_code: null, remote_created_at: null, remote_updated_at: null },
      [{ path, data: assoc }],
      this.mappings,
    );
  }
}
