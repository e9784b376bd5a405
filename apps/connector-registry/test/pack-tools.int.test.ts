import { randomUUID } from 'node:crypto';
import { TEST_SERVICE_TOKEN } from '@patchbay/testing';
import { customConnectorSecretContext } from '../src/domain/custom-connectors';
import { builtinConnectorId } from '../src/domain/ids';
import { bearer, request, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h.close();
});

async function userAndPack(key: string, organizationId: string, environment: 'production' | 'test' = 'production') {
  const user = await request(h.app).post('/api/v1/registered-users').set(bearer(key)).send({ origin_user_id: `u-${randomUUID()}`, origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } });
  // A custom connector as registration leaves it (its discovery is tested in custom-connectors.int.test.ts).
  const customId = randomUUID();
  await h.db.customConnector.create({
    data: {
      id: customId,
      organizationId,
      environment,
      slug: `internal-${customId.slice(0, 8)}`,
      name: 'Internal tools',
      description: '',
      url: `https://mcp.example.com/${customId}`,
      authType: 'secret',
      secretSealed: h.services.box.seal('remote-secret', customConnectorSecretContext(customId)),
      tools: { create: [{ name: 'echo', description: 'Echoes its input back', inputSchema: { type: 'object' }, definitionHash: 'x' }] },
    },
  });
  const pack = await request(h.app).post('/api/v1/tool-packs/').set(bearer(key)).send({
    name: 'Agent',
    description: 'd',
    connectors: [
      { connector_id: builtinConnectorId('github'), auth_scope: 'SHARED', tool_names: ['get_issue', 'list_issues'] },
      { connector_id: customId, auth_scope: 'ORGANIZATION', tool_names: [] },
    ],
  });
  return { userId: user.body.id as string, packId: pack.body.id as string, customId };
}

const resolve = (body: Record<string, unknown>, token: string | null = TEST_SERVICE_TOKEN) => {
  const req = request(h.app).post('/internal/v1/tool-packs/resolve');
  if (token) req.set('X-Service-Token', token);
  return req.send(body);
};

describe('internal: the tools a (tool pack, registered user) pair sees', () => {
  it('lists the pack\'s selected tools as <slug>__<name> with schemas and the pack\'s auth scope, and where custom calls go', async () => {
    const org = await h.newOrganization();
    const { userId, packId, customId } = await userAndPack(org.master_key, org.organization_id);
    const res = await resolve({ organization_id: org.organization_id, environment: 'production', tool_pack_id: packId, registered_user_id: userId });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.tools.map((t: { fully_qualified_name: string }) => t.fully_qualified_name)).toEqual(['github__list_issues', 'github__get_issue', expect.stringMatching(/^internal-[0-9a-f]{8}__echo$/)]);
    expect(res.body.tools[1]).toMatchObject({ connector_kind: 'builtin', auth_scope: 'SHARED', input_schema: { type: 'object', required: ['input'] }, annotations: { readOnlyHint: true } });
    const slug = res.body.tools[2].connector_slug as string;
    expect(res.body.custom_servers[slug]).toEqual({ connector_id: customId, url: `https://mcp.example.com/${customId}`, auth_type: 'secret', secret: 'remote-secret' });
    expect(res.body.registered_user).toMatchObject({ id: userId, origin_company_id: 'acme' });
  });

  it('answers 404 alike for an unknown pack, an unknown user and the other environment', async () => {
    const org = await h.newOrganization();
    const { userId, packId } = await userAndPack(org.master_key, org.organization_id);
    const base = { organization_id: org.organization_id, environment: 'production', tool_pack_id: packId, registered_user_id: userId };
    expect((await resolve({ ...base, tool_pack_id: randomUUID() })).status).toBe(404);
    expect((await resolve({ ...base, registered_user_id: randomUUID() })).status).toBe(404);
    expect((await resolve({ ...base, environment: 'test' })).status).toBe(404);
    const other = await h.newOrganization();
    expect((await resolve({ ...base, organization_id: other.organization_id })).status).toBe(404);
  });

  it('needs the service token and a well-formed body', async () => {
    expect((await resolve({}, null)).status).toBe(401);
    const bad = await resolve({ organization_id: 'x', environment: 'staging' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['body.organization_id', 'body.environment', 'body.tool_pack_id']));
  });
});
