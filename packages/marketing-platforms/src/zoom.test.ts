import { ZOOM_FAKE_CREDENTIALS, startFakeZoom } from '@patchbay/provider-fakes';
import { runSync, verifyCredentials } from './index';
import { COUNTRY_TEXTS } from './testing/countries-sent';
import { MemorySink } from './testing/memory-sink';
import type { PlatformConnection, SyncOutcome, SyncTuning, TokenCache } from './types';

type FakeZoom = Awaited<ReturnType<typeof startFakeZoom>>;
let zoom: FakeZoom;
let cache: TokenCache;
const fast: SyncTuning = { baseBackoffMs: 1, maxBackoffMs: 5 };

beforeEach(async () => {
  zoom = await startFakeZoom();
  cache = new Map<string, { token: string; expiresAt: number }>();
});
afterEach(async () => {
  await zoom.close();
});

const s2s = (): PlatformConnection => ({
  platform: 'zoom',
  credentials: { account_id: ZOOM_FAKE_CREDENTIALS.accountId, client_id: ZOOM_FAKE_CREDENTIALS.clientId, client_secret: ZOOM_FAKE_CREDENTIALS.clientSecret },
  baseUrl: zoom.baseUrl,
  tokenUrl: zoom.tokenUrl,
  tokenCache: cache,
});
const sync = (sink: MemorySink, extra: Partial<Parameters<typeof runSync>[0]> = {}): Promise<SyncOutcome> =>
  runSync({ conn: s2s(), kind: 'full', modifiedSince: null, checkpoint: null, fieldMappings: [], sink, tuning: fast, ...extra });
const tokenRequests = () => zoom.requests.filter((r) => r.path === '/oauth/token');

