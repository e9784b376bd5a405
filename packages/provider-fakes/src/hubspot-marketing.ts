import { randomUUID } from 'node:crypto';
import type { FakeReply, FakeRequest, FakeRoutes } from './fake-server';
import { ChildCollections, LazyCollection, SequenceRanges } from './lazy-collection';
import type { FakeClock } from './platform-clock';
import { RateLimiter, type BucketState, type RateBucketSpec } from './platform-limits';
import type { PlatformRequest } from './platform-server';
import { decodePageToken, encodePageToken, fingerprint, makeToken } from './platform-tokens';
import { eventTitle, iso, person, seedTimeline, type Person } from './seed-data';

/**
 * The marketing side of the fake HubSpot: Marketing Events v3 (list, read, create, update, cancel,
 * delete), their participations breakdown, and the CRM contacts behind them (batch read), for many
 * portals behind one host. Mounted on the CRM fake's routes by `startFakeHubspot` (one host, as the
 * real api.hubapi.com). See the package README.
 */

/** HubSpot's limits by account tier (per 10 s per app, per day per account), or numbers of your own. */
export type HubspotLimits = 'unlimited' | 'free' | 'starter' | 'professional' | 'enterprise' | { tenSecondly?: number; daily?: number };

export type AttendanceState = 'REGISTERED' | 'ATTENDED' | 'CANCELLED' | 'NO_SHOW';

export interface HubspotSeedOptions {
  events: number;
  participantsPerEvent: number;
  /**
   * How many different contacts the participations of this batch point at (default: one per
   * participation). With fewer, the same contact takes part in several events.
   */
  distinctContacts?: number;
  /** Share of the events already over at seeding time (default 0.5). */
  pastShare?: number;
  /** Varies the made-up names (default 1). */
  seed?: number;
}

export interface HubspotEventInput {
  eventName?: string;
  eventDescription?: string;
  eventType?: string;
  eventOrganizer?: string;
  eventUrl?: string;
  /** Epoch ms. */
  startDateTime?: number;
  endDateTime?: number;
  externalEventId?: string;
  customProperties?: Array<{ name: string; value: string }>;
}

export interface HubspotContactInput {
  email?: string;
  firstname?: string;
  lastname?: string;
  phone?: string;
  address?: string;
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
  company?: string;
  jobtitle?: string;
}

export type HubspotMarketingEventJson = Record<string, unknown> & { objectId: string; eventName: string; updatedAt: string; eventCancelled: boolean };
export type HubspotParticipationJson = Record<string, unknown> & { id: string; properties: { attendanceState: AttendanceState; occurredAt: number } };
export type HubspotContactJson = { id: string; properties: Record<string, string | null>; createdAt: string; updatedAt: string; archived: boolean };

/** One HubSpot portal (account) of the fake, with its tokens, marketing events and contacts. */
export interface FakeHubspotPortal {
  portalId: number;
  /** A private-app token of the portal. */
  token: string;
  /** Another token for the portal: `private-app` (sends the daily limit headers) or `oauth` (does not). */
  createToken(kind?: 'private-app' | 'oauth'): string;
  /**
   * A token stops working: 401 INVALID_AUTHENTICATION, or with `expired` the 401
   * EXPIRED_AUTHENTICATION an OAuth token past its lifetime gets. Default: the portal's `token`.
   */
  revokeToken(token?: string, options?: { expired?: boolean }): void;
  /** Adds `events` marketing events with `participantsPerEvent` participations each, made on demand. */
  seed(options: HubspotSeedOptions): { firstObjectId: string; lastObjectId: string };
  createEvent(input?: HubspotEventInput): HubspotMarketingEventJson;
  /** Changes an event; its `updatedAt` moves. */
  updateEvent(objectId: string, patch: HubspotEventInput): HubspotMarketingEventJson;
  /** Marks an event cancelled (`eventCancelled: true`); it stays listed. */
  cancelEvent(objectId: string): HubspotMarketingEventJson;
  /** Deletes an event: out of the list, 404 from then on. */
  deleteEvent(objectId: string): void;
  /** Adds a participation, for an existing contact or a new one. */
  addParticipant(objectId: string, input?: { contactId?: string; contact?: HubspotContactInput; state?: AttendanceState }): HubspotParticipationJson;
  setParticipantState(objectId: string, participationId: string, state: AttendanceState): HubspotParticipationJson;
  removeParticipant(objectId: string, participationId: string): void;
  createContact(input?: HubspotContactInput): HubspotContactJson;
  /** Changes a contact's properties; `updatedAt` and `lastmodifieddate` move. */
  updateContact(contactId: string, patch: HubspotContactInput): HubspotContactJson;
  /** Archives (deletes) a contact: batch reads report it missing. */
  archiveContact(contactId: string): void;
  getEvent(objectId: string): HubspotMarketingEventJson | undefined;
  getContact(contactId: string): HubspotContactJson | undefined;
  /** Every event as the list shows them, in objectId order (what a complete walk must find). */
  allEvents(): HubspotMarketingEventJson[];
  /** Every participation of an event, in order. */
  allParticipations(objectId: string): HubspotParticipationJson[];
}

