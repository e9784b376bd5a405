import { startMarketingFakes, UsageError } from './mktg-cli';

type Json = Record<string, any>;

describe('marketing fakes in a process of their own', () => {
  it('starts the three fakes seeded, prints their settings, and takes test controls over HTTP', async () => {
    const fakes = await startMarketingFakes(['--events', '3', '--participants', '4', '--port', '0']);
    try {
      const settings = Object.fromEntries(fakes.lines.map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]));
      expect(Object.keys(settings)).toEqual([
        'PATCHBAY_MKTG_HUBSPOT_BASE_URL',
        'HUBSPOT_ACCESS_TOKEN',
        'PATCHBAY_MKTG_HUBSPOT_CLIENT_ID',
        'PATCHBAY_MKTG_HUBSPOT_CLIENT_SECRET',
        'PATCHBAY_MKTG_HUBSPOT_AUTHORIZE_URL',
        'PATCHBAY_MKTG_HUBSPOT_TOKEN_URL',
        'PATCHBAY_MKTG_ZOOM_BASE_URL',
        'ZOOM_TOKEN_URL',
        'ZOOM_ACCOUNT_ID',
        'ZOOM_CLIENT_ID',
        'ZOOM_CLIENT_SECRET',
        'PATCHBAY_MKTG_ZOOM_TOKEN_URL',
        'PATCHBAY_MKTG_ZOOM_CLIENT_ID',
        'PATCHBAY_MKTG_ZOOM_CLIENT_SECRET',
        'PATCHBAY_MKTG_ZOOM_AUTHORIZE_URL',
        'PATCHBAY_MKTG_EVENTBRITE_BASE_URL',
        'EVENTBRITE_TOKEN',
        'PATCHBAY_MKTG_EVENTBRITE_CLIENT_ID',
        'PATCHBAY_MKTG_EVENTBRITE_CLIENT_SECRET',
        'PATCHBAY_MKTG_EVENTBRITE_AUTHORIZE_URL',
        'PATCHBAY_MKTG_EVENTBRITE_TOKEN_URL',
      ]);
      const hubspot = settings.PATCHBAY_MKTG_HUBSPOT_BASE_URL!;
      const auth = { authorization: `Bearer ${settings.HUBSPOT_ACCESS_TOKEN}` };
      const listed = (await (await fetch(`${hubspot}/marketing/v3/marketing-events/`, { headers: auth })).json()) as Json;
      expect(listed.results).toHaveLength(3);

      // Seed more, queue a fault, move the clock, count requests: all without a token.
      const post = (path: string, body: unknown) => fetch(`${hubspot}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(((await (await post('/__fake/seed', { events: 2, participantsPerEvent: 1 })).json()) as Json).firstObjectId).toEqual(expect.any(String));
      expect((await post('/__fake/faults', { kind: 'serverErrors', count: 1 })).status).toBe(200);
      expect((await fetch(`${hubspot}/marketing/v3/marketing-events/`, { headers: auth })).status).toBe(503);
      const after = (await (await fetch(`${hubspot}/marketing/v3/marketing-events/`, { headers: auth })).json()) as Json;
      expect(after.results).toHaveLength(5);
      const clock = (await (await post('/__fake/clock', { advanceMs: 60_000 })).json()) as Json;
      expect(clock.now).toEqual(expect.any(Number));
      const created = (await (await post('/__fake/accounts', {})).json()) as Json;
      expect(created).toEqual({ portalId: expect.any(Number), token: expect.any(String) });
      expect((await post('/__fake/limits', { limits: { tenSecondly: 1 } })).status).toBe(200);
      expect((await fetch(`${hubspot}/marketing/v3/marketing-events/`, { headers: auth })).status).toBe(200);
      expect((await fetch(`${hubspot}/marketing/v3/marketing-events/`, { headers: auth })).status).toBe(429);
      const log = (await (await fetch(`${hubspot}/__fake/requests?last=2`)).json()) as Json;
      expect(log).toMatchObject({ total: 5, byStatus: { '200': 3, '503': 1, '429': 1 } });
      expect(log.requests.map((r: Json) => [r.method, r.path, r.status])).toEqual([
        ['GET', '/marketing/v3/marketing-events/', 200],
        ['GET', '/marketing/v3/marketing-events/', 429],
      ]);
      expect(await (await fetch(`${hubspot}/__fake/health`)).json()).toEqual({ platform: 'hubspot', baseUrl: hubspot, requests: 5 });
      await fetch(`${hubspot}/__fake/requests`, { method: 'DELETE' });
      expect(((await (await fetch(`${hubspot}/__fake/requests`)).json()) as Json).total).toBe(0);

      // A token that stops working, over HTTP too.
      expect((await post('/__fake/revoke', { token: created.token, expired: true })).status).toBe(200);
      expect(((await (await fetch(`${hubspot}/marketing/v3/marketing-events/`, { headers: { authorization: `Bearer ${created.token}` } })).json()) as Json).category).toBe('EXPIRED_AUTHENTICATION');
      expect((await post('/__fake/revoke', { token: 'nope' })).status).toBe(400);

      // Bad control requests are 400s that say what to send.
      expect(await (await post('/__fake/limits', { limits: 'lots' })).json()).toEqual({ error: 'bad_control_request', message: expect.stringContaining('limits is') });
      expect((await post('/__fake/faults', { kind: 'explode' })).status).toBe(400);
      expect((await post('/__fake/seed', { events: 'many', participantsPerEvent: 1 })).status).toBe(400);

      const zoomToken = await fetch(`${settings.ZOOM_TOKEN_URL}?grant_type=account_credentials&account_id=${settings.ZOOM_ACCOUNT_ID}`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${settings.ZOOM_CLIENT_ID}:${settings.ZOOM_CLIENT_SECRET}`).toString('base64')}` },
      });
      const { access_token } = (await zoomToken.json()) as Json;
      const webinars = (await (await fetch(`${settings.PATCHBAY_MKTG_ZOOM_BASE_URL}/users/me/webinars`, { headers: { authorization: `Bearer ${access_token}` } })).json()) as Json;
      expect(webinars.total_records).toBe(3);
      const eb = (await (await fetch(`${settings.PATCHBAY_MKTG_EVENTBRITE_BASE_URL}/users/me/organizations/?token=${settings.EVENTBRITE_TOKEN}`)).json()) as Json;
      expect(eb.organizations).toHaveLength(1);
      // The printed OAuth app is the one the fake's authorize page knows.
      const authorize = await fetch(
        `${settings.PATCHBAY_MKTG_HUBSPOT_AUTHORIZE_URL}?response_type=code&client_id=${settings.PATCHBAY_MKTG_HUBSPOT_CLIENT_ID}&redirect_uri=${encodeURIComponent('http://localhost:8080/api/mktg/v1/link/oauth/callback')}&state=s`,
        { redirect: 'manual' },
      );
      expect(authorize.status).toBe(302);
    } finally {
      await fakes.close();
    }
  });

  it('refuses bad arguments with a usage error naming each one', async () => {
    await expect(startMarketingFakes(['--platforms', 'hubspot,myspace', '--events=-1'])).rejects.toThrow(UsageError);
    await expect(startMarketingFakes(['--platforms', 'hubspot,myspace', '--events=-1'])).rejects.toThrow(/unknown platforms: myspace\n--events must be a whole number/);
    await expect(startMarketingFakes(['--colour', 'blue'])).rejects.toThrow(UsageError);
  });
});
