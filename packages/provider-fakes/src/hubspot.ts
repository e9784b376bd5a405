import { randomUUID } from 'node:crypto';
import { FakeRoutes, bearerToken, type FakeReply, type FakeServer } from './fake-server';
import { createHubspotMarketing, hubspotError, type FakeHubspotPortal, type HubspotIdentity, type HubspotLimits, type HubspotSeedOptions } from './hubspot-marketing';
import { createFakeClock, type FakeClock, type FakeClockOptions } from './platform-clock';
import { addControlRoutes } from './platform-control';
import { FaultQueue, type FaultControl } from './platform-faults';
import { addOAuthRoutes, type FakeOAuthApp, type FakeOAuthControl, type OAuthFailure } from './platform-oauth';
import { startPlatformServer, type PlatformLoggedRequest, type PlatformRequest } from './platform-server';
import { makeToken } from './platform-tokens';

/** Tokens the fake HubSpot understands. */
export const HUBSPOT_FAKE_TOKENS = {
  valid: 'pat-na1-fake-valid',
  /** Over the ten-second burst limit: 429 with policyName TEN_SECONDLY_ROLLING and X-HubSpot-RateLimit-* headers, no Retry-After. */
  rateLimited: 'pat-na1-fake-rate-limited',
  /** A private app without crm.objects.deals.read: deals answer 403 MISSING_SCOPES. */
  noDealScope: 'pat-na1-fake-no-deal-scope',
  /** Authenticated, but every call answers 502. */
  failing: 'pat-na1-fake-failing',
} as const;

interface CrmRecord {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  associations: Array<{ toObjectType: string; toId: string; typeId: number }>;
}

const CONTACT_PROPERTIES = new Set(['email', 'firstname', 'lastname', 'phone', 'mobilephone', 'company', 'jobtitle', 'lifecyclestage', 'website', 'address', 'city', 'state', 'zip', 'country', 'hs_lead_status', 'hubspot_owner_id']);
const LIFECYCLE_STAGES = new Set(['subscriber', 'lead', 'marketingqualifiedlead', 'salesqualifiedlead', 'opportunity', 'customer', 'evangelist', 'other']);
/** Properties HubSpot returns on every object whatever was asked for. */
const ALWAYS = ['createdate', 'lastmodifieddate', 'hs_object_id'];

/** HubSpot's "Property values were not valid" answer, listing each bad property. */
function invalidProperties(problems: Array<{ name: string; error: string; message: string }>): FakeReply {
  const listed = problems.map((p) => ({ isValid: false, message: p.message, error: p.error, name: p.name, localizedErrorMessage: p.message }));
  return hubspotError(400, 'VALIDATION_ERROR', `Property values were not valid: ${JSON.stringify(listed)}`, {
    errors: problems.map((p) => ({ message: p.message, code: p.error, context: { propertyName: [p.name] } })),
  });
}

