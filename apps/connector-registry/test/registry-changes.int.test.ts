import { SERVICE_TOKEN_HEADER } from '@patchbay/auth';
import { subscribeRegistryChanges, type CloseRegistryChangeSubscription, type RegistryChange } from '@patchbay/queues';
import { createRedisSubscriber } from '@patchbay/service-kit';
import { TEST_REDIS_URL, TEST_SERVICE_TOKEN, waitFor, type TestOrganization } from '@patchbay/testing';
import Redis from 'ioredis';
import { clientSecretContext } from '../src/domain/application-credentials';
import { builtinConnectorId } from '../src/domain/ids';
import { connectionSecretContext, storeCredential } from '../src/domain/store-credential';
import { afterCommit, registryChange, type AppServices } from '../src/services';
import { startFakeTokenEndpoint, type FakeTokenEndpoint } from './fake-token-endpoint';
import { bearer, request, startHarness, type Harness } from './harness';
import { startTinyMcpServer, tool } from './tiny-mcp-server';

const GITHUB = builtinConnectorId('github');
const CLIENT_ID = 'registry-changes-client';
const CLIENT_SECRET = 'registry-changes-secret';

let h: Harness;
let fake: FakeTokenEndpoint;
let subscriber: Redis;
let unsubscribe: CloseRegistryChangeSubscription;
const received: RegistryChange[] = [];

beforeAll(async () => {
  fake = await startFakeTokenEndpoint({ [CLIENT_ID]: CLIENT_SECRET });
  h = await startHarness();
  h.services.oauthOverrides = { slack: { authorize_url: fake.tokenUrl.replace(/\/token$/, '/authorize'), token_url: fake.tokenUrl } };
  // What a runtime replica does: listen on a connection of its own.
  subscriber = createRedisSubscriber(TEST_REDIS_URL);
  unsubscribe = await subscribeRegistryChanges(subscriber, (change) => received.push(change));
}, 60_000);
afterAll(async () => {
  await unsubscribe();
  subscriber.disconnect();
  await h.close();
  await fake.close();
});

const of = (org: TestOrganization) => received.filter((c) => c.organization_id === org.organization_id);

/** Waits for the organization's next change; returns every change of the organization so far. */
async function changesAfter(org: TestOrganization, count: number): Promise<RegistryChange[]> {
  await waitFor(() => of(org).length >= count, 10_000, `${count} registry change(s)`);
  return of(org);
}

