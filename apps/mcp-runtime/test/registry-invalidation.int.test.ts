import path from 'node:path';
import { KeyVerifier, httpKeyLoader, type KeyPrincipal } from '@patchbay/auth';
import { FakeRoutes, GITHUB_FAKE_TOKENS, startFakeServer, type FakeServer } from '@patchbay/provider-fakes';
import { REGISTRY_CHANGE_KINDS, publishRegistryChange } from '@patchbay/queues';
import { createRedis, createRedisSubscriber } from '@patchbay/service-kit';
import {
  ManualClock,
  TEST_REDIS_URL,
  TEST_SERVICE_TOKEN,
  startAccessKeysService,
  startConnectorRegistryService,
  waitFor,
  type RunningAccessKeys,
  type RunningRegistry,
  type TestOrganization,
} from '@patchbay/testing';
import type Redis from 'ioredis';
import { CREDENTIAL_EXPIRY_MARGIN_MS, RegistryClient } from '../src/domain/registry-client';

/** Long enough that only an invalidation, never the TTL, can refresh an entry during a test. */
const LONG_TTL_MS = 60 * 60_000;
/** How long the fake provider's OAuth access tokens live. */
const TOKEN_LIFETIME_S = 600;

let accessKeys: RunningAccessKeys;
let registry: RunningRegistry;
let provider: FakeServer;
let verifier: KeyVerifier;
let subscriber: Redis;
let client: RegistryClient;
const clock = new ManualClock();
/** Paths of every request the client sent to the registry, in order. */
const sent: string[] = [];

beforeAll(async () => {
  // The OAuth provider the registry exchanges authorization codes with (only its token endpoint is reached).
  provider = await startFakeServer({
    routes: new FakeRoutes().route('POST', '/token', () => ({
      body: { access_token: `xoxp-${Math.random().toString(36).slice(2)}`, refresh_token: 'xoxe-refresh', token_type: 'bearer', expires_in: TOKEN_LIFETIME_S },
    })),
  });
  accessKeys = await startAccessKeysService();
  registry = await startConnectorRegistryService({
    registryDir: path.dirname(require.resolve('@patchbay/connector-registry/package.json')),
    accessKeysUrl: accessKeys.url,
    env: { PATCHBAY_OAUTH_OVERRIDES: JSON.stringify({ slack: { authorize_url: `${provider.url}/authorize`, token_url: `${provider.url}/token` } }) },
  });
  verifier = new KeyVerifier({ loader: httpKeyLoader({ baseUrl: accessKeys.url, serviceToken: TEST_SERVICE_TOKEN }) });
  client = new RegistryClient({
    baseUrl: registry.url,
    serviceToken: TEST_SERVICE_TOKEN,
    cacheTtlMs: LONG_TTL_MS,
    credentialTtlMs: LONG_TTL_MS,
    now: clock.now,
    fetch: (input, init) => {
      sent.push(new URL(input instanceof Request ? input.url : input).pathname);
      return fetch(input, init);
    },
  });
  subscriber = createRedisSubscriber(TEST_REDIS_URL);
  await client.subscribe(subscriber);
}, 90_000);

afterAll(async () => {
  await client?.close();
  subscriber?.disconnect();
  await verifier?.close();
  await registry?.stop();
  await accessKeys?.stop();
  await provider?.close();
});

const TOOLS_PATH = '/internal/v1/tool-packs/resolve';
const CREDENTIAL_PATH = '/internal/v1/credentials/resolve';
/** How many requests the client has sent to one registry route so far. */
const asked = (route: string): number => sent.filter((p) => p === route).length;

async function api(key: string, method: string, pathname: string, body?: unknown): Promise<any> {
  const res = await fetch(`${registry.url}${pathname}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

interface Scenario {
  org: TestOrganization;
  principal: KeyPrincipal;
  userId: string;
  packId: string;
  githubId: string;
}

/** An organization with a registered user, a tool pack showing GitHub's list_issues, and the user's GitHub token stored through the magic-link form. */
async function scenario(): Promise<Scenario> {
  const org = await accessKeys.createOrganization();
  const key = org.master_key;
  const user = await api(key, 'POST', '/api/v1/registered-users', { origin_user_id: `u-${Math.random().toString(36).slice(2)}`, origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } });
  const connectors = await api(key, 'GET', '/api/v1/connectors/?search=github');
  const githubId = connectors.results[0].id as string;
  const pack = await api(key, 'POST', '/api/v1/tool-packs/', { name: 'Triage', description: '', connectors: [{ connector_id: githubId, auth_scope: 'INDIVIDUAL', tool_names: ['list_issues'] }] });
  const link = await api(key, 'POST', `/api/v1/registered-users/${user.id}/link-token/`, { connector: 'github' });
  const form = await fetch(`${registry.url}/link/${link.link_token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: GITHUB_FAKE_TOKENS.valid }), redirect: 'manual' });
  if (form.status >= 400) throw new Error(`connecting GitHub failed: ${form.status} ${await form.text()}`);
  return { org, principal: await verifier.verify(key), userId: user.id, packId: pack.id, githubId };
}

