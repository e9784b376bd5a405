import { createHash, randomUUID } from 'node:crypto';
import type { TestOrganization } from '@patchbay/testing';
import { connectionSecretContext, storeCredential, type StoredSecret } from '../src/domain/store-credential';
import { linkFlowContext } from '../src/domain/link-tokens';
import { pkceChallenge } from '@patchbay/oauth';
import { bearer, expectAuditEvent, request, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  h.services.oauthOverrides = { github: { authorize_url: 'https://oauth.example.test/authorize', token_url: 'https://oauth.example.test/token' } };
}, 60_000);
afterAll(async () => {
  await h.close();
});

const APP_ORIGIN = 'https://app.example.com';

async function newOrg(): Promise<TestOrganization> {
  return h.newOrganization({ callbackOrigins: [APP_ORIGIN] });
}

/** A registered user row; registered users have their own API, this test only needs one to exist. */
async function newUser(org: TestOrganization, environment: 'production' | 'test' = 'production') {
  return h.db.registeredUser.create({
    data: {
      organizationId: org.organization_id,
      environment,
      originUserId: `user-${randomUUID()}`,
      originUserName: 'Ada Lovelace',
      originCompanyId: 'acme',
      originCompanyName: 'Acme Inc.',
    },
  });
}

const linkPath = (userId: string) => `/api/v1/registered-users/${userId}/link-token/`;
const createLink = (key: string, userId: string, body: Record<string, unknown>) => request(h.app).post(linkPath(userId)).set(bearer(key)).send(body);

async function expectFieldError(res: { status: number; body: { errors?: Array<{ field: string }> } }, field: string): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.body.errors?.map((e) => e.field)).toContain(field);
}

async function linkTokenCount(org: TestOrganization): Promise<number> {
  return h.db.linkToken.count({ where: { organizationId: org.organization_id } });
}

