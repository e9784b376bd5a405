import { SERVICE_TOKEN_HEADER } from '@patchbay/auth';
import { getBuiltinConnector } from '@patchbay/connector-catalog';
import { TEST_SERVICE_TOKEN, freePort, waitFor, type TestOrganization } from '@patchbay/testing';
import type { Express } from 'express';
import { clientSecretContext } from '../src/domain/application-credentials';
import { builtinConnectorId } from '../src/domain/ids';
import { connectionSecretContext, storeCredential, type StoredSecret, type StoreCredentialInput } from '../src/domain/store-credential';
import type { AuthScope } from '../src/generated/prisma/client';
import { startFakeTokenEndpoint, type FakeTokenEndpoint } from './fake-token-endpoint';
import { bearer, expectAuditEvent, request, startHarness, type Harness } from './harness';

const CLIENT_ID = 'client id/1';
const CLIENT_SECRET = 'client secret+2';

/** One OAuth connector of the catalog per client authentication method, so both are exercised. */
function oauthConnector(method: 'client_secret_basic' | 'client_secret_post'): string {
  for (const slug of ['notion', 'slack', 'github', 'linear', 'hubspot', 'gmail', 'google-calendar', 'jira']) {
    const option = getBuiltinConnector(slug)?.auth_options.find((o) => o.type === 'oauth2');
    if (option?.type === 'oauth2' && (option.oauth2.token_auth_method ?? 'client_secret_basic') === method) return slug;
  }
  throw new Error(`no catalog connector authenticates its client with ${method}`);
}
const BASIC = oauthConnector('client_secret_basic');
const POST = oauthConnector('client_secret_post');

let h: Harness;
let fake: FakeTokenEndpoint;
beforeAll(async () => {
  fake = await startFakeTokenEndpoint({ [CLIENT_ID]: CLIENT_SECRET });
  h = await startHarness();
  h.services.oauthOverrides = Object.fromEntries([BASIC, POST].map((slug) => [slug, { authorize_url: fake.tokenUrl.replace(/\/token$/, '/authorize'), token_url: fake.tokenUrl }]));
}, 60_000);
afterAll(async () => {
  await h.close();
  await fake.close();
});
beforeEach(() => {
  fake.mode = 'ok';
  fake.rotateRefreshToken = true;
  fake.expiresIn = 3600;
});

function resolve(app: Express, body: Record<string, unknown>) {
  return request(app).post('/internal/v1/credentials/resolve').set(SERVICE_TOKEN_HEADER, TEST_SERVICE_TOKEN).send(body);
}

interface Setup {
  org: TestOrganization;
  userId: string;
  packId: string;
  body: (slug: string) => Record<string, unknown>;
}