/** Who a HubSpot request comes from. Legacy flags keep the CRM fake's special tokens working. */
export interface HubspotIdentity {
  token: string;
  portal: Portal;
  kind: 'private-app' | 'oauth';
  revoked?: 'revoked' | 'expired';
  /** OAuth access tokens: when it expires (epoch ms on the fake clock); then 401 EXPIRED_AUTHENTICATION. */
  expiresAt?: number;
}

interface EventRec {
  seq: number;
  name: string;
  description: string;
  type: string;
  organizer: string;
  url: string;
  start: number;
  end: number;
  created: number;
  updated: number;
  cancelled: boolean;
  externalEventId: string;
  custom: Array<{ name: string; value: string }>;
  participants: ParticipantSeed;
}

interface ParticipantSeed {
  count: number;
  /** Participation k points at contact seq `contactFirst + (offset + k) % distinct`. */
  contactFirst: number;
  offset: number;
  distinct: number;
  createdFrom: number;
  spacing: number;
  past: boolean;
  occurred: number;
}

interface ParticipationRec {
  n: number;
  eventSeq: number;
  contactSeq: number;
  state: AttendanceState;
  created: number;
  occurredAt: number;
  durationSeconds?: number;
}

interface ContactRec {
  seq: number;
  props: Record<string, string | null>;
  created: number;
  updated: number;
  archived: boolean;
}

export interface Portal {
  portalId: number;
  events: LazyCollection<EventRec>;
  contacts: LazyCollection<ContactRec>;
  tokens: Set<string>;
}

const OBJECT_ID_BASE = 10_000_000_000;
const CONTACT_ID_BASE = 100_000_000_000;
const PARTICIPATION_ID_BASE = 1_000_000_000_000;
const PER_EVENT_MAX = 1_000_000;
const APP = { id: '4242', name: 'Patchbay Fake Events' };
const EXTERNAL_ACCOUNT = 'fake-external-account';
const STATES: readonly AttendanceState[] = ['REGISTERED', 'ATTENDED', 'CANCELLED', 'NO_SHOW'];
/** Seeded states by participation index: over events 7 in 10 attended, 2 no-shows, 1 cancelled; upcoming ones 9 registered, 1 cancelled. */
const pastState = (k: number): AttendanceState => (k % 10 < 7 ? 'ATTENDED' : k % 10 < 9 ? 'NO_SHOW' : 'CANCELLED');
const futureState = (k: number): AttendanceState => (k % 10 < 9 ? 'REGISTERED' : 'CANCELLED');

export const hubspotError = (status: number, category: string, message: string, extra: Record<string, unknown> = {}): FakeReply => ({
  status,
  body: { status: 'error', message, correlationId: randomUUID(), category, ...extra },
});

function checkLimits(limits: unknown): HubspotLimits {
  if (typeof limits === 'string' && ['unlimited', 'free', 'starter', 'professional', 'enterprise'].includes(limits)) return limits as HubspotLimits;
  if (typeof limits === 'object' && limits !== null && Object.values(limits).every((v) => v === undefined || (Number.isInteger(v) && (v as number) >= 0))) return limits as HubspotLimits;
  throw new Error('limits is "unlimited", "free", "starter", "professional", "enterprise" or {"tenSecondly", "daily"} as whole numbers');
}

function limitBuckets(limits: HubspotLimits): RateBucketSpec[] {
  if (limits === 'unlimited') return [];
  const tiers = { free: [100, 250_000], starter: [100, 250_000], professional: [190, 625_000], enterprise: [190, 1_000_000] } as const;
  const [tenSecondly, daily] = typeof limits === 'string' ? tiers[limits] : [limits.tenSecondly, limits.daily];
  const buckets: RateBucketSpec[] = [];
  if (tenSecondly !== undefined) buckets.push({ name: 'TEN_SECONDLY_ROLLING', limit: tenSecondly, window: { rolling: 10_000 } });
  if (daily !== undefined) buckets.push({ name: 'DAILY', limit: daily, window: 'utc-day' });
  return buckets;
}

/** Count of k in [0, n) whose k % 10 falls in [from, to). */
function countMod10(n: number, from: number, to: number): number {
  const whole = Math.floor(n / 10) * (to - from);
  const rest = n % 10;
  return whole + Math.max(0, Math.min(rest, to) - from);
}