describe('POST /api/v1/registered-users/{id}/link-token/', () => {
  it('returns 201 with the link token, the magic-link URL and its expiry; only the SHA-256 of the token is stored', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const before = Date.now();
    const res = await createLink(org.master_key, user.id, { connector: 'github', callback_url: `${APP_ORIGIN}/connected?tab=tools`, state: 'csrf-123' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      link_token: expect.stringMatching(/^lt_[A-Za-z0-9_-]{43}$/),
      magic_link_url: `http://patchbay.test/link/${res.body.link_token}`,
      expires_at: expect.any(String),
      connector: 'github',
      registered_user_id: user.id,
      auth_scope: 'INDIVIDUAL',
    });
    const expiresAt = new Date(res.body.expires_at).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
    const row = await h.db.linkToken.findFirstOrThrow({ where: { organizationId: org.organization_id } });
    expect(row.tokenHash).toBe(createHash('sha256').update(res.body.link_token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(res.body.link_token);
    expect(row).toMatchObject({ registeredUserId: user.id, connectorSlug: 'github', callbackUrl: `${APP_ORIGIN}/connected?tab=tools`, state: 'csrf-123', usedAt: null, environment: 'production' });
  });

  it('emits a link_token.created audit event that never holds the token', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const res = await createLink(org.master_key, user.id, { connector: 'github' });
    const event = await expectAuditEvent(h, org.master_key, (e) => e.event_type === 'link_token.created');
    expect(event).toMatchObject({ user_id: user.id, resource_type: 'link_token' });
    expect(JSON.stringify(event)).not.toContain(res.body.link_token);
  });

  it('with PATCHBAY_PUBLIC_URL unset, builds the magic link from X-Forwarded-Host only when the edge marks it a trusted load balancer\'s', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const saved = h.services.config.PATCHBAY_PUBLIC_URL;
    h.services.config.PATCHBAY_PUBLIC_URL = undefined;
    try {
      const res = await createLink(org.master_key, user.id, { connector: 'github' })
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'patchbay.example.org')
        .set('X-Patchbay-Trusted-Host', '1');
      expect(res.body.magic_link_url).toBe(`https://patchbay.example.org/link/${res.body.link_token}`);
    } finally {
      h.services.config.PATCHBAY_PUBLIC_URL = saved;
    }
  });

  it('never builds a magic link from the client\'s Host header (Host: evil.example.com): without configuration it says what to set', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const saved = h.services.config.PATCHBAY_PUBLIC_URL;
    h.services.config.PATCHBAY_PUBLIC_URL = undefined;
    try {
      const res = await createLink(org.master_key, user.id, { connector: 'github' }).set('Host', 'evil.example.com').set('X-Forwarded-Host', 'evil.example.com');
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('service_unavailable');
      expect(res.body.detail).toContain('PATCHBAY_PUBLIC_URL');
      expect(JSON.stringify(res.body)).not.toContain('evil.example.com');
    } finally {
      h.services.config.PATCHBAY_PUBLIC_URL = saved;
    }
  });

  it('connector is required and must be a connector the organization can see with a way to authenticate (400 naming connector)', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    await expectFieldError(await createLink(org.master_key, user.id, {}), 'body.connector');
    await expectFieldError(await createLink(org.master_key, user.id, { connector: 'no-such-connector' }), 'body.connector');
    // A custom MCP connector authenticates with the organization's secret: users have nothing to connect.
    await h.db.customConnector.create({
      data: { organizationId: org.organization_id, environment: 'production', slug: 'my-mcp', name: 'My MCP', description: '', url: 'https://mcp.example.com/mcp', authType: 'none' },
    });
    const custom = await createLink(org.master_key, user.id, { connector: 'my-mcp' });
    await expectFieldError(custom, 'body.connector');
    // Another organization's custom connector is not visible at all.
    const other = await newOrg();
    const otherUser = await newUser(other);
    const res = await createLink(other.master_key, otherUser.id, { connector: 'my-mcp' });
    await expectFieldError(res, 'body.connector');
    expect(res.body.detail).toContain('no connector with slug "my-mcp"');
    expect(await linkTokenCount(org)).toBe(0);
  });

  it('external_id picks the application credential with that external_id; an unknown one is a 400 naming external_id', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const app = await request(h.app).post('/api/v1/application-credentials/').set(bearer(org.master_key)).send({ connector: 'github', client_id: 'tenant-app', external_id: 'tenant-1' });
    expect(app.status).toBe(201);
    await expectFieldError(await createLink(org.master_key, user.id, { connector: 'github', external_id: 'tenant-2' }), 'body.external_id');
    expect(await linkTokenCount(org)).toBe(0);
    const ok = await createLink(org.master_key, user.id, { connector: 'github', external_id: 'tenant-1' });
    expect(ok.status).toBe(201);
    const row = await h.db.linkToken.findFirstOrThrow({ where: { organizationId: org.organization_id } });
    expect(row.applicationCredentialId).toBe(app.body.id);
  });

  it("callback_url must have an origin among the organization's allowed callback origins (400 naming callback_url)", async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const res = await createLink(org.master_key, user.id, { connector: 'github', callback_url: 'https://evil.example.net/cb' });
    await expectFieldError(res, 'body.callback_url');
    expect(res.body.detail).toContain('https://evil.example.net');
    // Same host, other scheme or port: another origin.
    await expectFieldError(await createLink(org.master_key, user.id, { connector: 'github', callback_url: 'http://app.example.com/cb' }), 'body.callback_url');
    await expectFieldError(await createLink(org.master_key, user.id, { connector: 'github', callback_url: 'https://app.example.com:8443/cb' }), 'body.callback_url');
    await expectFieldError(await createLink(org.master_key, user.id, { connector: 'github', callback_url: 'not a url' }), 'body.callback_url');
    expect(await linkTokenCount(org)).toBe(0);
  });

  it('callback_url must not itself contain a state query parameter (400 naming callback_url)', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const res = await createLink(org.master_key, user.id, { connector: 'github', callback_url: `${APP_ORIGIN}/cb?state=abc` });
    await expectFieldError(res, 'body.callback_url');
    expect(res.body.detail).toContain('state');
    expect(await linkTokenCount(org)).toBe(0);
  });

  it('state requires callback_url (400 naming state)', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    await expectFieldError(await createLink(org.master_key, user.id, { connector: 'github', state: 'xyz' }), 'body.state');
    expect(await linkTokenCount(org)).toBe(0);
  });

  it('rejects unknown body fields and an unknown auth_scope with 400', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    expect((await createLink(org.master_key, user.id, { connector: 'github', colour: 'blue' })).status).toBe(400);
    await expectFieldError(await createLink(org.master_key, user.id, { connector: 'github', auth_scope: 'EVERYONE' }), 'body.auth_scope');
  });

  it('auth_scope SHARED makes the link store the credential of the user\'s company', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const res = await createLink(org.master_key, user.id, { connector: 'github', auth_scope: 'SHARED' });
    expect(res.status).toBe(201);
    expect(res.body.auth_scope).toBe('SHARED');
    const form = await request(h.app).post(`/link/${res.body.link_token}`).type('form').send({ token: 'ghp_shared' });
    expect(form.status).toBe(200);
    const connection = await h.db.connection.findFirstOrThrow({ where: { organizationId: org.organization_id } });
    expect(connection).toMatchObject({ authScope: 'SHARED', companyId: 'acme', subjectKey: 'acme', registeredUserId: null, status: 'ACTIVE' });
  });

  it('a registered user outside the key\'s restriction, of another organization or of the other environment is 404 "Resource not in API key scope."', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const otherUser = await newUser(org);
    const restricted = await h.accessKeys.createKey(org.master_key, { name: 'one user', registered_user_ids: [otherUser.id], scopes: ['management:all'] });
    const outside = await createLink(restricted.key, user.id, { connector: 'github' });
    expect(outside.status).toBe(404);
    expect(outside.body.detail).toBe('Resource not in API key scope.');
    expect((await createLink(restricted.key, otherUser.id, { connector: 'github' })).status).toBe(201);

    const stranger = await newOrg();
    const foreign = await createLink(stranger.master_key, user.id, { connector: 'github' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBe('Resource not in API key scope.');

    expect((await createLink(org.test_key, user.id, { connector: 'github' })).status).toBe(404);
    const testUser = await newUser(org, 'test');
    expect((await createLink(org.master_key, testUser.id, { connector: 'github' })).status).toBe(404);
    expect((await createLink(org.test_key, testUser.id, { connector: 'github' })).status).toBe(201);

    expect((await createLink(org.master_key, 'not-a-uuid', { connector: 'github' })).status).toBe(404);
    expect((await createLink(org.master_key, randomUUID(), { connector: 'github' })).status).toBe(404);
  });

  it('needs a key with management:all', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const runtimeOnly = await h.accessKeys.createKey(org.master_key, { name: 'runtime', scopes: ['runtime:all'] });
    expect((await createLink(runtimeOnly.key, user.id, { connector: 'github' })).status).toBe(403);
    expect((await request(h.app).post(linkPath(user.id)).send({ connector: 'github' })).status).toBe(401);
  });
});

