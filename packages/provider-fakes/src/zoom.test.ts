import { ZOOM_FAKE_CREDENTIALS, startFakeZoom, type FakeZoom } from './zoom';

type Json = Record<string, any>;

let zoom: FakeZoom;
let token: string;

beforeEach(async () => {
  zoom = await startFakeZoom();
  token = zoom.account.issueAccessToken();
});

afterEach(async () => {
  await zoom.close();
});

async function get(path: string, bearer: string | null = token): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${zoom.baseUrl}${path}`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

async function exchange(credentials: { accountId: string; clientId: string; clientSecret: string }, grant = 'account_credentials'): Promise<{ status: number; body: Json }> {
  const basic = Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64');
  const res = await fetch(`${zoom.tokenUrl}?grant_type=${grant}&account_id=${credentials.accountId}`, { method: 'POST', headers: { authorization: `Basic ${basic}` } });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Follows next_page_token until it comes back empty, as a sync does. */
async function walk(path: string, key: string): Promise<{ items: Json[]; pages: Json[] }> {
  const items: Json[] = [];
  const pages: Json[] = [];
  let next = '';
  for (let guard = 0; guard < 10_000; guard += 1) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await get(`${path}${next ? `${sep}next_page_token=${encodeURIComponent(next)}` : ''}`);
    expect(page.status).toBe(200);
    pages.push(page.body);
    items.push(...(page.body[key] as Json[]));
    next = page.body.next_page_token as string;
    if (!next) return { items, pages };
  }
  throw new Error('pagination did not end');
}

describe('fake Zoom', () => {
  it('exchanges Server-to-Server OAuth credentials for an hour-long bearer token, and refuses bad ones the way Zoom does', async () => {
    const granted = await exchange(ZOOM_FAKE_CREDENTIALS);
    expect(granted).toEqual({ status: 200, body: { access_token: expect.any(String), token_type: 'bearer', expires_in: 3600, scope: expect.any(String), api_url: 'https://api.zoom.us' } });
    const me = await get('/users/me', granted.body.access_token as string);
    expect(me.body).toMatchObject({ id: zoom.account.ownerId, account_id: ZOOM_FAKE_CREDENTIALS.accountId });

    expect(await exchange({ ...ZOOM_FAKE_CREDENTIALS, clientSecret: 'wrong' })).toEqual({ status: 401, body: { reason: 'Invalid client_id or client_secret', error: 'invalid_client' } });
    expect((await exchange(ZOOM_FAKE_CREDENTIALS, 'client_credentials')).body.error).toBe('unsupported_grant_type');
    expect((await exchange({ ...ZOOM_FAKE_CREDENTIALS, accountId: 'someone-else' })).body.error).toBe('invalid_request');

    expect(await get('/users/me', null)).toMatchObject({ status: 401, body: { code: 124, message: 'Invalid access token.' } });
    zoom.clock.advance(3_600_000);
    expect(await get('/users/me', granted.body.access_token as string)).toMatchObject({ status: 401, body: { code: 124, message: 'Access token is expired.' } });
  });

  it('walks a user\'s webinars with next_page_token, 30 by default and at most 300 a page, ending with an empty token', async () => {
    zoom.account.seed({ webinars: 700, registrantsPerWebinar: 2 });
    const first = await get('/users/me/webinars');
    expect(first.body).toMatchObject({ page_size: 30, total_records: 700, page_count: 24, next_page_token: expect.any(String) });
    expect(first.body.webinars).toHaveLength(30);
    expect((await get('/users/me/webinars?page_size=1000')).body.page_size).toBe(300);

    const { items, pages } = await walk('/users/me/webinars?page_size=300', 'webinars');
    expect(pages.map((p) => p.webinars.length)).toEqual([300, 300, 100]);
    expect(pages[2]!.next_page_token).toBe('');
    expect(new Set(items.map((w) => w.id)).size).toBe(700);
    expect(items.map((w) => w.id)).toEqual(zoom.account.allWebinars().map((w) => w.id));
    expect(items[0]).toEqual({
      uuid: expect.stringMatching(/==$/),
      id: expect.any(Number),
      host_id: zoom.account.ownerId,
      topic: expect.any(String),
      type: 5,
      start_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      duration: 60,
      timezone: 'UTC',
      agenda: expect.any(String),
      created_at: expect.any(String),
      join_url: expect.stringContaining(String(items[0]!.id)),
      is_simulive: false,
    });
    const third = await get('/users/me/webinars?page_size=300&page_number=3');
    expect(third.body).toMatchObject({ page_number: 3, next_page_token: '' });
    expect(third.body.webinars.map((w: Json) => w.id)).toEqual(items.slice(600).map((w) => w.id));
    const upcoming = await walk('/users/me/webinars?type=upcoming&page_size=300', 'webinars');
    expect(upcoming.items).toHaveLength(350);
    expect((await get('/users/someone@nowhere.test/webinars')).body).toEqual({ code: 1001, message: 'User does not exist: someone@nowhere.test.' });
  });

  it('expires a next_page_token after 15 minutes of the fake clock, and refuses one from another list', async () => {
    zoom.account.seed({ webinars: 40, registrantsPerWebinar: 40 });
    const first = await get('/users/me/webinars');
    const next = first.body.next_page_token as string;
    const webinarId = first.body.webinars[0].id as number;
    expect((await get(`/webinars/${webinarId}/registrants?next_page_token=${encodeURIComponent(next)}`)).body).toEqual({ code: 300, message: 'The next page token is invalid or expired.' });
    zoom.clock.advance(14 * 60_000);
    expect((await get(`/users/me/webinars?next_page_token=${encodeURIComponent(next)}`)).status).toBe(200);
    zoom.clock.advance(60_001);
    const expired = await get(`/users/me/webinars?next_page_token=${encodeURIComponent(next)}`);
    expect(expired).toMatchObject({ status: 400, body: { code: 300, message: 'The next page token is invalid or expired.' } });
  });

  it('walks registrants (approved by default), with status changes, deletions and additions between pages', async () => {
    const { firstWebinarId } = zoom.account.seed({ webinars: 2, registrantsPerWebinar: 65 });
    const all = zoom.account.allRegistrants(firstWebinarId);
    zoom.account.setRegistrantStatus(firstWebinarId, all[3]!.id, 'denied');
    zoom.account.deleteRegistrant(firstWebinarId, all[4]!.id);
    const first = await get(`/webinars/${firstWebinarId}/registrants?page_size=30`);
    expect(first.body).toMatchObject({ total_records: 63, page_count: 3, page_size: 30, page_number: 1 });
    const added = zoom.account.addRegistrant(firstWebinarId, { first_name: 'Late', email: 'late@example.com', country: 'DE' });
    const rest = await walk(`/webinars/${firstWebinarId}/registrants?page_size=30`, 'registrants');
    expect(rest.items).toHaveLength(64);
    expect(rest.items[rest.items.length - 1]).toMatchObject({ id: added.id, email: 'late@example.com', country: 'DE', status: 'approved' });
    expect(rest.items.map((r) => r.id)).not.toContain(all[3]!.id);
    expect(rest.items.map((r) => r.id)).not.toContain(all[4]!.id);
    const denied = await get(`/webinars/${firstWebinarId}/registrants?status=denied`);
    expect(denied.body.registrants.map((r: Json) => r.id)).toEqual([all[3]!.id]);
    expect(rest.items[0]).toEqual(expect.objectContaining({ id: all[0]!.id, first_name: expect.any(String), last_name: expect.any(String), email: expect.stringContaining('@'), phone: expect.any(String), city: expect.any(String), state: expect.any(String), zip: expect.any(String), country: expect.any(String), create_time: expect.any(String), join_url: expect.any(String), custom_questions: [] }));
    const changed = zoom.account.updateRegistrant(firstWebinarId, all[0]!.id, { phone: '+49 30 1234567' });
    expect((await get(`/webinars/${firstWebinarId}/registrants?page_size=1`)).body.registrants[0].phone).toBe(changed.phone);
    expect((await get(`/webinars/${firstWebinarId}/registrants?status=maybe`)).body).toMatchObject({ code: 300, message: 'Validation Failed.', errors: [{ field: 'status' }] });
  });

  it('lists the participants of a held webinar by id or UUID, and says a webinar not held yet is not found', async () => {
    zoom.account.seed({ webinars: 4, registrantsPerWebinar: 10 });
    const [held, , upcoming] = zoom.account.allWebinars();
    const participants = await walk(`/past_webinars/${held!.id}/participants?page_size=4`, 'participants');
    expect(participants.items).toHaveLength(8);
    expect(participants.pages[0]).toMatchObject({ total_records: 8, page_count: 2, page_size: 4 });
    const registrantIds = new Set(zoom.account.allRegistrants(held!.id).map((r) => r.id));
    expect(participants.items.every((p) => registrantIds.has(p.registrant_id as string))).toBe(true);
    expect(participants.items[0]).toEqual({ id: '', name: expect.any(String), user_id: expect.any(String), registrant_id: expect.any(String), user_email: expect.stringContaining('@'), join_time: expect.any(String), leave_time: expect.any(String), duration: expect.any(Number), failover: false, status: 'in_meeting', internal_user: false });
    expect((await get(`/past_webinars/${encodeURIComponent(held!.uuid)}/participants`)).body.total_records).toBe(8);
    expect(await get(`/past_webinars/${upcoming!.id}/participants`)).toMatchObject({ status: 404, body: { code: 3001, message: `Webinar ${upcoming!.id} not found or has expired.` } });
  });

  it('drops a deleted webinar from the list and answers 404 code 3001 for it', async () => {
    const { firstWebinarId } = zoom.account.seed({ webinars: 3, registrantsPerWebinar: 1 });
    zoom.account.deleteWebinar(firstWebinarId);
    expect((await walk('/users/me/webinars', 'webinars')).items.map((w) => w.id)).not.toContain(firstWebinarId);
    expect(await get(`/webinars/${firstWebinarId}/registrants`)).toMatchObject({ status: 404, body: { code: 3001, message: `Webinar does not exist: ${firstWebinarId}.` } });
    expect((await get(`/webinars/${firstWebinarId + 1}`)).body.id).toBe(firstWebinarId + 1);
  });

  it('keeps accounts apart', async () => {
    const other = zoom.createAccount();
    const { firstWebinarId } = other.seed({ webinars: 1, registrantsPerWebinar: 1 });
    expect((await get(`/webinars/${firstWebinarId}`)).status).toBe(404);
    expect((await get(`/webinars/${firstWebinarId}`, other.issueAccessToken())).status).toBe(200);
    expect((await exchange({ accountId: other.accountId, clientId: other.clientId, clientSecret: other.clientSecret })).status).toBe(200);
  });

  it('limits requests per second and per day by category, with Zoom\'s 429 body and X-RateLimit-* headers', async () => {
    zoom.clock.freeze();
    zoom.limits.set({ medium: 2, light: 100, daily: { medium: 3 } });
    const ok = await get('/users/me/webinars');
    expect(ok.headers.get('x-ratelimit-category')).toBe('Medium');
    expect(ok.headers.get('x-ratelimit-limit')).toBe('3');
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('2');
    expect((await get('/users/me/webinars')).status).toBe(200);
    const qps = await get('/users/me/webinars');
    expect(qps.status).toBe(429);
    expect(qps.body).toEqual({ code: 429, message: 'You have reached the maximum per-second rate limit for this API. Try again later.' });
    expect(qps.headers.get('x-ratelimit-type')).toBe('QPS');
    expect(qps.headers.get('x-ratelimit-category')).toBe('Medium');
    expect(qps.headers.get('retry-after')).toBeNull();
    // Light requests count apart from Medium ones.
    expect((await get('/users/me')).status).toBe(200);
    zoom.clock.advance(1000);
    expect((await get('/users/me/webinars')).status).toBe(200);
    const daily = await get('/users/me/webinars');
    expect(daily.status).toBe(429);
    expect(daily.headers.get('x-ratelimit-type')).toBe('Daily-limit');
    expect(daily.headers.get('retry-after')).toMatch(/^\d{4}-\d\d-\d\dT00:00:00Z$/);
    expect(daily.body.message).toContain('daily rate limit');
    zoom.clock.set(Date.parse(daily.headers.get('retry-after')!));
    // Past midnight the day starts over (and the hour-long access token has run out).
    expect((await get('/users/me/webinars', zoom.account.issueAccessToken())).status).toBe(200);
  });

  it('answers a 429 storm, a 5xx burst, a cut connection, revoked tokens and a disabled app', async () => {
    zoom.account.seed({ webinars: 50, registrantsPerWebinar: 0 });
    zoom.faults.rateLimit({ count: 1, policy: 'Daily-limit' });
    const storm = await get('/users/me/webinars');
    expect(storm.status).toBe(429);
    expect(storm.headers.get('x-ratelimit-type')).toBe('Daily-limit');
    zoom.faults.serverErrors({ count: 1, status: 500 });
    expect(await get('/users/me/webinars')).toMatchObject({ status: 500, body: { code: 500 } });
    zoom.faults.cutConnection({ path: '/webinars' });
    const cut = await fetch(`${zoom.baseUrl}/users/me/webinars`, { headers: { authorization: `Bearer ${token}` } });
    await expect(cut.json()).rejects.toThrow();
    expect((await get('/users/me/webinars')).status).toBe(200);

    zoom.account.revokeAccessTokens();
    expect(await get('/users/me')).toMatchObject({ status: 401, body: { code: 124, message: 'Invalid access token.' } });
    const fresh = await exchange(ZOOM_FAKE_CREDENTIALS);
    expect((await get('/users/me', fresh.body.access_token as string)).status).toBe(200);
    zoom.faults.serverErrors({ count: 1, path: '/oauth/token' });
    expect((await exchange(ZOOM_FAKE_CREDENTIALS)).status).toBe(503);
    zoom.account.disableApp();
    expect((await get('/users/me', fresh.body.access_token as string)).status).toBe(401);
    expect((await exchange(ZOOM_FAKE_CREDENTIALS)).body.error).toBe('invalid_client');
    expect(zoom.requests.filter((r) => r.fault).map((r) => r.fault)).toEqual(['rate-limit', 'server-error', 'cut', 'server-error']);
  });
});