export function createHubspotMarketing(options: { clock: FakeClock; limits: HubspotLimits; baseUrl: () => string }) {
  const { clock } = options;
  const limiter = new RateLimiter(limitBuckets(checkLimits(options.limits)));
  const tokens = new Map<string, HubspotIdentity>();
  const eventSeqs = new SequenceRanges<Portal>();
  const contactSeqs = new SequenceRanges<Portal>();
  let nextPortal = 0;
  let nextPerson = 0;

  const objectId = (seq: number) => String(OBJECT_ID_BASE + seq);
  const contactId = (seq: number) => String(CONTACT_ID_BASE + seq);

  const findEvent = (portal: Portal, id: string | undefined) => {
    if (!id || !/^\d+$/.test(id)) return undefined;
    const found = eventSeqs.find(Number(id) - OBJECT_ID_BASE);
    if (!found || found.ref !== portal) return undefined;
    const rec = portal.events.get(found.pos);
    return rec ? { pos: found.pos, rec } : undefined;
  };
  const findContact = (portal: Portal, id: string | undefined) => {
    if (!id || !/^\d+$/.test(id)) return undefined;
    const found = contactSeqs.find(Number(id) - CONTACT_ID_BASE);
    if (!found || found.ref !== portal) return undefined;
    const rec = portal.contacts.get(found.pos);
    return rec ? { pos: found.pos, rec } : undefined;
  };
  const contactBySeq = (seq: number): ContactRec | undefined => {
    const found = contactSeqs.find(seq);
    return found?.ref.contacts.get(found.pos);
  };

  const participations = ChildCollections.seeded<Portal, EventRec, ParticipationRec>(
    eventSeqs,
    (portal, pos) => portal.events.get(pos),
    ({ participants: s }, seq) => ({
      count: s.count,
      make: (k) => {
        const state = s.past ? pastState(k) : futureState(k);
        return {
          n: k,
          eventSeq: seq,
          contactSeq: s.contactFirst + ((s.offset + k) % s.distinct),
          state,
          created: s.createdFrom + k * s.spacing,
          occurredAt: state === 'ATTENDED' || state === 'NO_SHOW' ? s.occurred : s.createdFrom + k * s.spacing,
          durationSeconds: state === 'ATTENDED' ? 1800 + ((k * 97) % 1800) : undefined,
        };
      },
    }),
  );

  /** registrants / attendees / cancellations / noShows of an event: by formula until its participations change. */
  const counters = (rec: EventRec) => {
    const counts = { REGISTERED: 0, ATTENDED: 0, CANCELLED: 0, NO_SHOW: 0 };
    const s = rec.participants;
    const list = participations.read(rec.seq);
    if (list.length === s.count && list.liveCount === s.count && ![...list.overriddenPositions()].length) {
      if (s.past) {
        counts.ATTENDED = countMod10(s.count, 0, 7);
        counts.NO_SHOW = countMod10(s.count, 7, 9);
        counts.CANCELLED = countMod10(s.count, 9, 10);
      } else {
        counts.REGISTERED = countMod10(s.count, 0, 9);
        counts.CANCELLED = countMod10(s.count, 9, 10);
      }
    } else {
      for (const { item } of list.entries()) counts[item.state] += 1;
    }
    return { registrants: counts.REGISTERED + counts.ATTENDED + counts.NO_SHOW, attendees: counts.ATTENDED, cancellations: counts.CANCELLED, noShows: counts.NO_SHOW };
  };

  const renderEvent = (rec: EventRec): HubspotMarketingEventJson => ({
    objectId: objectId(rec.seq),
    eventName: rec.name,
    eventType: rec.type,
    startDateTime: iso(rec.start),
    endDateTime: iso(rec.end),
    eventOrganizer: rec.organizer,
    eventDescription: rec.description,
    eventUrl: rec.url,
    eventCancelled: rec.cancelled,
    eventCompleted: !rec.cancelled && rec.end < clock.now(),
    externalEventId: rec.externalEventId,
    appInfo: APP,
    ...counters(rec),
    customProperties: rec.custom,
    createdAt: iso(rec.created),
    updatedAt: iso(rec.updated),
  });

  const renderParticipation = (p: ParticipationRec, event: EventRec): HubspotParticipationJson => {
    const contact = contactBySeq(p.contactSeq);
    return {
      id: String(PARTICIPATION_ID_BASE + p.eventSeq * PER_EVENT_MAX + p.n),
      createdAt: iso(p.created),
      properties: {
        occurredAt: p.occurredAt,
        attendanceState: p.state,
        ...(p.durationSeconds !== undefined ? { attendanceDurationSeconds: p.durationSeconds, attendancePercentage: String(Math.round((p.durationSeconds / ((event.end - event.start) / 1000)) * 100)) } : {}),
      },
      associations: {
        marketingEvent: { marketingEventId: objectId(event.seq), name: event.name, externalEventId: event.externalEventId, externalAccountId: EXTERNAL_ACCOUNT },
        contact: {
          contactId: contactId(p.contactSeq),
          email: contact?.props.email ?? '',
          ...(contact?.props.firstname ? { firstname: contact.props.firstname } : {}),
          ...(contact?.props.lastname ? { lastname: contact.props.lastname } : {}),
        },
      },
    };
  };

  const contactProps = (p: Person, at: number, seq: number): Record<string, string | null> => ({
    email: p.email,
    firstname: p.firstName,
    lastname: p.lastName,
    phone: p.phone,
    address: `${100 + (seq % 900)} Main Street`,
    city: p.place.city,
    // Free text, as people fill it in: the full name or a code for the state, the name or a variant for the country.
    state: seq % 3 === 0 ? p.place.stateCode : p.place.state,
    zip: p.place.postalCode,
    country: seq % 5 === 4 ? p.place.alias : p.place.name,
    company: p.company,
    jobtitle: p.jobTitle,
    createdate: iso(at),
    lastmodifieddate: iso(at),
    hs_object_id: contactId(seq),
  });

  const renderContact = (c: ContactRec, wanted: string[]): HubspotContactJson => ({
    id: contactId(c.seq),
    properties: Object.fromEntries([...new Set([...wanted, 'createdate', 'lastmodifieddate', 'hs_object_id'])].map((k) => [k, c.props[k] ?? null])),
    createdAt: iso(c.created),
    updatedAt: iso(c.updated),
    archived: c.archived,
  });

  // ---- routes -------------------------------------------------------------------------------------

  const portalOf = (req: FakeRequest) => (req as PlatformRequest<HubspotIdentity>).identity.portal;
  const limitOf = (req: FakeRequest, max: number): number | FakeReply => {
    const raw = req.query.get('limit');
    const limit = raw === null ? 10 : Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > max) return hubspotError(400, 'VALIDATION_ERROR', `limit must be between 1 and ${max}, was ${raw}`);
    return limit;
  };
  const eventNotFound = (id: string | undefined) =>
    id && /^\d+$/.test(id) && Number(id) > 0
      ? hubspotError(404, 'OBJECT_NOT_FOUND', `Marketing event with objectId ${id} was not found.`)
      : hubspotError(400, 'VALIDATION_ERROR', `Invalid value: '${id}' specified in objectId parameter. Should be a positive Long.`);
  const link = (path: string, params: Record<string, string | number>) => `${options.baseUrl()}${path}?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;

  /**
   * Adds the marketing routes, and the contacts batch read, to the fake's routes. `legacyContact`
   * finds the CRM fake's own contacts (the starting portal's), which batch reads return too.
   */
  const mount = (routes: FakeRoutes, legacyContact?: (portal: Portal, id: string, wanted: string[]) => HubspotContactJson | undefined): void => {
    routes
      .route('GET', '/marketing/v3/marketing-events', (req) => {
        const portal = portalOf(req);
        const limit = limitOf(req, 100);
        if (typeof limit !== 'number') return limit;
        // `after` is the objectId the next page starts at; the list is sorted by objectId.
        const after = req.query.get('after');
        let from = 0;
        if (after !== null) {
          const found = /^\d+$/.test(after) ? eventSeqs.find(Number(after) - OBJECT_ID_BASE) : undefined;
          if (!found || found.ref !== portal) return hubspotError(400, 'VALIDATION_ERROR', `Invalid value: '${after}' specified in after parameter.`);
          from = found.pos;
        }
        const page = portal.events.page(from, limit);
        const nextRec = page.next === null ? undefined : portal.events.get(page.next);
        const next = nextRec ? objectId(nextRec.seq) : null;
        return {
          body: {
            results: page.items.map((i) => renderEvent(i.item)),
            ...(next ? { paging: { next: { after: next, link: link('/marketing/v3/marketing-events/', { limit, after: next }) } } } : {}),
          },
        };
      })
      .route('POST', '/marketing/v3/marketing-events/events', (req) => {
        const body = (req.json ?? {}) as Record<string, unknown>;
        const missing = ['externalAccountId', 'externalEventId', 'eventName', 'eventOrganizer'].filter((k) => typeof body[k] !== 'string' || body[k] === '');
        if (missing.length > 0) return hubspotError(400, 'VALIDATION_ERROR', `Some required fields were not set: [${missing.join(', ')}]`, { errors: missing.map((m) => ({ message: `${m} is required`, code: 'REQUIRED_FIELD', in: m })) });
        const rec = addEvent(portalOf(req), fromInput(body));
        const json = renderEvent(rec);
        return { body: { ...json, externalAccountId: body.externalAccountId, id: json.objectId } };
      })
      .route('POST', '/marketing/v3/marketing-events/events/:externalEventId/cancel', (req) => {
        const portal = portalOf(req);
        const found = [...portal.events.entries()].find((e) => e.item.externalEventId === req.params.externalEventId);
        if (!found) return hubspotError(404, 'OBJECT_NOT_FOUND', `Marketing event with externalEventId ${req.params.externalEventId} was not found.`);
        const rec = { ...found.item, cancelled: true, updated: clock.stamp() };
        portal.events.set(found.pos, rec);
        return { body: renderEvent(rec) };
      })
      .route('GET', '/marketing/v3/marketing-events/participations/:eventId/breakdown', (req) => {
        const portal = portalOf(req);
        const found = findEvent(portal, req.params.eventId);
        if (!found) return eventNotFound(req.params.eventId);
        const limit = limitOf(req, 100);
        if (typeof limit !== 'number') return limit;
        const state = req.query.get('state');
        if (state !== null && !STATES.includes(state as AttendanceState)) return hubspotError(400, 'VALIDATION_ERROR', `Invalid value: '${state}' specified in state parameter. It may be REGISTERED, CANCELLED, ATTENDED, NO_SHOW.`);
        const contactIdentifier = req.query.get('contactIdentifier');
        const keep =
          state === null && contactIdentifier === null
            ? undefined
            : (p: ParticipationRec) => {
                if (state !== null && p.state !== state) return false;
                if (contactIdentifier === null) return true;
                const contact = contactBySeq(p.contactSeq);
                return contactId(p.contactSeq) === contactIdentifier || contact?.props.email?.toLowerCase() === contactIdentifier.toLowerCase();
              };
        const f = fingerprint(['participations', found.rec.seq, state, contactIdentifier]);
        let from = 0;
        const after = req.query.get('after');
        if (after !== null) {
          const cursor = decodePageToken<{ f: string; p: number }>(after);
          if (!cursor || cursor.f !== f) return hubspotError(400, 'VALIDATION_ERROR', `Invalid value: '${after}' specified in after parameter.`);
          from = cursor.p;
        }
        const list = participations.read(found.rec.seq);
        const total = keep ? list.page(0, Number.MAX_SAFE_INTEGER, keep).items.length : list.liveCount;
        const page = list.page(from, limit, keep);
        const next = page.next === null ? null : encodePageToken({ f, p: page.next });
        return {
          body: {
            total,
            results: page.items.map((i) => renderParticipation(i.item, found.rec)),
            ...(next ? { paging: { next: { after: next, link: link(`/marketing/v3/marketing-events/participations/${req.params.eventId}/breakdown`, { limit, after: next }) } } } : {}),
          },
        };
      })
      .route('GET', '/marketing/v3/marketing-events/participations/:eventId', (req) => {
        const found = findEvent(portalOf(req), req.params.eventId);
        if (!found) return eventNotFound(req.params.eventId);
        const c = counters(found.rec);
        return { body: { attended: c.attendees, registered: c.registrants, cancelled: c.cancellations, noShows: c.noShows } };
      })
      .route('GET', '/marketing/v3/marketing-events/:objectId', (req) => {
        const found = findEvent(portalOf(req), req.params.objectId);
        return found ? { body: renderEvent(found.rec) } : eventNotFound(req.params.objectId);
      })
      .route('PATCH', '/marketing/v3/marketing-events/:objectId', (req) => {
        const portal = portalOf(req);
        const found = findEvent(portal, req.params.objectId);
        if (!found) return eventNotFound(req.params.objectId);
        const patch = fromInput((req.json ?? {}) as Record<string, unknown>);
        const rec = applyEventPatch(found.rec, patch, (req.json as { eventCancelled?: unknown } | undefined)?.eventCancelled);
        portal.events.set(found.pos, rec);
        return { body: renderEvent(rec) };
      })
      .route('DELETE', '/marketing/v3/marketing-events/:objectId', (req) => {
        const portal = portalOf(req);
        const found = findEvent(portal, req.params.objectId);
        if (!found) return eventNotFound(req.params.objectId);
        portal.events.remove(found.pos);
        return { status: 204 };
      })
      .route('POST', '/crm/v3/objects/contacts/batch/read', (req) => batchRead(req, legacyContact));
  };

  /** POST /crm/v3/objects/contacts/batch/read: 200 when every id is found, 207 with `errors` when some are not. */
  const batchRead = (req: FakeRequest, legacy?: (portal: Portal, id: string, wanted: string[]) => HubspotContactJson | undefined): FakeReply => {
    const portal = portalOf(req);
    const body = (req.json ?? {}) as { inputs?: Array<{ id?: unknown }>; properties?: string[]; idProperty?: string };
    if (!Array.isArray(body.inputs)) return hubspotError(400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1, column 1: Some required fields were not set: [inputs]');
    if (body.inputs.length > 100) return hubspotError(400, 'VALIDATION_ERROR', `Batch input limit exceeded: at most 100 inputs are allowed, got ${body.inputs.length}`);
    if (body.idProperty !== undefined && body.idProperty !== 'email' && body.idProperty !== 'hs_object_id') return hubspotError(400, 'VALIDATION_ERROR', `Property ${body.idProperty} is not a unique identifier property`);
    const archived = req.query.get('archived') === 'true';
    const wanted = Array.isArray(body.properties) && body.properties.length > 0 ? body.properties : ['email', 'firstname', 'lastname'];
    const startedAt = iso(clock.now());
    const results: HubspotContactJson[] = [];
    const missing: string[] = [];
    for (const input of body.inputs) {
      const id = String(input.id ?? '');
      const legacyHit = body.idProperty === 'email' ? undefined : legacy?.(portal, id, wanted);
      if (legacyHit && !archived) {
        results.push(legacyHit);
        continue;
      }
      const rec = body.idProperty === 'email' ? contactByEmail(portal, id) : findContact(portal, id)?.rec;
      if (rec && rec.archived === archived) results.push(renderContact(rec, wanted));
      else missing.push(id);
    }
    const status = missing.length === 0 ? 200 : 207;
    return {
      status,
      body: {
        status: 'COMPLETE',
        results,
        ...(missing.length > 0
          ? {
              numErrors: 1,
              errors: [{ status: 'error', category: 'OBJECT_NOT_FOUND', message: 'Could not get some CONTACT objects, they may be deleted or not exist. Check that ids are valid.', context: { ids: missing }, links: {}, errors: [] }],
            }
          : {}),
        startedAt,
        completedAt: iso(clock.now()),
      },
    };
  };

  /** Finds a contact by email (a pass over the portal's contacts: fine for tests, not a hot path). */
  const contactByEmail = (portal: Portal, email: string): ContactRec | undefined => {
    const wanted = email.toLowerCase();
    return portal.contacts.page(0, 1, (c) => c.props.email?.toLowerCase() === wanted).items[0]?.item;
  };

  // ---- writes shared by the HTTP API and the test API -----------------------------------------------

  const fromInput = (body: Record<string, unknown>): HubspotEventInput => {
    const date = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? new Date(v).getTime() : undefined);
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return {
      eventName: text(body.eventName),
      eventDescription: text(body.eventDescription),
      eventType: text(body.eventType),
      eventOrganizer: text(body.eventOrganizer),
      eventUrl: text(body.eventUrl),
      startDateTime: date(body.startDateTime),
      endDateTime: date(body.endDateTime),
      externalEventId: text(body.externalEventId),
      customProperties: Array.isArray(body.customProperties) ? (body.customProperties as Array<{ name: string; value: string }>) : undefined,
    };
  };

  const applyEventPatch = (rec: EventRec, patch: HubspotEventInput, cancelled?: unknown): EventRec => ({
    ...rec,
    name: patch.eventName ?? rec.name,
    description: patch.eventDescription ?? rec.description,
    type: patch.eventType ?? rec.type,
    organizer: patch.eventOrganizer ?? rec.organizer,
    url: patch.eventUrl ?? rec.url,
    start: patch.startDateTime ?? rec.start,
    end: patch.endDateTime ?? rec.end,
    custom: patch.customProperties ?? rec.custom,
    cancelled: typeof cancelled === 'boolean' ? cancelled : rec.cancelled,
    updated: clock.stamp(),
  });

  const addEvent = (portal: Portal, input: HubspotEventInput): EventRec => {
    const now = clock.stamp();
    const t = eventTitle(1, nextPerson);
    const start = input.startDateTime ?? now + 86_400_000;
    const seq = eventSeqs.reserve(1, portal, portal.events.length);
    const rec: EventRec = {
      seq,
      name: input.eventName ?? t.title,
      description: input.eventDescription ?? t.summary,
      type: input.eventType ?? t.type,
      organizer: input.eventOrganizer ?? 'Marketing Team',
      url: input.eventUrl ?? `https://events.example.com/${seq}`,
      start,
      end: input.endDateTime ?? start + 3_600_000,
      created: now,
      updated: now,
      cancelled: false,
      externalEventId: input.externalEventId ?? `ext-${seq}`,
      custom: input.customProperties ?? [],
      participants: { count: 0, contactFirst: 0, offset: 0, distinct: 1, createdFrom: now, spacing: 1, past: false, occurred: now },
    };
    portal.events.append(rec);
    return rec;
  };

  const addContact = (portal: Portal, input: HubspotContactInput): ContactRec => {
    const now = clock.stamp();
    const seq = contactSeqs.reserve(1, portal, portal.contacts.length);
    const props = contactProps(person(1, nextPerson++), now, seq);
    Object.assign(props, input);
    const rec: ContactRec = { seq, props, created: now, updated: now, archived: false };
    portal.contacts.append(rec);
    return rec;
  };

  const mustEvent = (portal: Portal, id: string) => {
    const found = findEvent(portal, id);
    if (!found) throw new Error(`No marketing event ${id} in portal ${portal.portalId}`);
    return found;
  };
  const mustContact = (portal: Portal, id: string) => {
    const found = findContact(portal, id);
    if (!found) throw new Error(`No contact ${id} in portal ${portal.portalId}`);
    return found;
  };
  const mustParticipation = (portal: Portal, eventId: string, participationId: string) => {
    const event = mustEvent(portal, eventId);
    const n = Number(participationId) - PARTICIPATION_ID_BASE - event.rec.seq * PER_EVENT_MAX;
    const list = participations.write(event.rec.seq);
    const rec = Number.isInteger(n) ? list.get(n) : undefined;
    if (!rec) throw new Error(`No participation ${participationId} in event ${eventId}`);
    return { event, list, pos: n, rec };
  };

  const handle = (portal: Portal, token: string): FakeHubspotPortal => ({
    portalId: portal.portalId,
    token,
    createToken: (kind = 'private-app') => register(portal, makeToken(kind === 'oauth' ? 'CJ' : 'pat-na1-'), kind),
    revokeToken: (which = token, revokeOptions = {}) => {
      const identity = tokens.get(which);
      if (!identity || identity.portal !== portal) throw new Error(`No token ${which} in portal ${portal.portalId}`);
      identity.revoked = revokeOptions.expired ? 'expired' : 'revoked';
    },
    seed: (seedOptions) => {
      const { events: count, participantsPerEvent: per } = seedOptions;
      const at = clock.now();
      const { startOf } = seedTimeline(at, count, per, seedOptions.pastShare);
      const seed = seedOptions.seed ?? 1;
      const distinct = Math.max(1, seedOptions.distinctContacts ?? count * per);
      // The batch's contacts, created before its events.
      const personBase = nextPerson;
      nextPerson += distinct;
      const contactFirst = contactSeqs.reserve(distinct, portal, portal.contacts.length);
      const contactsAt = at - (count + 1) * 60_000;
      portal.contacts.appendLazy(distinct, (k) => {
        const created = contactsAt + Math.floor((k * 60_000) / distinct);
        return { seq: contactFirst + k, props: contactProps(person(seed, personBase + k), created, contactFirst + k), created, updated: created, archived: false };
      });
      const firstSeq = eventSeqs.reserve(count, portal, portal.events.length);
      portal.events.appendLazy(count, (k) => {
        const created = at - (count - k) * 60_000;
        const start = startOf(k);
        const t = eventTitle(seed, firstSeq + k);
        return {
          seq: firstSeq + k,
          name: t.title,
          description: t.summary,
          type: t.type,
          organizer: 'Marketing Team',
          url: `https://events.example.com/${firstSeq + k}`,
          start,
          end: start + 3_600_000,
          created,
          updated: created,
          cancelled: false,
          externalEventId: `ext-${firstSeq + k}`,
          custom: [],
          participants: { count: per, contactFirst, offset: k * per, distinct, createdFrom: created + 1000, spacing: Math.max(1, Math.floor(59_000 / Math.max(1, per))), past: start + 3_600_000 < at, occurred: start },
        };
      });
      return { firstObjectId: objectId(firstSeq), lastObjectId: objectId(firstSeq + Math.max(0, count - 1)) };
    },
    createEvent: (input = {}) => renderEvent(addEvent(portal, input)),
    updateEvent: (id, patch) => {
      const found = mustEvent(portal, id);
      const rec = applyEventPatch(found.rec, patch);
      portal.events.set(found.pos, rec);
      return renderEvent(rec);
    },
    cancelEvent: (id) => {
      const found = mustEvent(portal, id);
      const rec = { ...found.rec, cancelled: true, updated: clock.stamp() };
      portal.events.set(found.pos, rec);
      return renderEvent(rec);
    },
    deleteEvent: (id) => {
      portal.events.remove(mustEvent(portal, id).pos);
    },
    addParticipant: (id, input = {}) => {
      const event = mustEvent(portal, id);
      const contact = input.contactId ? mustContact(portal, input.contactId).rec : addContact(portal, input.contact ?? {});
      const list = participations.write(event.rec.seq);
      const now = clock.stamp();
      const rec: ParticipationRec = { n: list.length, eventSeq: event.rec.seq, contactSeq: contact.seq, state: input.state ?? 'REGISTERED', created: now, occurredAt: now };
      list.append(rec);
      return renderParticipation(rec, event.rec);
    },
    setParticipantState: (id, participationId, state) => {
      const { event, list, pos, rec } = mustParticipation(portal, id, participationId);
      const next = { ...rec, state, occurredAt: clock.stamp() };
      list.set(pos, next);
      return renderParticipation(next, event.rec);
    },
    removeParticipant: (id, participationId) => {
      const { list, pos } = mustParticipation(portal, id, participationId);
      list.remove(pos);
    },
    createContact: (input = {}) => {
      const rec = addContact(portal, input);
      return renderContact(rec, Object.keys(rec.props));
    },
    updateContact: (id, patch) => {
      const found = mustContact(portal, id);
      const now = clock.stamp();
      const rec: ContactRec = { ...found.rec, props: { ...found.rec.props, ...patch, lastmodifieddate: iso(now) }, updated: now };
      portal.contacts.set(found.pos, rec);
      return renderContact(rec, Object.keys(rec.props));
    },
    archiveContact: (id) => {
      const found = mustContact(portal, id);
      const now = clock.stamp();
      portal.contacts.set(found.pos, { ...found.rec, archived: true, updated: now, props: { ...found.rec.props, lastmodifieddate: iso(now) } });
    },
    getEvent: (id) => {
      const found = findEvent(portal, id);
      return found ? renderEvent(found.rec) : undefined;
    },
    getContact: (id) => {
      const found = findContact(portal, id);
      return found ? renderContact(found.rec, Object.keys(found.rec.props)) : undefined;
    },
    allEvents: () => [...portal.events.entries()].map((e) => renderEvent(e.item)),
    allParticipations: (id) => {
      const event = mustEvent(portal, id);
      return [...participations.read(event.rec.seq).entries()].map((e) => renderParticipation(e.item, event.rec));
    },
  });

  const register = (portal: Portal, token: string, kind: 'private-app' | 'oauth', expiresAt?: number): string => {
    tokens.set(token, { token, portal, kind, ...(expiresAt === undefined ? {} : { expiresAt }) });
    portal.tokens.add(token);
    return token;
  };

  const createPortal = (token?: string): FakeHubspotPortal => {
    nextPortal += 1;
    const portal: Portal = { portalId: 40_000_000 + nextPortal * 1009, events: new LazyCollection(), contacts: new LazyCollection(), tokens: new Set() };
    const first = register(portal, token ?? makeToken('pat-na1-'), 'private-app');
    return handle(portal, first);
  };

  /** X-HubSpot-RateLimit-* headers for an allowed request; the daily pair is not sent to OAuth tokens. */
  const rateHeaders = (identity: HubspotIdentity, states: BucketState[]): Record<string, string> => {
    const headers: Record<string, string> = {};
    for (const state of states) {
      if (state.spec.name === 'TEN_SECONDLY_ROLLING') {
        headers['x-hubspot-ratelimit-interval-milliseconds'] = '10000';
        headers['x-hubspot-ratelimit-max'] = String(state.spec.limit);
        headers['x-hubspot-ratelimit-remaining'] = String(state.remaining);
      } else if (identity.kind === 'private-app') {
        headers['x-hubspot-ratelimit-daily'] = String(state.spec.limit);
        headers['x-hubspot-ratelimit-daily-remaining'] = String(state.remaining);
      }
    }
    return headers;
  };

  /** HubSpot's 429, as its usage guidelines show it: errorType RATE_LIMIT and the policy that was hit. */
  const rateLimitReply = (policy: string, headers: Record<string, string>): FakeReply => ({
    status: 429,
    headers,
    body: {
      status: 'error',
      message: policy === 'DAILY' ? 'You have reached your daily limit.' : `You have reached your ${policy.toLowerCase()} limit.`,
      errorType: 'RATE_LIMIT',
      correlationId: randomUUID(),
      policyName: policy,
      requestId: randomUUID(),
    },
  });

  const limit = (identity: HubspotIdentity): { reply: FakeReply } | { headers: Record<string, string> } => {
    if (limiter.specs.length === 0) return { headers: {} };
    // Ten-secondly limits count per app (here: per token), daily ones per account (portal).
    const taken = limiter.take((spec) => (spec.name === 'DAILY' ? `portal:${identity.portal.portalId}` : `token:${identity.token}`), clock.now());
    if (taken.allowed) return { headers: rateHeaders(identity, taken.buckets) };
    const { tripped } = taken;
    return { reply: rateLimitReply(tripped.spec.name, rateHeaders(identity, taken.buckets.map((b) => (b.spec === tripped.spec ? tripped : b)))) };
  };

  return {
    mount,
    createPortal,
    register,
    tokens,
    limit,
    rateLimitReply,
    setLimits: (limits: HubspotLimits) => limiter.configure(limitBuckets(checkLimits(limits))),
    findContact: (portal: Portal, id: string, wanted: string[]) => {
      const found = findContact(portal, id);
      return found && !found.rec.archived ? renderContact(found.rec, wanted) : undefined;
    },
  };
}

export type HubspotMarketing = ReturnType<typeof createHubspotMarketing>;
