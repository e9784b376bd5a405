import { bearer, expectAuditEvent, request, startHarness, type Harness } from './harness';
import { builtinConnectorId } from '../src/domain/ids';

const GITHUB = builtinConnectorId('github');
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h.close();
});

const create = (key: string, body: Record<string, unknown>) => request(h.app).post('/api/v1/tool-packs/').set(bearer(key)).send(body);

describe('tool packs', () => {
  it('create returns 201 with the connector summaries of the spec and only the selected tools', async () => {
    const org = await h.newOrganization();
    const res = await create(org.master_key, { name: 'Support agent', description: 'Triage issues', connectors: [{ connector_id: GITHUB, auth_scope: 'INDIVIDUAL', tool_names: ['get_issue', 'list_issues'] }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.any(String), name: 'Support agent', description: 'Triage issues' });
    expect(res.body.connectors).toEqual([
      {
        connector_id: GITHUB,
        name: 'GitHub',
        slug: 'github',
        source_url: expect.any(String),
        logo_url: expect.any(String),
        categories: expect.any(Array),
        auth_scope: 'INDIVIDUAL',
        tool_names: ['get_issue', 'list_issues'],
        tools: expect.arrayContaining([{ name: 'get_issue', description: expect.any(String) }, { name: 'list_issues', description: expect.any(String) }]),
      },
    ]);
    expect(res.body.connectors[0].tools).toHaveLength(2);
    await expectAuditEvent(h, org.master_key, (e) => e.event_type === 'tool_pack.created' && e.resource_id === res.body.id);
  });

  it('an empty tool_names list exposes every tool of the connector', async () => {
    const org = await h.newOrganization();
    const res = await create(org.master_key, { name: 'All of GitHub', description: '', connectors: [{ connector_id: GITHUB, auth_scope: 'ORGANIZATION', tool_names: [] }] });
    expect(res.status).toBe(201);
    const detail = await request(h.app).get('/api/v1/connectors/github/').set(bearer(org.master_key));
    expect(res.body.connectors[0].tools.map((t: { name: string }) => t.name).sort()).toEqual(detail.body.tools.map((t: { name: string }) => t.name).sort());
  });

  it('unknown tool names are a 400 that lists them, and nothing is written', async () => {
    const org = await h.newOrganization();
    const res = await create(org.master_key, { name: 'Bad', description: 'x', connectors: [{ connector_id: GITHUB, auth_scope: 'INDIVIDUAL', tool_names: ['get_issue', 'launch_rockets', 'fly'] }] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'body.connectors[0].tool_names', message: 'unknown tools of github: launch_rockets, fly' }]);
    const list = await request(h.app).get('/api/v1/tool-packs/').set(bearer(org.master_key));
    expect(list.body.count).toBe(0);
  });

  it('rejects a name over 255 characters, missing fields, unknown connectors and scopes with a 400 naming the field', async () => {
    const org = await h.newOrganization();
    expect((await create(org.master_key, { name: 'x'.repeat(256), description: 'd' })).body.errors[0].field).toBe('body.name');
    expect((await create(org.master_key, { name: 'x'.repeat(255), description: 'd' })).status).toBe(201);
    const missing = await create(org.master_key, { name: 'n' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe('body.description');
    const unknown = await create(org.master_key, { name: 'n', description: 'd', connectors: [{ connector_id: '00000000-0000-4000-8000-000000000000', auth_scope: 'INDIVIDUAL', tool_names: [] }] });
    expect(unknown.body.errors[0].field).toBe('body.connectors[0].connector_id');
    const scope = await create(org.master_key, { name: 'n', description: 'd', connectors: [{ connector_id: GITHUB, auth_scope: 'EVERYONE', tool_names: [] }] });
    expect(scope.body.errors[0].field).toBe('body.connectors[0].auth_scope');
  });

  it('PATCH changes only the fields given; connectors replaces the list', async () => {
    const org = await h.newOrganization();
    const pack = (await create(org.master_key, { name: 'Before', description: 'Keep me', connectors: [{ connector_id: GITHUB, auth_scope: 'INDIVIDUAL', tool_names: ['get_issue'] }] })).body;
    const renamed = await request(h.app).patch(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key)).send({ name: 'After' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'After', description: 'Keep me' });
    expect(renamed.body.connectors[0].tool_names).toEqual(['get_issue']);
    const emptied = await request(h.app).patch(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key)).send({ connectors: [] });
    expect(emptied.body.connectors).toEqual([]);
  });

  it('retrieve and delete one tool pack (delete is 204, then 404)', async () => {
    const org = await h.newOrganization();
    const pack = (await create(org.master_key, { name: 'Temp', description: 'd' })).body;
    expect((await request(h.app).get(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key))).body.name).toBe('Temp');
    expect((await request(h.app).delete(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key))).status).toBe(204);
    expect((await request(h.app).get(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key))).status).toBe(404);
    await expectAuditEvent(h, org.master_key, (e) => e.event_type === 'tool_pack.deleted' && e.resource_id === pack.id);
  });

  it('a tool pack outside the key\'s tool_pack_ids is 404 Resource not in API key scope., and lists show only the key\'s packs', async () => {
    const org = await h.newOrganization();
    const mine = (await create(org.master_key, { name: 'Mine', description: 'd' })).body;
    const other = (await create(org.master_key, { name: 'Other', description: 'd' })).body;
    const restricted = await h.accessKeys.createKey(org.master_key, { name: 'one pack', tool_pack_ids: [mine.id] });
    const res = await request(h.app).get(`/api/v1/tool-packs/${other.id}/`).set(bearer(restricted.key));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Resource not in API key scope.', code: 'not_in_scope' });
    expect((await request(h.app).patch(`/api/v1/tool-packs/${other.id}/`).set(bearer(restricted.key)).send({ name: 'x' })).status).toBe(404);
    expect((await request(h.app).delete(`/api/v1/tool-packs/${other.id}/`).set(bearer(restricted.key))).status).toBe(404);
    const list = await request(h.app).get('/api/v1/tool-packs/').set(bearer(restricted.key));
    expect(list.body.results.map((p: { id: string }) => p.id)).toEqual([mine.id]);
  });

  it('production and test keys never see each other\'s tool packs, nor do other organizations', async () => {
    const org = await h.newOrganization();
    const other = await h.newOrganization();
    const pack = (await create(org.master_key, { name: 'Prod', description: 'd' })).body;
    expect((await request(h.app).get(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.test_key))).status).toBe(404);
    expect((await request(h.app).get(`/api/v1/tool-packs/${pack.id}/`).set(bearer(other.master_key))).status).toBe(404);
    expect((await request(h.app).get('/api/v1/tool-packs/').set(bearer(org.test_key))).body.count).toBe(0);
  });
});