async function newUser(org: TestOrganization, company = 'acme'): Promise<string> {
  const res = await request(h.app)
    .post('/api/v1/registered-users/')
    .set(bearer(org.master_key))
    .send({ origin_user_id: `u-${Math.random().toString(36).slice(2)}`, origin_user_name: 'Ada', shared_credential_group: { origin_company_id: company, origin_company_name: company } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('connector-registry announces changes the runtime caches', () => {
  it('tool pack create, PATCH and delete each announce the pack, in the key\'s organization and environment', async () => {
    const org = await h.newOrganization();
    const created = await request(h.app).post('/api/v1/tool-packs/').set(bearer(org.master_key)).send({ name: 'Triage', description: '', connectors: [{ connector_id: GITHUB, tool_names: ['get_issue'] }] });
    expect(created.status).toBe(201);
    const patched = await request(h.app).patch(`/api/v1/tool-packs/${created.body.id}`).set(bearer(org.master_key)).send({ connectors: [{ connector_id: GITHUB, tool_names: ['get_issue', 'list_issues'] }] });
    expect(patched.status).toBe(200);
    expect((await request(h.app).delete(`/api/v1/tool-packs/${created.body.id}`).set(bearer(org.master_key))).status).toBe(204);

    const pack = { organization_id: org.organization_id, environment: 'production', kind: 'tool_packs', tool_pack_id: created.body.id };
    expect(await changesAfter(org, 3)).toEqual([pack, pack, pack]);
    // A test key's changes are the test environment's.
    const testPack = await request(h.app).post('/api/v1/tool-packs/').set(bearer(org.test_key)).send({ name: 'Sandbox', description: '' });
    expect((await changesAfter(org, 4))[3]).toEqual({ ...pack, environment: 'test', tool_pack_id: testPack.body.id });
  });

  it('a credential stored through the magic-link form and then deleted is announced for that user and connector', async () => {
    const org = await h.newOrganization();
    const userId = await newUser(org);
    const link = await request(h.app).post(`/api/v1/registered-users/${userId}/link-token/`).set(bearer(org.master_key)).send({ connector: 'github' });
    expect(link.status).toBe(201);
    const form = await request(h.app).post(`/link/${link.body.link_token}`).type('form').send({ token: 'ghp_registry_changes' });
    expect(form.status).toBe(200);
    const removed = await request(h.app).delete(`/api/v1/credentials/registered-users/${userId}/connectors/github`).set(bearer(org.master_key));
    expect(removed.status).toBe(204);

    const credential = { organization_id: org.organization_id, environment: 'production', kind: 'credentials', connector_slug: 'github', registered_user_id: userId };
    // Creating the user and the link token changes nothing the runtime caches: only the two credential changes.
    expect(await changesAfter(org, 2)).toEqual([credential, credential]);
  });

  it('a SHARED credential is announced for the whole connector, not for the user who connected it', async () => {
    const org = await h.newOrganization();
    const userId = await newUser(org);
    const link = await request(h.app).post(`/api/v1/registered-users/${userId}/link-token/`).set(bearer(org.master_key)).send({ connector: 'github', auth_scope: 'SHARED' });
    expect(link.status).toBe(201);
    expect((await request(h.app).post(`/link/${link.body.link_token}`).type('form').send({ token: 'ghp_shared' })).status).toBe(200);
    expect(await changesAfter(org, 1)).toEqual([{ organization_id: org.organization_id, environment: 'production', kind: 'credentials', connector_slug: 'github' }]);
  });

  it('a registered user\'s update and deletion are announced for that user', async () => {
    const org = await h.newOrganization();
    const userId = await newUser(org);
    const patched = await request(h.app).patch(`/api/v1/registered-users/${userId}`).set(bearer(org.master_key)).send({ shared_credential_group: { origin_company_id: 'globex', origin_company_name: 'Globex' } });
    expect(patched.status).toBe(200);
    expect((await request(h.app).delete(`/api/v1/registered-users/${userId}`).set(bearer(org.master_key))).status).toBe(204);
    const user = { organization_id: org.organization_id, environment: 'production', kind: 'registered_users', registered_user_id: userId };
    expect(await changesAfter(org, 2)).toEqual([user, user]);
  });

  it('an OAuth refresh and a revoked refresh token (the connection goes to ERROR) are announced, and so is a change of the OAuth app', async () => {
    const org = await h.newOrganization();
    const userId = await newUser(org);
    const pack = await h.db.toolPack.create({
      data: {
        organizationId: org.organization_id,
        environment: 'production',
        name: 'Chat',
        description: '',
        connectors: { create: [{ connectorId: builtinConnectorId('slack'), connectorSlug: 'slack', isCustom: false, authScope: 'INDIVIDUAL', toolNames: [], position: 0 }] },
      },
    });
    const app = await h.db.applicationCredential.create({ data: { organizationId: org.organization_id, environment: 'production', connectorSlug: 'slack', clientId: CLIENT_ID, scopes: [] } });
    await h.db.applicationCredential.update({ where: { id: app.id }, data: { clientSecretSealed: h.services.box.seal(CLIENT_SECRET, clientSecretContext(app.id)) } });
    const refreshToken = `rt-changes-${userId}`;
    fake.grant(refreshToken);
    const { connection } = await h.db.$transaction((tx) =>
      storeCredential(tx, h.services.box, {
        organizationId: org.organization_id,
        environment: 'production',
        connectorSlug: 'slack',
        authScope: 'INDIVIDUAL',
        registeredUserId: userId,
        authType: 'oauth2',
        applicationCredentialId: app.id,
        secret: { values: {}, access_token: 'expired', refresh_token: refreshToken, expires_in: 3600 },
      }),
    );
    const resolve = () =>
      request(h.app)
        .post('/internal/v1/credentials/resolve')
        .set(SERVICE_TOKEN_HEADER, TEST_SERVICE_TOKEN)
        .send({ organization_id: org.organization_id, environment: 'production', tool_pack_id: pack.id, registered_user_id: userId, connector_slug: 'slack' });
    const credential = { organization_id: org.organization_id, environment: 'production', kind: 'credentials', connector_slug: 'slack', registered_user_id: userId };

    await h.db.connection.update({ where: { id: connection.id }, data: { accessTokenExpiresAt: new Date(Date.now() - 60_000) } });
    expect((await resolve()).status).toBe(200);
    expect(await changesAfter(org, 1)).toEqual([credential]);

    // A refresh token the provider no longer knows: the refresh fails for good and the connection goes to ERROR.
    await h.db.connection.update({
      where: { id: connection.id },
      data: { credentialSealed: h.services.box.sealJson({ values: {}, access_token: 'expired', refresh_token: 'revoked-refresh-token' }, connectionSecretContext(connection.id)), accessTokenExpiresAt: new Date(Date.now() - 60_000) },
    });
    const retired = await resolve();
    expect([retired.status, retired.body.code]).toEqual([404, 'credential_invalid']);
    expect(await changesAfter(org, 2)).toEqual([credential, credential]);

    const updated = await request(h.app).patch(`/api/v1/application-credentials/${app.id}`).set(bearer(org.master_key)).send({ scopes: ['chat:write'] });
    expect(updated.status).toBe(200);
    const deleted = await request(h.app).delete(`/api/v1/application-credentials/${app.id}`).set(bearer(org.master_key));
    expect(deleted.status).toBe(204);
    const oauthApp = { organization_id: org.organization_id, environment: 'production', kind: 'credentials', connector_slug: 'slack' };
    expect((await changesAfter(org, 4)).slice(2)).toEqual([oauthApp, oauthApp]);
  });

  it('a custom connector whose tools changed on refresh, and its deletion, are announced for that connector; registering one and an unchanged refresh are not', async () => {
    const org = await h.newOrganization();
    const server = await startTinyMcpServer({ tools: [tool('lookup', 'Looks things up')] });
    try {
      const registered = await request(h.app).post('/api/v1/connectors/').set(bearer(org.master_key)).send({ name: 'Wiki', url: server.url, auth: { type: 'none' } });
      expect(registered.status).toBe(200);
      expect((await request(h.app).post(`/api/v1/connectors/${registered.body.slug}/refresh/`).set(bearer(org.master_key))).status).toBe(200);
      server.state.tools = [tool('lookup', 'Looks things up, and now also sends them elsewhere')];
      expect((await request(h.app).post(`/api/v1/connectors/${registered.body.slug}/refresh/`).set(bearer(org.master_key))).status).toBe(200);
      expect((await request(h.app).delete(`/api/v1/connectors/${registered.body.slug}/`).set(bearer(org.master_key))).status).toBe(204);
      const connector = { organization_id: org.organization_id, environment: 'production', kind: 'connectors', connector_slug: registered.body.slug };
      expect(await changesAfter(org, 2)).toEqual([connector, connector]);
    } finally {
      await server.close();
    }
  });

  it('a change that cannot be announced (Redis refuses) is logged and the request still succeeds', async () => {
    const org = await h.newOrganization();
    const pack = await request(h.app).post('/api/v1/tool-packs/').set(bearer(org.master_key)).send({ name: 'P', description: '' });
    const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
    // A client that cannot reach Redis and does not queue: every PUBLISH fails at once.
    const unreachable = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    unreachable.on('error', () => undefined);
    const { redis, logger } = h.services;
    h.services.redis = unreachable;
    h.services.logger = { warn: (fields, message) => void warnings.push({ fields, message }) };
    try {
      const res = await request(h.app).patch(`/api/v1/tool-packs/${pack.body.id}`).set(bearer(org.master_key)).send({ name: 'Renamed' });
      expect([res.status, res.body.name]).toEqual([200, 'Renamed']);
      const services: AppServices = { ...h.services };
      await expect(afterCommit(services, registryChange({ organizationId: org.organization_id, environment: 'production' }, 'connectors'))).resolves.toBeUndefined();
    } finally {
      h.services.redis = redis;
      h.services.logger = logger;
      unreachable.disconnect();
    }
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toEqual({ fields: expect.objectContaining({ kind: 'tool_packs', organization_id: org.organization_id, environment: 'production' }), message: expect.stringContaining('not announced') });
  });
});