describe('Zoom webinars', () => {
  it('exchanges Server-to-Server credentials at the token URL once and reuses the token until it expires', async () => {
    zoom.account.seed({ webinars: 3, registrantsPerWebinar: 2 });
    expect((await sync(new MemorySink())).kind).toBe('done');
    expect((await sync(new MemorySink())).kind).toBe('done');
    expect(tokenRequests()).toHaveLength(1);
    const exchange = tokenRequests()[0]!;
    expect(exchange.method).toBe('POST');
    expect(Object.fromEntries(exchange.query)).toEqual({ grant_type: 'account_credentials', account_id: ZOOM_FAKE_CREDENTIALS.accountId });
    expect(exchange.headers.authorization).toBe(`Basic ${Buffer.from(`${ZOOM_FAKE_CREDENTIALS.clientId}:${ZOOM_FAKE_CREDENTIALS.clientSecret}`).toString('base64')}`);
    // The API calls carry the bearer token under the base URL's /v2.
    expect(zoom.requests.filter((r) => r.path !== '/oauth/token').every((r) => r.path.startsWith('/v2/') && /^Bearer eyJ/.test(String(r.headers.authorization)))).toBe(true);

    // An hour on, the cached token has run out (by the clock the caller passes): a new one is fetched first.
    zoom.clock.advance(3_600_000);
    const later = () => new Date(zoom.clock.now());
    expect((await sync(new MemorySink(), { tuning: { ...fast, now: later } })).kind).toBe('done');
    expect(tokenRequests()).toHaveLength(2);
  });

  it('gets a new token when Zoom says the cached one expired or was revoked, and goes on', async () => {
    zoom.account.seed({ webinars: 2, registrantsPerWebinar: 2 });
    expect((await sync(new MemorySink())).kind).toBe('done');
    zoom.account.revokeAccessTokens();
    const sink = new MemorySink();
    expect((await sync(sink)).kind).toBe('done');
    expect(tokenRequests()).toHaveLength(2);
    expect(zoom.requests.filter((r) => r.status === 401)).toHaveLength(1);
    expect(sink.events.size).toBe(2);

    // Revoked while four requests are in flight: each meets a 401, one exchange serves them all.
    zoom.account.seed({ webinars: 12, registrantsPerWebinar: 2 });
    const revokeAfterEvents = new MemorySink();
    const write = revokeAfterEvents.writePage.bind(revokeAfterEvents);
    // Once: each user's webinars are an events page of their own, and a second revocation would meet the new token.
    let revoked = false;
    revokeAfterEvents.writePage = async (page) => {
      await write(page);
      if (page.model === 'events' && !revoked) {
        revoked = true;
        zoom.account.revokeAccessTokens();
      }
    };
    zoom.requests.length = 0;
    expect((await sync(revokeAfterEvents)).kind).toBe('done');
    expect(zoom.requests.filter((r) => r.status === 401).length).toBeGreaterThan(1);
    expect(tokenRequests()).toHaveLength(1);
  });

  it('takes a plain bearer token too, and says credentials_invalid when it dies', async () => {
    zoom.account.seed({ webinars: 2, registrantsPerWebinar: 2 });
    const bearer: PlatformConnection = { platform: 'zoom', credentials: { access_token: zoom.account.issueAccessToken() }, baseUrl: zoom.baseUrl };
    const sink = new MemorySink();
    expect((await sync(sink, { conn: bearer })).kind).toBe('done');
    expect(sink.links.size).toBe(4);
    expect(tokenRequests()).toHaveLength(0);
    zoom.account.revokeAccessTokens();
    expect(await sync(new MemorySink(), { conn: bearer })).toEqual({ kind: 'credentials_invalid', message: expect.stringContaining('Invalid access token') });
  });

  it('pages webinars, registrants and the guests among participants, 300 a page', async () => {
    const { firstWebinarId } = zoom.account.seed({ webinars: 1, registrantsPerWebinar: 650, pastShare: 1 });
    zoom.account.seed({ webinars: 319, registrantsPerWebinar: 2, pastShare: 0 });
    zoom.account.addParticipant(firstWebinarId, { name: 'Grace Brewster Hopper', email: 'Grace@Example.com', durationSeconds: 900 });
    const sink = new MemorySink();
    expect((await sync(sink)).kind).toBe('done');
    expect(sink.events.size).toBe(320);
    expect(sink.links.size).toBe(650 + 319 * 2 + 1);
    expect(sink.duplicates()).toEqual([]);
    const lists = zoom.requests.filter((r) => r.path.endsWith('/webinars'));
    expect(lists.map((r) => [r.query.get('page_size'), r.query.has('next_page_token')])).toEqual([
      ['300', false],
      ['300', true],
    ]);
    expect(zoom.requests.filter((r) => r.path === `/v2/webinars/${firstWebinarId}/registrants`).map((r) => [r.query.get('status'), r.query.get('page_size')])).toEqual([
      ['approved', '300'],
      ['approved', '300'],
      ['approved', '300'],
      ['pending', '300'],
      ['denied', '300'],
    ]);
    // Participants are asked for only for the webinar that has ended: 488 of its registrants took part, and the guest.
    expect(zoom.requests.filter((r) => r.path.includes('/past_webinars/')).map((r) => r.path)).toEqual([`/v2/past_webinars/${firstWebinarId}/participants`, `/v2/past_webinars/${firstWebinarId}/participants`]);
    const guest = sink.contacts.get('participant:grace@example.com')!;
    expect(guest.fields).toEqual({ first_name: 'Grace', last_name: 'Brewster Hopper', email: 'Grace@Example.com', phone: null, state: null, country: null, postal_code: null, remote_created_at: expect.any(String), remote_updated_at: null });
    expect(guest.remoteData[0]!.path).toBe(`/past_webinars/${firstWebinarId}/participants`);
  });

  it('fetches registrants of every status: Zoom lists only approved ones unless asked for pending and denied', async () => {
    const { firstWebinarId } = zoom.account.seed({ webinars: 1, registrantsPerWebinar: 3, pastShare: 0 });
    const webinar = firstWebinarId;
    const pending = zoom.account.addRegistrant(webinar, { email: 'pending@example.com', first_name: 'Pen', status: 'pending' });
    const denied = zoom.account.addRegistrant(webinar, { email: 'denied@example.com', first_name: 'Den', status: 'denied' });
    const sink = new MemorySink();
    expect((await sync(sink)).kind).toBe('done');
    expect(sink.contacts.size).toBe(5);
    expect(sink.contacts.get(pending.id)!.fields.email).toBe('pending@example.com');
    expect((sink.contacts.get(denied.id)!.remoteData[0]!.data as { status: string }).status).toBe('denied');
    // The default (no status) would have given the three approved ones only.
    expect(zoom.account.allRegistrants(webinar, 'approved')).toHaveLength(3);
  });

  it('maps a webinar and its registrants field by field', async () => {
    const { firstWebinarId } = zoom.account.seed({ webinars: 1, registrantsPerWebinar: 40 });
    const sink = new MemorySink();
    expect((await sync(sink)).kind).toBe('done');
    const w = zoom.account.getWebinar(firstWebinarId)!;
    const event = sink.events.get(String(firstWebinarId))!;
    expect(event.fields).toEqual({
      name: w.topic,
      description: w.agenda,
      remote_created_at: new Date(w.created_at as string).toISOString(),
      start_time: new Date(w.start_time).toISOString(),
      end_time: new Date(Date.parse(w.start_time) + (w.duration as number) * 60_000).toISOString(),
      emails: [],
      messages: [],
    });
    expect(event.remoteUpdatedAt).toBeNull();
    expect(event.remoteData).toEqual([{ path: `/users/${zoom.account.ownerId}/webinars`, data: w }]);
    for (const r of zoom.account.allRegistrants(firstWebinarId)) {
      const contact = sink.contacts.get(r.id)!;
      expect(contact.fields).toEqual({
        first_name: r.first_name,
        last_name: r.last_name,
        email: r.email,
        phone: r.phone,
        state: r.state,
        country: COUNTRY_TEXTS[r.country as string],
        postal_code: r.zip,
        remote_created_at: new Date(r.create_time as string).toISOString(),
        remote_updated_at: null,
      });
      expect(contact.remoteData).toEqual([{ path: `/webinars/${firstWebinarId}/registrants`, data: r }]);
    }
  });

  it('restarts a listing whose next_page_token expired (15 minutes) from the top, skipping what was written, from every checkpoint', async () => {
    zoom.account.seed({ webinars: 5, registrantsPerWebinar: 5 });
    const tuning = { ...fast, pageSize: 2 };
    const reference = new MemorySink();
    expect((await sync(reference, { tuning })).kind).toBe('done');
    let expiredSeen = 0;
    for (let killAt = 1; killAt < reference.pages.length; killAt += 1) {
      const sink = new MemorySink();
      sink.failAt = killAt;
      expect((await sync(sink, { tuning })).kind).toBe('failed');
      zoom.clock.advance(16 * 60_000);
      zoom.requests.length = 0;
      sink.failAt = null;
      expect((await sync(sink, { checkpoint: sink.lastCheckpoint, tuning })).kind).toBe('done');
      expiredSeen += zoom.requests.filter((r) => r.status === 400).length;
      expect(sorted(sink.events.keys())).toEqual(sorted(reference.events.keys()));
      expect(sorted(sink.links)).toEqual(sorted(reference.links));
      expect(sink.duplicates()).toEqual([]);
    }
    // Most checkpoints hold a page token, and each of those expired.
    expect(expiredSeen).toBeGreaterThan(reference.pages.length / 2);
  });

  it('waits out the per-second limit in-run and returns the daily limit with the date Zoom gives', async () => {
    zoom.account.seed({ webinars: 3, registrantsPerWebinar: 3 });
    zoom.limits.set({ medium: 2, light: 100 });
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      zoom.clock.advance(ms);
    };
    const now = () => new Date(zoom.clock.now());
    zoom.clock.freeze();
    const sink = new MemorySink();
    expect((await sync(sink, { tuning: { ...fast, sleep, now } })).kind).toBe('done');
    expect(waits.filter((w) => w === 1000).length).toBeGreaterThan(0);
    expect(zoom.requests.filter((r) => r.status === 429).length).toBe(waits.filter((w) => w === 1000).length);
    expect(sink.duplicates()).toEqual([]);

    zoom.limits.set({ daily: { medium: 2 } });
    const limited = await sync(new MemorySink(), { tuning: { ...fast, sleep, now } });
    expect(zoom.requests.at(-1)!.status).toBe(429);
    // Retry-After is the date the day resets (UTC midnight on Zoom's clock), not a number of seconds.
    expect(limited).toMatchObject({ kind: 'rate_limited', retryAt: new Date(nextMidnight(zoom.clock.now())), message: expect.stringContaining('daily rate limit') });
  });

  it('walks the webinars of every user of the account, or of the one user the credentials name', async () => {
    zoom.account.seed({ webinars: 3, registrantsPerWebinar: 1 });
    const host = zoom.account.createUser({ email: 'host@example.com' });
    zoom.account.seed({ webinars: 2, registrantsPerWebinar: 1, userId: host.id });
    const all = new MemorySink();
    expect((await sync(all)).kind).toBe('done');
    expect(all.events.size).toBe(5);
    expect(all.links.size).toBe(5);
    const one = new MemorySink();
    expect((await sync(one, { conn: { ...s2s(), credentials: { ...s2s().credentials, user_id: host.id } } })).kind).toBe('done');
    expect(sorted(one.events.keys())).toEqual(sorted(zoom.account.allWebinars(host.id).map((w) => String(w.id))));
  });

  it('verifies credentials as the account and its owner', async () => {
    expect(await verifyCredentials(s2s())).toEqual({ remoteAccountId: ZOOM_FAKE_CREDENTIALS.accountId, name: expect.stringContaining('@') });
    expect(zoom.requests.at(-1)!.path).toBe('/v2/users');
    const bearer: PlatformConnection = { platform: 'zoom', credentials: { access_token: zoom.account.issueAccessToken() }, baseUrl: zoom.baseUrl };
    expect(await verifyCredentials(bearer)).toEqual({ remoteAccountId: ZOOM_FAKE_CREDENTIALS.accountId, name: expect.stringContaining('@') });
    expect(zoom.requests.at(-1)!.path).toBe('/v2/users/me');
    zoom.account.disableApp();
    await expect(verifyCredentials({ ...s2s(), tokenCache: new Map() })).rejects.toMatchObject({ kind: 'credentials_invalid', message: expect.stringContaining('invalid_client') });
  });
});

const sorted = (values: Iterable<string>) => [...values].sort();
const nextMidnight = (ms: number) => {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
};