/** An organization with a registered user (company acme) and a tool pack using the given scope per connector. */
async function setup(scopes: Record<string, AuthScope>): Promise<Setup> {
  const org = await h.newOrganization();
  const user = await request(h.app)
    .post('/api/v1/registered-users/')
    .set(bearer(org.master_key))
    .send({ origin_user_id: 'u', origin_user_name: 'U', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme' } });
  const pack = await h.db.toolPack.create({
    data: {
      organizationId: org.organization_id,
      environment: 'production',
      name: 'pack',
      description: '',
      connectors: {
        create: Object.entries(scopes).map(([slug, authScope], position) => ({ connectorId: builtinConnectorId(slug), connectorSlug: slug, isCustom: false, authScope, toolNames: [], position })),
      },
    },
  });
  return {
    org,
    userId: user.body.id,
    packId: pack.id,
    body: (slug) => ({ organization_id: org.organization_id, environment: 'production', tool_pack_id: pack.id, registered_user_id: user.body.id, connector_slug: slug }),
  };
}

async function appCredential(org: TestOrganization, slug: string): Promise<string> {
  const row = await h.db.applicationCredential.create({ data: { organizationId: org.organization_id, environment: 'production', connectorSlug: slug, clientId: CLIENT_ID, scopes: [] } });
  await h.db.applicationCredential.update({ where: { id: row.id }, data: { clientSecretSealed: h.services.box.seal(CLIENT_SECRET, clientSecretContext(row.id)) } });
  return row.id;
}

async function store(org: TestOrganization, input: Partial<StoreCredentialInput> & Pick<StoreCredentialInput, 'connectorSlug' | 'authScope' | 'secret'>): Promise<string> {
  const { connection } = await h.db.$transaction((tx) => storeCredential(tx, h.services.box, { organizationId: org.organization_id, environment: 'production', authType: 'oauth2', ...input }));
  return connection.id;
}

/** An OAuth connection whose access token expired a minute ago, with a refresh token the fake knows. */
async function expiredOAuth(s: Setup, slug: string, refreshToken: string): Promise<string> {
  fake.grant(refreshToken);
  const appId = await appCredential(s.org, slug);
  const id = await store(s.org, {
    connectorSlug: slug,
    authScope: 'INDIVIDUAL',
    registeredUserId: s.userId,
    applicationCredentialId: appId,
    secret: { values: {}, access_token: 'old-access-token', refresh_token: refreshToken, token_type: 'bearer', expires_in: 3600 },
  });
  await h.db.connection.update({ where: { id }, data: { accessTokenExpiresAt: new Date(Date.now() - 60_000) } });
  return id;
}

const sealedSecret = async (id: string): Promise<StoredSecret> => {
  const row = await h.db.connection.findUniqueOrThrow({ where: { id } });
  return h.services.box.openJson<StoredSecret>(row.credentialSealed, connectionSecretContext(id));
};
const refreshesFor = (refreshToken: string) => fake.requests.filter((r) => r.params.refresh_token === refreshToken);

describe('POST /internal/v1/credentials/resolve', () => {
  it('requires the service token', async () => {
    const res = await request(h.app).post('/internal/v1/credentials/resolve').send({});
    expect(res.status).toBe(401);
    const wrong = await request(h.app).post('/internal/v1/credentials/resolve').set(SERVICE_TOKEN_HEADER, 'not-the-token-at-all').send({});
    expect(wrong.status).toBe(401);
  });

  it('bad input is a 400 naming the field', async () => {
    const s = await setup({ github: 'INDIVIDUAL' });
    for (const [patch, field] of [
      [{ organization_id: 'nope' }, 'body.organization_id'],
      [{ environment: 'staging' }, 'body.environment'],
      [{ tool_pack_id: undefined }, 'body.tool_pack_id'],
      [{ connector_slug: '' }, 'body.connector_slug'],
    ] as Array<[Record<string, unknown>, string]>) {
      const res = await resolve(h.app, { ...s.body('github'), ...patch });
      expect([res.status, res.body.errors?.[0]?.field]).toEqual([400, field]);
    }
  });

  it('returns the INDIVIDUAL credential to inject: values and access token, with its expiry', async () => {
    const s = await setup({ [POST]: 'INDIVIDUAL', jira: 'INDIVIDUAL' });
    const oauthId = await store(s.org, { connectorSlug: POST, authScope: 'INDIVIDUAL', registeredUserId: s.userId, secret: { values: {}, access_token: 'live-token', refresh_token: 'r', expires_in: 3600 } });
    const keyId = await store(s.org, { connectorSlug: 'jira', authScope: 'INDIVIDUAL', registeredUserId: s.userId, authType: 'api_key', secret: { values: { site_url: 'https://acme.atlassian.net', api_token: 'tok' } } });
    const before = fake.requests.length;

    const oauth = await resolve(h.app, s.body(POST));
    expect(oauth.status).toBe(200);
    expect(oauth.headers['cache-control']).toBe('no-store');
    expect(oauth.body).toEqual({ connection_id: oauthId, auth_scope: 'INDIVIDUAL', auth_type: 'oauth2', credential: { values: {}, access_token: 'live-token' }, expires_at: expect.any(String) });
    const apiKey = await resolve(h.app, s.body('jira'));
    expect(apiKey.body).toEqual({ connection_id: keyId, auth_scope: 'INDIVIDUAL', auth_type: 'api_key', credential: { values: { site_url: 'https://acme.atlassian.net', api_token: 'tok' } }, expires_at: null });
    // A token valid for an hour is not refreshed.
    expect(fake.requests.length).toBe(before);
  });

  it('chooses the scope the tool pack sets: SHARED uses the company credential, ORGANIZATION the organization one', async () => {
    const s = await setup({ github: 'SHARED', linear: 'ORGANIZATION', notion: 'INDIVIDUAL' });
    // Credentials at other scopes must not be picked.
    await store(s.org, { connectorSlug: 'github', authScope: 'INDIVIDUAL', registeredUserId: s.userId, secret: { values: {}, access_token: 'individual' } });
    const shared = await store(s.org, { connectorSlug: 'github', authScope: 'SHARED', companyId: 'acme', secret: { values: {}, access_token: 'acme-shared' } });
    await store(s.org, { connectorSlug: 'github', authScope: 'SHARED', companyId: 'globex', secret: { values: {}, access_token: 'globex-shared' } });
    const organization = await store(s.org, { connectorSlug: 'linear', authScope: 'ORGANIZATION', secret: { values: {}, access_token: 'org-wide' } });
    await store(s.org, { connectorSlug: 'notion', authScope: 'ORGANIZATION', secret: { values: {}, access_token: 'org-notion' } });

    expect((await resolve(h.app, s.body('github'))).body).toMatchObject({ connection_id: shared, auth_scope: 'SHARED', credential: { access_token: 'acme-shared' } });
    expect((await resolve(h.app, s.body('linear'))).body).toMatchObject({ connection_id: organization, auth_scope: 'ORGANIZATION', credential: { access_token: 'org-wide' } });
    // The pack says INDIVIDUAL for notion: the organization's credential does not stand in for the user's.
    const missing = await resolve(h.app, s.body('notion'));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'credential_missing', detail: expect.stringContaining('not authenticated') });
  });

  it('404 credential_missing when the user has not authenticated; plain 404 for a pack without the connector, an unknown pack or user, or the other environment', async () => {
    const s = await setup({ github: 'INDIVIDUAL' });
    const missing = await resolve(h.app, s.body('github'));
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('credential_missing');
    const notInPack = await resolve(h.app, s.body('slack'));
    expect([notInPack.status, notInPack.body.code]).toEqual([404, 'not_found']);
    const unknownPack = await resolve(h.app, { ...s.body('github'), tool_pack_id: '0d6e3c3e-4b0e-4a53-8a43-2f0e6f1d9a11' });
    expect([unknownPack.status, unknownPack.body.code]).toEqual([404, 'not_found']);
    const unknownUser = await resolve(h.app, { ...s.body('github'), registered_user_id: '0d6e3c3e-4b0e-4a53-8a43-2f0e6f1d9a11' });
    expect([unknownUser.status, unknownUser.body.code]).toEqual([404, 'not_found']);
    const testEnv = await resolve(h.app, { ...s.body('github'), environment: 'test' });
    expect([testEnv.status, testEnv.body.code]).toEqual([404, 'not_found']);
    const otherOrg = await h.newOrganization();
    expect((await resolve(h.app, { ...s.body('github'), organization_id: otherOrg.organization_id })).status).toBe(404);
  });

  it('refreshes an expired OAuth access token first, with the client credentials of the application credential, and stores the new tokens', async () => {
    for (const [slug, method] of [[BASIC, 'basic'], [POST, 'post']] as const) {
      const s = await setup({ [slug]: 'INDIVIDUAL' });
      const id = await expiredOAuth(s, slug, `rt-${slug}-${s.userId}`);
      const res = await resolve(h.app, s.body(slug));
      expect(res.status).toBe(200);
      const newToken = fake.issued[fake.issued.length - 1];
      expect(res.body.credential.access_token).toBe(newToken);
      expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.now() + 3000_000);
      const [seen] = refreshesFor(`rt-${slug}-${s.userId}`);
      expect(seen).toMatchObject({ clientAuth: method, clientId: CLIENT_ID, status: 200, params: { grant_type: 'refresh_token' } });
      // The rotated refresh token is stored with the new access token; the connection says when it was refreshed.
      const stored = await sealedSecret(id);
      expect(stored).toMatchObject({ access_token: newToken, refresh_token: expect.stringMatching(/^rt_/), expires_in: 3600 });
      const row = await h.db.connection.findUniqueOrThrow({ where: { id } });
      expect(row.lastRefreshedAt).not.toBeNull();
      expect(row.status).toBe('ACTIVE');
      // Now fresh: the next call does not refresh again.
      const count = fake.requests.length;
      expect((await resolve(h.app, s.body(slug))).body.credential.access_token).toBe(newToken);
      expect(fake.requests.length).toBe(count);
    }
  });

  it('keeps the old refresh token when the provider returns none; refreshes a token that expires within 60 seconds', async () => {
    const s = await setup({ [POST]: 'INDIVIDUAL' });
    const id = await expiredOAuth(s, POST, `rt-keep-${s.userId}`);
    fake.rotateRefreshToken = false;
    await h.db.connection.update({ where: { id }, data: { accessTokenExpiresAt: new Date(Date.now() + 30_000) } });
    const res = await resolve(h.app, s.body(POST));
    expect(res.status).toBe(200);
    expect(refreshesFor(`rt-keep-${s.userId}`)).toHaveLength(1);
    expect((await sealedSecret(id)).refresh_token).toBe(`rt-keep-${s.userId}`);
  });

  it('concurrent resolve calls on an expired credential cause exactly one refresh, across two app instances', async () => {
    const second = await startHarness();
    try {
      // Replicas share the configuration: the same sealing keys and token URLs.
      second.services.box = h.services.box;
      second.services.oauthOverrides = h.services.oauthOverrides;
      const s = await setup({ [BASIC]: 'INDIVIDUAL' });
      const refreshToken = `rt-race-${s.userId}`;
      await expiredOAuth(s, BASIC, refreshToken);
      // Keep the first refresh in flight until every call has been sent.
      fake.hold();
      const calls = Array.from({ length: 12 }, (_, i) => resolve(i % 2 === 0 ? h.app : second.app, s.body(BASIC)).then((r) => r));
      await waitFor(() => refreshesFor(refreshToken).length >= 1, 10_000, 'first refresh request');
      // Extra time only widens the overlap; the assertion below holds however the calls interleave.
      await new Promise((r) => setTimeout(r, 300));
      fake.release();
      const responses = await Promise.all(calls);
      expect(responses.map((r) => r.status)).toEqual(Array(12).fill(200));
      expect(refreshesFor(refreshToken)).toHaveLength(1);
      const token = fake.issued[fake.issued.length - 1];
      expect(new Set(responses.map((r) => r.body.credential.access_token))).toEqual(new Set([token]));
    } finally {
      fake.release();
      await second.close();
    }
  });

  it('invalid_grant marks the connection ERROR (connection.error audit event) and later calls say credential_invalid', async () => {
    const s = await setup({ [BASIC]: 'INDIVIDUAL' });
    const refreshToken = `rt-revoked-${s.userId}`;
    const id = await expiredOAuth(s, BASIC, refreshToken);
    fake.revoke(refreshToken);
    const res = await resolve(h.app, s.body(BASIC));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'credential_invalid', connection_id: id, detail: expect.stringContaining('invalid_grant') });
    const row = await h.db.connection.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toContain('invalid_grant');
    expect(row.statusReason).not.toContain(refreshToken);
    const event = await expectAuditEvent(h, s.org.master_key, (e) => e.event_type === 'connection.error' && e.resource_id === id);
    expect(event).toMatchObject({ user_id: s.userId, details: { connector: BASIC, auth_scope: 'INDIVIDUAL' } });
    expect(JSON.stringify(event)).not.toContain(refreshToken);

    const count = fake.requests.length;
    const later = await resolve(h.app, s.body(BASIC));
    expect([later.status, later.body.code]).toEqual([404, 'credential_invalid']);
    expect(fake.requests.length).toBe(count);
    // The connections list shows it retired, with the reason.
    const listed = await request(h.app).get('/api/v1/connections/?status=ERROR').set(bearer(s.org.master_key));
    expect(listed.body.results).toEqual([expect.objectContaining({ id, status: 'ERROR', status_reason: row.statusReason })]);
  });

  it('a 5xx from the token endpoint is a 503 and leaves the connection ACTIVE; the next call refreshes', async () => {
    const s = await setup({ [POST]: 'INDIVIDUAL' });
    const refreshToken = `rt-outage-${s.userId}`;
    const id = await expiredOAuth(s, POST, refreshToken);
    fake.mode = 'unavailable';
    const res = await resolve(h.app, s.body(POST));
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('service_unavailable');
    const row = await h.db.connection.findUniqueOrThrow({ where: { id } });
    expect([row.status, row.statusReason]).toEqual(['ACTIVE', null]);
    fake.mode = 'ok';
    const retry = await resolve(h.app, s.body(POST));
    expect(retry.status).toBe(200);
    expect(refreshesFor(refreshToken)).toHaveLength(2);
  });

  it('a refused client (invalid_client) is a 502 that points at the application credential; the connection stays ACTIVE', async () => {
    const s = await setup({ [BASIC]: 'INDIVIDUAL' });
    const id = await expiredOAuth(s, BASIC, `rt-client-${s.userId}`);
    const app = (await h.db.connection.findUniqueOrThrow({ where: { id } })).applicationCredentialId as string;
    await h.db.applicationCredential.update({ where: { id: app }, data: { clientSecretSealed: h.services.box.seal('wrong secret', clientSecretContext(app)) } });
    const res = await resolve(h.app, s.body(BASIC));
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'bad_gateway', detail: expect.stringContaining('invalid_client') });
    expect(res.body.detail).not.toContain('wrong secret');
    expect((await h.db.connection.findUniqueOrThrow({ where: { id } })).status).toBe('ACTIVE');
  });

  it('an unreachable token endpoint is a 503 and leaves the connection ACTIVE', async () => {
    const s = await setup({ [POST]: 'INDIVIDUAL' });
    const id = await expiredOAuth(s, POST, `rt-down-${s.userId}`);
    const overrides = h.services.oauthOverrides;
    const closed = await freePort();
    h.services.oauthOverrides = { ...overrides, [POST]: { authorize_url: `http://127.0.0.1:${closed}/authorize`, token_url: `http://127.0.0.1:${closed}/token` } };
    try {
      const res = await resolve(h.app, s.body(POST));
      expect([res.status, res.body.code]).toEqual([503, 'service_unavailable']);
      expect((await h.db.connection.findUniqueOrThrow({ where: { id } })).status).toBe('ACTIVE');
    } finally {
      h.services.oauthOverrides = overrides;
    }
  });

  it('an expired token without a refresh token retires the connection', async () => {
    const s = await setup({ [POST]: 'INDIVIDUAL' });
    const id = await store(s.org, { connectorSlug: POST, authScope: 'INDIVIDUAL', registeredUserId: s.userId, secret: { values: {}, access_token: 'short-lived', expires_in: 60 } });
    await h.db.connection.update({ where: { id }, data: { accessTokenExpiresAt: new Date(Date.now() - 1000) } });
    const res = await resolve(h.app, s.body(POST));
    expect([res.status, res.body.code]).toEqual([404, 'credential_invalid']);
    expect((await h.db.connection.findUniqueOrThrow({ where: { id } })).status).toBe('ERROR');
  });
});