describe('the magic-link page', () => {
  async function newLink(body: Record<string, unknown> = {}) {
    const org = await newOrg();
    const user = await newUser(org);
    const res = await createLink(org.master_key, user.id, { connector: 'github', callback_url: `${APP_ORIGIN}/done`, state: 'st-1', ...body });
    expect(res.status).toBe(201);
    return { org, user, token: res.body.link_token as string };
  }

  it('shows the connector and a form for its credential_fields, escaping every value, with no external assets', async () => {
    const { token } = await newLink();
    const res = await request(h.app).get(`/link/${token}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.text).toContain('GitHub');
    expect(res.text).toContain('name="token"');
    expect(res.text).toContain('Ada Lovelace');
    expect(res.text).not.toMatch(/(src|href)="https?:/);
  });

  it('an unknown link is a 404 page; an expired link is a 410 page', async () => {
    expect((await request(h.app).get('/link/lt_nope')).status).toBe(404);
    const { token, org } = await newLink();
    await h.db.linkToken.updateMany({ where: { organizationId: org.organization_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await request(h.app).get(`/link/${token}`);
    expect(res.status).toBe(410);
    expect(res.text).toContain('This link has expired');
    expect(res.text).toContain(`${APP_ORIGIN}/done?error=link_expired`);
    const post = await request(h.app).post(`/link/${token}`).type('form').send({ token: 'ghp_x' });
    expect(post.status).toBe(410);
    expect(await h.db.connection.count({ where: { organizationId: org.organization_id } })).toBe(0);
  });

  it('a form post without a required field re-renders the form naming the field and stores nothing', async () => {
    const { token, org } = await newLink();
    const res = await request(h.app).post(`/link/${token}`).type('form').send({ token: '   ' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Personal access token is required.');
    expect(await h.db.connection.count({ where: { organizationId: org.organization_id } })).toBe(0);
    const row = await h.db.linkToken.findFirstOrThrow({ where: { organizationId: org.organization_id } });
    expect(row.usedAt).toBeNull();
  });

  it('a form post stores the credential sealed, makes the connection ACTIVE, redirects to callback_url with state, and is single-use (410 afterwards)', async () => {
    const { token, org, user } = await newLink();
    const res = await request(h.app).post(`/link/${token}`).type('form').send({ token: 'ghp_secret_value', unexpected: 'ignored' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.location as string);
    expect(location.origin + location.pathname).toBe(`${APP_ORIGIN}/done`);
    expect(Object.fromEntries(location.searchParams)).toEqual({ connector: 'github', status: 'success', state: 'st-1' });

    const connection = await h.db.connection.findFirstOrThrow({ where: { organizationId: org.organization_id } });
    expect(connection).toMatchObject({ authType: 'bearer_token', authScope: 'INDIVIDUAL', registeredUserId: user.id, subjectKey: user.id, status: 'ACTIVE' });
    expect(connection.credentialSealed).not.toContain('ghp_secret_value');
    expect(h.services.box.openJson(connection.credentialSealed, connectionSecretContext(connection.id))).toEqual({ values: { token: 'ghp_secret_value' } });

    const again = await request(h.app).get(`/link/${token}`);
    expect(again.status).toBe(410);
    expect(again.text).toContain('This link was already used');
    expect((await request(h.app).post(`/link/${token}`).type('form').send({ token: 'ghp_other' })).status).toBe(410);
    const event = await expectAuditEvent(h, org.master_key, (e) => e.event_type === 'connection.created' && e.resource_id === connection.id);
    expect(JSON.stringify(event)).not.toContain('ghp_secret_value');
  });

  it('without callback_url a successful form post shows a success page', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const created = await createLink(org.master_key, user.id, { connector: 'github' });
    const res = await request(h.app).post(`/link/${created.body.link_token}`).type('form').send({ token: 'ghp_x' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Your GitHub account is connected');
  });

  it('OAuth Connect explains that an OAuth app must be configured when the organization has none', async () => {
    const { token } = await newLink();
    const page = await request(h.app).get(`/link/${token}`);
    expect(page.text).toContain('has not configured an OAuth app');
    const start = await request(h.app).get(`/link/${token}/oauth/start`);
    expect(start.status).toBe(409);
    expect(start.text).toContain('application credentials');
  });

  it('OAuth start redirects to the provider with client_id, redirect_uri, scope, state and an S256 code_challenge; the verifier is stored sealed', async () => {
    const { token, org } = await newLink();
    await request(h.app).post('/api/v1/application-credentials/').set(bearer(org.master_key)).send({ connector: 'github', client_id: 'client-1', client_secret: 's3cret' });
    const page = await request(h.app).get(`/link/${token}`);
    expect(page.text).toContain('id="connect"');
    const res = await request(h.app).get(`/link/${token}/oauth/start`);
    expect(res.status).toBe(302);
    const target = new URL(res.headers.location as string);
    expect(target.origin + target.pathname).toBe('https://oauth.example.test/authorize');
    const params = Object.fromEntries(target.searchParams);
    expect(params).toMatchObject({
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: 'http://patchbay.test/link/oauth/callback',
      scope: 'repo read:user',
      code_challenge_method: 'S256',
    });
    const row = await h.db.linkToken.findFirstOrThrow({ where: { organizationId: org.organization_id } });
    expect(row.oauthState).toBe(params.state);
    expect(row.pkceVerifierSealed).not.toBeNull();
    const pending = h.services.box.openJson<{ code_verifier: string }>(row.pkceVerifierSealed!, linkFlowContext(row.id));
    expect(pkceChallenge(pending.code_verifier)).toBe(params.code_challenge);
    expect(row.pkceVerifierSealed).not.toContain(pending.code_verifier);
  });

  it('an OAuth callback with an unknown state says so and stores nothing', async () => {
    const res = await request(h.app).get('/link/oauth/callback?code=abc&state=unknown');
    expect(res.status).toBe(400);
    expect(res.text).toContain('does not match a connection in progress');
  });
});

describe('storeCredential', () => {
  it('upserts on (connector, scope, subject): a second store keeps the connection id, reseals, and makes it ACTIVE again', async () => {
    const org = await newOrg();
    const user = await newUser(org);
    const input = { organizationId: org.organization_id, environment: 'production' as const, connectorSlug: 'github', authScope: 'INDIVIDUAL' as const, registeredUserId: user.id, authType: 'oauth2' };
    const first = await h.db.$transaction((tx) => storeCredential(tx, h.services.box, { ...input, secret: { values: {}, access_token: 'a1', refresh_token: 'r1', expires_in: 3600 } }));
    expect(first.created).toBe(true);
    expect(first.connection.accessTokenExpiresAt).not.toBeNull();
    await h.db.connection.update({ where: { id: first.connection.id }, data: { status: 'ERROR', statusReason: 'invalid_grant' } });
    const second = await h.db.$transaction((tx) => storeCredential(tx, h.services.box, { ...input, secret: { values: {}, access_token: 'a2' } }));
    expect(second.created).toBe(false);
    expect(second.connection.id).toBe(first.connection.id);
    expect(second.connection).toMatchObject({ status: 'ACTIVE', statusReason: null, accessTokenExpiresAt: null });
    expect(h.services.box.openJson<StoredSecret>(second.connection.credentialSealed, connectionSecretContext(first.connection.id))).toEqual({ values: {}, access_token: 'a2' });
    expect(await h.db.connection.count({ where: { organizationId: org.organization_id } })).toBe(1);
  });

  it('concurrent first stores of the same subject leave one connection', async () => {
    const org = await newOrg();
    const input = { organizationId: org.organization_id, environment: 'production' as const, connectorSlug: 'github', authScope: 'ORGANIZATION' as const, authType: 'bearer_token' };
    const results = await Promise.all(
      ['t1', 't2', 't3'].map((t) => h.db.$transaction((tx) => storeCredential(tx, h.services.box, { ...input, secret: { values: { token: t } } }))),
    );
    expect(new Set(results.map((r) => r.connection.id)).size).toBe(1);
    const rows = await h.db.connection.findMany({ where: { organizationId: org.organization_id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]?.subjectKey).toBe('organization');
  });
});