function checkContactProperties(props: unknown, contacts: CrmRecord[], selfId?: string): { reply: FakeReply } | { values: Record<string, string> } {
  if (typeof props !== 'object' || props === null) return { reply: hubspotError(400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1, column 1: properties must be an object') };
  const problems: Array<{ name: string; error: string; message: string }> = [];
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(props as Record<string, unknown>)) {
    const value = raw === null ? '' : String(raw);
    if (!CONTACT_PROPERTIES.has(name)) problems.push({ name, error: 'PROPERTY_DOESNT_EXIST', message: `Property "${name}" does not exist` });
    else if (name === 'email' && value !== '' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) problems.push({ name, error: 'INVALID_EMAIL', message: `Email address ${value} is invalid` });
    else if (name === 'lifecyclestage' && value !== '' && !LIFECYCLE_STAGES.has(value)) problems.push({ name, error: 'INVALID_OPTION', message: `${value} was not one of the allowed options` });
    out[name] = value;
  }
  if (problems.length > 0) return { reply: invalidProperties(problems) };
  if (out.email) {
    const existing = contacts.find((c) => c.id !== selfId && !c.archived && c.properties.email?.toLowerCase() === out.email!.toLowerCase());
    if (existing) return { reply: hubspotError(409, 'CONFLICT', `Contact already exists. Existing ID: ${existing.id}`) };
  }
  return { values: out };
}

/** How the fake HubSpot behaves beyond its CRM seed: the marketing side's limits, clock and log. */
export interface FakeHubspotOptions {
  /** Default `unlimited`; `free`/`starter`, `professional`, `enterprise` are HubSpot's tiers, or `{ tenSecondly, daily }`. */
  limits?: HubspotLimits;
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

/** The fake HubSpot: the CRM fake the connector catalog uses, plus Marketing Events for the unified data sync. */
export interface FakeHubspot extends FakeServer {
  contacts: CrmRecord[];
  deals: CrmRecord[];
  notes: CrmRecord[];
  /** What `PATCHBAY_MKTG_HUBSPOT_BASE_URL` is set to (the server root, like https://api.hubapi.com). */
  baseUrl: string;
  requests: PlatformLoggedRequest[];
  clock: FakeClock;
  faults: FaultControl;
  limits: { set(limits: HubspotLimits): void };
  /** The portal the fake starts with: the CRM seed's contacts and deals, and HUBSPOT_FAKE_TOKENS. */
  portal: FakeHubspotPortal;
  /** Another portal (account) with its own private-app token, marketing events and contacts. */
  createPortal(): FakeHubspotPortal;
  /** The same as `portal`, under the name the other marketing fakes use. */
  account: FakeHubspotPortal;
  /** The same as `createPortal`, under the name the other marketing fakes use. */
  createAccount(): FakeHubspotPortal;
  /** The public app's OAuth (code grant with PKCE, refresh grant): its client, who signs in, revocation. */
  oauth: FakeOAuthControl<FakeHubspotPortal>;
  /** What `PATCHBAY_MKTG_HUBSPOT_AUTHORIZE_URL` is set to (like https://app.hubspot.com/oauth/authorize). */
  authorizeUrl: string;
  /** What `PATCHBAY_MKTG_HUBSPOT_TOKEN_URL` is set to (like https://api.hubapi.com/oauth/v1/token). */
  oauthTokenUrl: string;
}

/**
 * A fake of HubSpot's CRM API v3 for contacts, deals and notes: Bearer private-app/OAuth tokens,
 * `{"status": "error", "category"}` errors (401 INVALID_AUTHENTICATION, 404 OBJECT_NOT_FOUND,
 * 400 VALIDATION_ERROR, 409 CONFLICT, 403 MISSING_SCOPES, 429 RATE_LIMITS), `paging.next.after`
 * pagination, the search endpoint's filterGroups/sorts/query, and lookup by email with idProperty.
 * On the same host, Marketing Events v3 with participations and the contacts batch read
 * (hubspot-marketing.ts), with HubSpot's ten-secondly and daily limits and queued faults.
 */
export async function startFakeHubspot(seed: { contacts: number; deals: number } = { contacts: 5, deals: 5 }, options: FakeHubspotOptions = {}): Promise<FakeHubspot> {
  let clock = Date.UTC(2026, 0, 1);
  const now = () => new Date((clock += 60_000)).toISOString();
  let nextId = 1000;
  const contacts: CrmRecord[] = Array.from({ length: seed.contacts }, (_, i) => {
    const at = now();
    const n = i + 1;
    return {
      id: String(100 + n),
      properties: {
        email: `person${n}@${n % 2 === 0 ? 'acme.com' : 'globex.com'}`,
        firstname: `First${n}`,
        lastname: `Last${n}`,
        phone: null,
        company: n % 2 === 0 ? 'Acme' : 'Globex',
        jobtitle: null,
        lifecyclestage: n % 3 === 0 ? 'customer' : 'lead',
        createdate: at,
        lastmodifieddate: at,
        hs_object_id: String(100 + n),
      },
      createdAt: at,
      updatedAt: at,
      archived: false,
      associations: [],
    };
  });
  const deals: CrmRecord[] = Array.from({ length: seed.deals }, (_, i) => {
    const at = now();
    const n = i + 1;
    return {
      id: String(5000 + n),
      properties: {
        dealname: `Deal ${n}`,
        amount: String(n * 1000),
        dealstage: n % 2 === 0 ? 'closedwon' : 'appointmentscheduled',
        pipeline: 'default',
        closedate: `2026-06-${String(n % 28 || 1).padStart(2, '0')}T00:00:00Z`,
        hubspot_owner_id: '77',
        createdate: at,
        hs_lastmodifieddate: at,
        hs_object_id: String(5000 + n),
      },
      createdAt: at,
      updatedAt: at,
      archived: n % 10 === 0,
      associations: [],
    };
  });
  const notes: CrmRecord[] = [];
  let base = '';

  const render = (r: CrmRecord, wanted: string[]) => ({
    id: r.id,
    properties: Object.fromEntries([...new Set([...wanted, ...ALWAYS])].map((k) => [k, r.properties[k] ?? null])),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    archived: r.archived,
  });
  const requested = (raw: string | null | string[] | undefined, fallback: string[]) => {
    const list = Array.isArray(raw) ? raw : raw ? raw.split(',') : [];
    const names = list.map((s) => s.trim()).filter(Boolean);
    return names.length > 0 ? names : fallback;
  };
  const contactNotFound = () => hubspotError(404, 'OBJECT_NOT_FOUND', 'resource not found');
  const badLimit = (limit: number, max: number) => hubspotError(400, 'VALIDATION_ERROR', `limit must be between 1 and ${max}, was ${limit}`);

  type Filter = { propertyName?: string; operator?: string; value?: unknown; highValue?: unknown; values?: unknown[] };
  const filterMatches = (c: CrmRecord, f: Filter): boolean => {
    const actual = c.properties[f.propertyName ?? ''] ?? null;
    const a = actual?.toLowerCase() ?? null;
    const v = f.value === undefined ? null : String(f.value).toLowerCase();
    const num = (x: string | null) => (x !== null && x !== '' && !Number.isNaN(Number(x)) ? Number(x) : x);
    const cmp = (x: string | null, y: string | null) => {
      const [p, q] = [num(x), num(y)];
      return p === null || q === null ? NaN : p < q ? -1 : p > q ? 1 : 0;
    };
    switch (f.operator) {
      case 'EQ':
        return a === v;
      case 'NEQ':
        return a !== v;
      case 'LT':
        return cmp(a, v) < 0;
      case 'LTE':
        return cmp(a, v) <= 0;
      case 'GT':
        return cmp(a, v) > 0;
      case 'GTE':
        return cmp(a, v) >= 0;
      case 'BETWEEN':
        return cmp(a, v) >= 0 && cmp(a, f.highValue === undefined ? null : String(f.highValue).toLowerCase()) <= 0;
      case 'IN':
        return a !== null && (f.values ?? []).map((x) => String(x).toLowerCase()).includes(a);
      case 'NOT_IN':
        return a === null || !(f.values ?? []).map((x) => String(x).toLowerCase()).includes(a);
      case 'HAS_PROPERTY':
        return a !== null && a !== '';
      case 'NOT_HAS_PROPERTY':
        return a === null || a === '';
      case 'CONTAINS_TOKEN':
        return a !== null && v !== null && a.includes(v.replace(/\*/g, ''));
      case 'NOT_CONTAINS_TOKEN':
        return a === null || v === null || !a.includes(v.replace(/\*/g, ''));
      default:
        return false;
    }
  };
  const OPERATORS = new Set(['EQ', 'NEQ', 'LT', 'LTE', 'GT', 'GTE', 'BETWEEN', 'IN', 'NOT_IN', 'HAS_PROPERTY', 'NOT_HAS_PROPERTY', 'CONTAINS_TOKEN', 'NOT_CONTAINS_TOKEN']);
  const SEARCHABLE = ['firstname', 'lastname', 'email', 'phone', 'mobilephone', 'company'];

  const routes = new FakeRoutes()
    .route('POST', '/crm/v3/objects/contacts/search', (req) => {
      const body = (req.json ?? {}) as { query?: string; filterGroups?: Array<{ filters?: Filter[] }>; sorts?: Array<{ propertyName?: string; direction?: string }>; properties?: string[]; limit?: number; after?: string };
      const limit = body.limit ?? 10;
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) return badLimit(limit, 200);
      const groups = body.filterGroups ?? [];
      if (groups.length > 5) return hubspotError(400, 'VALIDATION_ERROR', 'Too many filter groups: at most 5 are allowed');
      for (const g of groups) {
        for (const f of g.filters ?? []) {
          if (!f.operator || !OPERATORS.has(f.operator)) return hubspotError(400, 'VALIDATION_ERROR', `Invalid input JSON on line 1: operator ${JSON.stringify(f.operator)} is not one of ${[...OPERATORS].join(', ')}`);
          if (!f.propertyName) return hubspotError(400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1: Cannot build Filter, some of required attributes are not set [propertyName]');
        }
      }
      const q = body.query?.toLowerCase();
      let matching = contacts.filter(
        (c) =>
          !c.archived &&
          (!q || SEARCHABLE.some((p) => c.properties[p]?.toLowerCase().includes(q))) &&
          (groups.length === 0 || groups.some((g) => (g.filters ?? []).every((f) => filterMatches(c, f)))),
      );
      const sort = body.sorts?.[0];
      // Without sorts, search results come in ascending ID order.
      matching = [...matching].sort((x, y) => {
        if (sort?.propertyName) {
          const [a, b] = [x.properties[sort.propertyName] ?? '', y.properties[sort.propertyName] ?? ''];
          if (a !== b) return (a < b ? -1 : 1) * (sort.direction === 'DESCENDING' ? -1 : 1);
        }
        return Number(x.id) - Number(y.id);
      });
      const offset = body.after === undefined ? 0 : Number(body.after);
      if (!Number.isInteger(offset) || offset < 0) return hubspotError(400, 'VALIDATION_ERROR', `Invalid input JSON on line 1: after must be an integer offset, was ${JSON.stringify(body.after)}`);
      const slice = matching.slice(offset, offset + limit);
      const wanted = body.properties && body.properties.length > 0 ? body.properties : ['email', 'firstname', 'lastname'];
      return {
        body: {
          total: matching.length,
          results: slice.map((c) => render(c, wanted)),
          ...(offset + limit < matching.length ? { paging: { next: { after: String(offset + limit) } } } : {}),
        },
      };
    })
    .route('GET', '/crm/v3/objects/contacts/:id', (req) => {
      const byEmail = req.query.get('idProperty') === 'email';
      if (!byEmail && req.query.get('idProperty')) return hubspotError(400, 'VALIDATION_ERROR', `Property ${req.query.get('idProperty')} is not a unique identifier property`);
      const wanted = requested(req.query.get('properties'), ['email', 'firstname', 'lastname']);
      const portal = (req as PlatformRequest<HubspotIdentity>).identity.portal;
      const contact = portal === defaultPortal ? contacts.find((c) => !c.archived && (byEmail ? c.properties.email?.toLowerCase() === req.params.id!.toLowerCase() : c.id === req.params.id)) : undefined;
      if (contact) return { body: render(contact, wanted) };
      // The contacts behind marketing events (seeded per portal) read the same way.
      const marketingContact = byEmail ? undefined : marketing.findContact(portal, req.params.id!, wanted);
      return marketingContact ? { body: marketingContact } : contactNotFound();
    })
    .route('POST', '/crm/v3/objects/contacts', (req) => {
      const checked = checkContactProperties((req.json as { properties?: unknown } | undefined)?.properties, contacts);
      if ('reply' in checked) return checked.reply;
      const at = now();
      const id = String(++nextId);
      const contact: CrmRecord = { id, properties: { ...checked.values, createdate: at, lastmodifieddate: at, hs_object_id: id }, createdAt: at, updatedAt: at, archived: false, associations: [] };
      contacts.push(contact);
      return { status: 201, body: render(contact, Object.keys(contact.properties)) };
    })
    .route('PATCH', '/crm/v3/objects/contacts/:id', (req) => {
      const contact = contacts.find((c) => !c.archived && c.id === req.params.id);
      if (!contact) return contactNotFound();
      const checked = checkContactProperties((req.json as { properties?: unknown } | undefined)?.properties, contacts, contact.id);
      if ('reply' in checked) return checked.reply;
      const at = now();
      Object.assign(contact.properties, checked.values, { lastmodifieddate: at });
      contact.updatedAt = at;
      return { body: render(contact, Object.keys(contact.properties)) };
    })
    .route('GET', '/crm/v3/objects/deals', (req) => {
      const limit = Number(req.query.get('limit') ?? 10);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) return badLimit(limit, 100);
      const archived = req.query.get('archived') === 'true';
      const listed = deals.filter((d) => d.archived === archived).sort((a, b) => Number(a.id) - Number(b.id));
      const after = req.query.get('after');
      // List endpoints page by object ID: `after` is the ID to start from.
      const start = after === null ? 0 : listed.findIndex((d) => Number(d.id) >= Number(after));
      const slice = start < 0 ? [] : listed.slice(start, start + limit);
      const next = start < 0 ? undefined : listed[start + limit];
      const wanted = requested(req.query.getAll('properties').join(','), ['dealname', 'amount', 'dealstage', 'closedate', 'pipeline']);
      const paging = next
        ? { next: { after: next.id, link: `${base}/crm/v3/objects/deals?limit=${limit}&after=${next.id}${archived ? '&archived=true' : ''}` } }
        : undefined;
      return { body: { results: slice.map((d) => render(d, wanted)), ...(paging ? { paging } : {}) } };
    })
    .route('POST', '/crm/v3/objects/notes', (req) => {
      const body = (req.json ?? {}) as { properties?: Record<string, unknown>; associations?: Array<{ to?: { id?: string }; types?: Array<{ associationCategory?: string; associationTypeId?: number }> }> };
      const props = body.properties ?? {};
      if (props.hs_timestamp === undefined || props.hs_timestamp === '') return invalidProperties([{ name: 'hs_timestamp', error: 'REQUIRED_PROPERTY', message: 'Property "hs_timestamp" is required' }]);
      if (Number.isNaN(Date.parse(String(props.hs_timestamp))) && !/^\d+$/.test(String(props.hs_timestamp))) {
        return invalidProperties([{ name: 'hs_timestamp', error: 'INVALID_DATE', message: `${String(props.hs_timestamp)} is not a valid timestamp` }]);
      }
      const associations: CrmRecord['associations'] = [];
      for (const a of body.associations ?? []) {
        const type = a.types?.[0];
        if (type?.associationCategory !== 'HUBSPOT_DEFINED' || type.associationTypeId !== 202) {
          return hubspotError(400, 'VALIDATION_ERROR', `Invalid association type ${JSON.stringify(type)}: a note is associated with a contact by HUBSPOT_DEFINED type 202`);
        }
        if (!contacts.some((c) => !c.archived && c.id === a.to?.id)) {
          return hubspotError(404, 'OBJECT_NOT_FOUND', `One or more associations are invalid: no contact with ID ${String(a.to?.id)}`);
        }
        associations.push({ toObjectType: 'contacts', toId: a.to!.id!, typeId: 202 });
      }
      const at = now();
      const id = String(++nextId);
      const note: CrmRecord = {
        id,
        properties: { hs_note_body: props.hs_note_body === undefined ? null : String(props.hs_note_body), hs_timestamp: new Date(/^\d+$/.test(String(props.hs_timestamp)) ? Number(props.hs_timestamp) : String(props.hs_timestamp)).toISOString(), hs_createdate: at, hs_lastmodifieddate: at, hs_object_id: id },
        createdAt: at,
        updatedAt: at,
        archived: false,
        associations,
      };
      notes.push(note);
      return { status: 201, body: render(note, Object.keys(note.properties)) };
    });

  const fakeClock = options.clock && 'now' in options.clock ? options.clock : createFakeClock(options.clock);
  const marketing = createHubspotMarketing({ clock: fakeClock, limits: options.limits ?? 'unlimited', baseUrl: () => base });
  const portal = marketing.createPortal(HUBSPOT_FAKE_TOKENS.valid);
  const defaultPortal = marketing.tokens.get(HUBSPOT_FAKE_TOKENS.valid)!.portal;
  for (const token of [HUBSPOT_FAKE_TOKENS.rateLimited, HUBSPOT_FAKE_TOKENS.noDealScope, HUBSPOT_FAKE_TOKENS.failing]) marketing.register(defaultPortal, token, 'private-app');
  marketing.mount(routes, (p, id, wanted) => {
    if (p !== defaultPortal) return undefined;
    const contact = contacts.find((c) => !c.archived && c.id === id);
    return contact ? (render(contact, wanted) as ReturnType<typeof render> & { archived: boolean }) : undefined;
  });
  const invalidAuthentication = () =>
    hubspotError(401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview');

  const faults = new FaultQueue();
  const publicRoutes = new FakeRoutes();
  // HubSpot's public-app OAuth: the install page (app.hubspot.com/oauth/authorize) and api.hubapi.com/oauth/v1/token,
  // client credentials in the form, 30-minute access tokens, refresh tokens that stay the same.
  const oauth = addOAuthRoutes<FakeHubspotPortal>(publicRoutes, {
    clock: fakeClock,
    authorizePath: '/oauth/authorize',
    tokenPath: '/oauth/v1/token',
    clientAuth: 'post',
    accessTokenTtlSeconds: 1800,
    refresh: 'reuse',
    scope: 'crm.objects.contacts.read marketing-events',
    defaultAccount: () => portal,
    issueAccessToken: (account, expiresAt) => marketing.register(marketing.tokens.get(account.token)!.portal, makeToken('CJ'), 'oauth', expiresAt ?? undefined),
    tokenError: hubspotTokenError,
    app: options.oauthApp,
  });
  const server = await startPlatformServer<HubspotIdentity>({
    clock: fakeClock,
    routes,
    faults,
    port: options.port,
    publicRoutes: options.control
      ? addControlRoutes(publicRoutes, {
          platform: 'hubspot',
          baseUrl: (): string => server.url,
          clock: fakeClock,
          faults,
          requests: (): PlatformLoggedRequest[] => server.requests,
          setLimits: (limits) => marketing.setLimits(limits as HubspotLimits),
          seed: (body) => portal.seed(body as unknown as HubspotSeedOptions),
          createAccount: () => {
            const created = marketing.createPortal();
            return { portalId: created.portalId, token: created.token };
          },
          revoke: (body) => {
            const identity = typeof body.token === 'string' ? marketing.tokens.get(body.token) : undefined;
            if (!identity) throw new Error('Send {"token": a token of the fake, "expired"?: true}.');
            identity.revoked = body.expired === true ? 'expired' : 'revoked';
          },
        })
      : publicRoutes,
    recordRequests: options.recordRequests,
    latency: options.latency,
    authenticate: (req) => {
      const token = bearerToken(req);
      const identity = token ? marketing.tokens.get(token) : undefined;
      if (!identity || identity.revoked === 'revoked') return { reply: invalidAuthentication() };
      if (identity.revoked === 'expired' || (identity.expiresAt !== undefined && fakeClock.now() >= identity.expiresAt)) return { reply: hubspotError(401, 'EXPIRED_AUTHENTICATION', 'The OAuth token used to make this call expired 1 hour(s) ago.') };
      if (token === HUBSPOT_FAKE_TOKENS.rateLimited) {
        return {
          reply: {
            ...hubspotError(429, 'RATE_LIMITS', 'You have reached your ten_secondly_rolling limit.', { errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' }),
            headers: { 'x-hubspot-ratelimit-interval-milliseconds': '10000', 'x-hubspot-ratelimit-max': '100', 'x-hubspot-ratelimit-remaining': '0' },
          },
        };
      }
      if (token === HUBSPOT_FAKE_TOKENS.noDealScope && req.path.startsWith('/crm/v3/objects/deals')) {
        return {
          reply: hubspotError(403, 'MISSING_SCOPES', 'This app hasn\'t been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.', {
            errors: [{ message: 'One or more of the following scopes are required.', context: { requiredGranularScopes: ['crm.objects.deals.read'] } }],
          }),
        };
      }
      if (token === HUBSPOT_FAKE_TOKENS.failing) return { reply: { status: 502, body: 'Bad Gateway' } };
      return { identity };
    },
    limit: (_req, identity) => marketing.limit(identity),
    serverError: (status) =>
      status === 500 ? hubspotError(500, 'INTERNAL_ERROR', 'internal error') : hubspotError(status, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable. Please try again later.'),
    rateLimited: (policy) => marketing.rateLimitReply(policy ?? 'TEN_SECONDLY_ROLLING', { 'x-hubspot-ratelimit-interval-milliseconds': '10000', 'x-hubspot-ratelimit-remaining': '0' }),
    notFound: () => ({ status: 404, body: '' }),
    methodNotAllowed: (allowed) => ({ status: 405, headers: { allow: allowed.join(', ') }, body: { message: 'Method Not Allowed' } }),
  });
  base = server.url;
  return Object.assign(server, {
    contacts,
    deals,
    notes,
    baseUrl: server.url,
    clock: fakeClock,
    limits: { set: marketing.setLimits },
    portal,
    createPortal: () => marketing.createPortal(),
    account: portal,
    createAccount: () => marketing.createPortal(),
    oauth,
    authorizeUrl: `${server.url}/oauth/authorize`,
    oauthTokenUrl: `${server.url}/oauth/v1/token`,
  });
}

/**
 * HubSpot's token endpoint errors: 400 (401 for the client) with its own `status` code word and the
 * standard `error` beside it (BAD_AUTH_CODE, BAD_REFRESH_TOKEN, BAD_CLIENT_ID, ...).
 */
function hubspotTokenError(failure: OAuthFailure, description: string): FakeReply {
  const words: Record<OAuthFailure, [string, string, string]> = {
    invalid_client: ['BAD_CLIENT_ID', 'invalid_client', 'missing or unknown client id'],
    bad_code: ['BAD_AUTH_CODE', 'invalid_grant', 'missing or unknown auth code'],
    bad_redirect_uri: ['BAD_REDIRECT_URI', 'invalid_grant', 'redirect_uri does not match initial authorization redirect uri'],
    pkce_failed: ['BAD_CODE_VERIFIER', 'invalid_grant', description],
    bad_refresh_token: ['BAD_REFRESH_TOKEN', 'invalid_grant', 'missing or unknown refresh token'],
    unsupported_grant_type: ['BAD_GRANT_TYPE', 'unsupported_grant_type', description],
    invalid_request: ['BAD_REQUEST', 'invalid_request', description],
  };
  const [status, error, message] = words[failure];
  return { status: failure === 'invalid_client' ? 401 : 400, body: { status, message, correlationId: randomUUID(), error, error_description: message } };
}