const toolNames = async (s: Scenario, packId = s.packId): Promise<string[]> => ((await client.packTools(s.principal, packId, s.userId))?.tools ?? []).map((t) => t.name).sort();
const githubCredential = (s: Scenario) => client.credential(s.principal, s.packId, s.userId, 'github');

describe('RegistryClient caches invalidated over Redis pub/sub', () => {
  it('serves a cached tool list until the tool pack is changed through the registry API, then the new one', async () => {
    const s = await scenario();
    expect(await toolNames(s)).toEqual(['list_issues']);
    const before = asked(TOOLS_PATH);
    expect(await toolNames(s)).toEqual(['list_issues']);
    expect(asked(TOOLS_PATH)).toBe(before);

    await api(s.org.master_key, 'PATCH', `/api/v1/tool-packs/${s.packId}`, { connectors: [{ connector_id: s.githubId, auth_scope: 'INDIVIDUAL', tool_names: ['list_issues', 'get_issue'] }] });
    await waitFor(async () => (await toolNames(s)).length === 2, 10_000, 'the cached tool list to follow the PATCH');
    expect(await toolNames(s)).toEqual(['get_issue', 'list_issues']);
  });

  it('stops serving a cached credential once it is deleted through the registry API, and forgets one the provider rejected', async () => {
    const s = await scenario();
    const first = await githubCredential(s);
    expect(first).toMatchObject({ ok: true, credential: { auth_type: 'bearer_token' } });
    const before = asked(CREDENTIAL_PATH);
    expect(await githubCredential(s)).toEqual(first);
    expect(asked(CREDENTIAL_PATH)).toBe(before);

    // A provider 401: the executor forgets it, and the next call asks the registry again.
    client.forgetCredential(s.principal, s.packId, s.userId, 'github');
    expect(await githubCredential(s)).toEqual(first);
    expect(asked(CREDENTIAL_PATH)).toBe(before + 1);

    await api(s.org.master_key, 'DELETE', `/api/v1/credentials/registered-users/${s.userId}/connectors/github`);
    await waitFor(async () => !(await githubCredential(s)).ok, 10_000, 'the deleted credential to stop being served');
    expect(await githubCredential(s)).toMatchObject({ ok: false, code: 'credential_missing' });
  });

  it('keeps an organization\'s entries when another organization (or its other environment) changes, however broadly', async () => {
    const mine = await scenario();
    const other = await scenario();
    // A second pack of mine: a change to it, sent last, shows when every earlier message has been handled.
    const marker = await api(mine.org.master_key, 'POST', '/api/v1/tool-packs/', { name: 'Marker', description: '', connectors: [{ connector_id: mine.githubId, tool_names: ['list_issues'] }] });
    expect(await toolNames(mine)).toEqual(['list_issues']);
    expect(await toolNames(mine, marker.id)).toEqual(['list_issues']);
    expect((await githubCredential(mine)).ok).toBe(true);
    const tools = asked(TOOLS_PATH);
    const credentials = asked(CREDENTIAL_PATH);

    // Through the other organization's API, including a SHARED GitHub credential (announced for every user there).
    const otherKey = other.org.master_key;
    await api(otherKey, 'PATCH', `/api/v1/tool-packs/${other.packId}`, { connectors: [{ connector_id: other.githubId, tool_names: ['get_issue'] }] });
    const shared = await api(otherKey, 'POST', `/api/v1/registered-users/${other.userId}/link-token/`, { connector: 'github', auth_scope: 'SHARED' });
    await fetch(`${registry.url}/link/${shared.link_token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: GITHUB_FAKE_TOKENS.valid }) });
    await api(otherKey, 'DELETE', `/api/v1/registered-users/${other.userId}`);
    // And the broadest messages there are, for the other organization and for my test environment.
    const publisher = createRedis(TEST_REDIS_URL);
    try {
      for (const kind of REGISTRY_CHANGE_KINDS) {
        await publishRegistryChange(publisher, { organization_id: other.org.organization_id, environment: 'production', kind });
        await publishRegistryChange(publisher, { organization_id: mine.org.organization_id, environment: 'test', kind });
      }
      // Redis hands messages to a subscriber in the order it took them: once the marker is in, so is everything above.
      await publishRegistryChange(publisher, { organization_id: mine.org.organization_id, environment: 'production', kind: 'tool_packs', tool_pack_id: marker.id });
    } finally {
      publisher.disconnect();
    }
    await waitFor(async () => {
      const before = asked(TOOLS_PATH);
      await toolNames(mine, marker.id);
      return asked(TOOLS_PATH) > before;
    }, 10_000, 'the marker change');

    const afterMarker = asked(TOOLS_PATH);
    expect(await toolNames(mine)).toEqual(['list_issues']);
    expect((await githubCredential(mine)).ok).toBe(true);
    expect(asked(TOOLS_PATH)).toBe(afterMarker);
    expect(asked(TOOLS_PATH) - tools).toBeGreaterThan(0);
    expect(asked(CREDENTIAL_PATH)).toBe(credentials);
  });

  it('asks the registry every time while the subscription is down, and caches again once it is back', async () => {
    const s = await scenario();
    expect(await toolNames(s)).toEqual(['list_issues']);
    const cached = asked(TOOLS_PATH);
    await toolNames(s);
    expect(asked(TOOLS_PATH)).toBe(cached);

    subscriber.disconnect();
    await waitFor(() => !client.cacheTrusted, 10_000, 'the subscription to be seen down');
    // Announced while no one listens: the message is lost, yet the change shows at once.
    await api(s.org.master_key, 'PATCH', `/api/v1/tool-packs/${s.packId}`, { connectors: [{ connector_id: s.githubId, tool_names: ['list_issues', 'get_issue'] }] });
    expect(await toolNames(s)).toEqual(['get_issue', 'list_issues']);
    expect((await githubCredential(s)).ok).toBe(true);
    const down = { tools: asked(TOOLS_PATH), credentials: asked(CREDENTIAL_PATH) };
    expect(await toolNames(s)).toEqual(['get_issue', 'list_issues']);
    expect((await githubCredential(s)).ok).toBe(true);
    expect([asked(TOOLS_PATH), asked(CREDENTIAL_PATH)]).toEqual([down.tools + 1, down.credentials + 1]);

    await subscriber.connect();
    await waitFor(() => client.cacheTrusted, 10_000, 'the subscription to be live again');
    await toolNames(s);
    const back = asked(TOOLS_PATH);
    expect(await toolNames(s)).toEqual(['get_issue', 'list_issues']);
    expect(asked(TOOLS_PATH)).toBe(back);
  });

  it('never reuses a credential later than a minute before its access token expires', async () => {
    const s = await scenario();
    const key = s.org.master_key;
    const slack = (await api(key, 'GET', '/api/v1/connectors/?search=slack')).results.find((c: { slug: string }) => c.slug === 'slack');
    await api(key, 'PATCH', `/api/v1/tool-packs/${s.packId}`, { connectors: [{ connector_id: s.githubId, tool_names: ['list_issues'] }, { connector_id: slack.id, auth_scope: 'INDIVIDUAL', tool_names: [] }] });
    await api(key, 'POST', '/api/v1/application-credentials/', { connector: 'slack', client_id: 'client', client_secret: 'secret' });
    // The user signs in with Slack: the registry redirects to the provider, which sends the browser back with a code.
    const link = await api(key, 'POST', `/api/v1/registered-users/${s.userId}/link-token/`, { connector: 'slack' });
    const start = await fetch(`${registry.url}/link/${link.link_token}/oauth/start`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location') ?? '');
    const callback = new URL(authorize.searchParams.get('redirect_uri') ?? '');
    callback.searchParams.set('code', 'the-code');
    callback.searchParams.set('state', authorize.searchParams.get('state') ?? '');
    const connected = await fetch(callback, { redirect: 'manual' });
    expect(connected.status).toBeLessThan(400);

    const slackCredential = () => client.credential(s.principal, s.packId, s.userId, 'slack');
    const first = await slackCredential();
    expect(first).toMatchObject({ ok: true, credential: { auth_type: 'oauth2', access_token: expect.stringMatching(/^xoxp-/) } });
    const asks = asked(CREDENTIAL_PATH);
    // Just short of the token's expiry minus the margin: still served from the cache.
    clock.advance(TOKEN_LIFETIME_S * 1000 - CREDENTIAL_EXPIRY_MARGIN_MS - 5_000);
    expect(await slackCredential()).toEqual(first);
    expect(asked(CREDENTIAL_PATH)).toBe(asks);
    // Past it: asked for on every call, and no longer cached.
    clock.advance(10_000);
    await slackCredential();
    await slackCredential();
    expect(asked(CREDENTIAL_PATH)).toBe(asks + 2);
  });
});
