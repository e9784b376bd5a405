import { randomUUID } from 'node:crypto';
import { BUILTIN_CONNECTORS } from '@patchbay/connector-catalog';
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
  it('search keeps packs whose name contains it, in either case, newest first and paged', async () => {
    const org = await h.newOrganization();
    for (const name of ['Support agent', 'Sales agent', 'Billing']) expect((await create(org.master_key, { name, description: '' })).status).toBe(201);
    const names = async (query: string) => (await request(h.app).get(`/api/v1/tool-packs/?${query}`).set(bearer(org.master_key))).body;
    expect((await names('search=AGENT')).results.map((p: { name: string }) => p.name)).toEqual(['Sales agent', 'Support agent']);
    expect(await names('search=agent&page_size=1&page=2')).toMatchObject({ count: 2, results: [{ name: 'Support agent' }] });
    expect((await names('search=nothing')).count).toBe(0);
  });

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

/** A custom connector as registration leaves it (its discovery is tested in custom-connectors.int.test.ts). */
async function customConnector(organizationId: string): Promise<{ id: string; slug: string }> {
  const id = randomUUID();
  const slug = `internal-${id.slice(0, 8)}`;
  await h.db.customConnector.create({
    data: { id, organizationId, environment: 'production', slug, name: 'Internal tools', description: '', url: `https://mcp.example.com/${id}`, authType: 'none', tools: { create: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object' }, definitionHash: 'x' }] } },
  });
  return { id, slug };
}

interface Entry {
  connector_id: string;
  auth_scope: string;
  tool_names: string[];
}
const entriesOf = (body: { connectors: Entry[] }): Entry[] => body.connectors.map((c) => ({ connector_id: c.connector_id, auth_scope: c.auth_scope, tool_names: c.tool_names }));

describe('tool packs: a connector listed twice, and concurrent updates', () => {
  it('the same connector twice in one request is a 400 naming it, on create and on PATCH, also when the two ids differ only in letter case', async () => {
    const org = await h.newOrganization();
    const custom = await customConnector(org.organization_id);
    const pack = (await create(org.master_key, { name: 'Agent', description: 'd', connectors: [{ connector_id: GITHUB, auth_scope: 'INDIVIDUAL', tool_names: [] }] })).body;
    const lists = [
      // PostgreSQL compares uuids without regard to case, so these name one connector twice.
      [{ connector_id: custom.id, auth_scope: 'INDIVIDUAL', tool_names: [] }, { connector_id: custom.id.toUpperCase(), auth_scope: 'ORGANIZATION', tool_names: ['echo'] }],
      [{ connector_id: GITHUB.toUpperCase(), auth_scope: 'INDIVIDUAL', tool_names: [] }, { connector_id: GITHUB, auth_scope: 'SHARED', tool_names: [] }],
      [{ connector_id: custom.id, auth_scope: 'INDIVIDUAL', tool_names: [] }, { connector_id: GITHUB, auth_scope: 'INDIVIDUAL', tool_names: [] }, { connector_id: custom.id, auth_scope: 'INDIVIDUAL', tool_names: [] }],
    ];
    const expected = [
      { slug: custom.slug, field: 'body.connectors[1].connector_id', first: 'body.connectors[0]' },
      { slug: 'github', field: 'body.connectors[1].connector_id', first: 'body.connectors[0]' },
      { slug: custom.slug, field: 'body.connectors[2].connector_id', first: 'body.connectors[0]' },
    ];
    for (const [i, connectors] of lists.entries()) {
      const want = expected[i] as (typeof expected)[number];
      for (const res of [await create(org.master_key, { name: 'Twice', description: 'd', connectors }), await request(h.app).patch(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key)).send({ connectors })]) {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_error');
        expect(res.body.errors).toEqual([{ field: want.field, message: expect.stringContaining(want.slug) }]);
        expect(res.body.errors[0].message).toContain(want.first);
        expect(res.body.detail).toContain('give each connector once');
      }
    }
    // Nothing was written: the pack keeps its list and no second pack exists.
    expect(entriesOf((await request(h.app).get(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key))).body)).toEqual([{ connector_id: GITHUB, auth_scope: 'INDIVIDUAL', tool_names: [] }]);
    expect((await request(h.app).get('/api/v1/tool-packs/').set(bearer(org.master_key))).body.count).toBe(1);
  });

  it('a connector id in capitals names the same connector, and the pack stores it in its canonical form', async () => {
    const org = await h.newOrganization();
    const custom = await customConnector(org.organization_id);
    const res = await create(org.master_key, { name: 'Caps', description: 'd', connectors: [{ connector_id: GITHUB.toUpperCase(), auth_scope: 'INDIVIDUAL', tool_names: ['get_issue'] }, { connector_id: custom.id.toUpperCase(), auth_scope: 'ORGANIZATION', tool_names: [] }] });
    expect(res.status).toBe(201);
    expect(entriesOf(res.body)).toEqual([{ connector_id: GITHUB, auth_scope: 'INDIVIDUAL', tool_names: ['get_issue'] }, { connector_id: custom.id, auth_scope: 'ORGANIZATION', tool_names: [] }]);
  });

  it('20 concurrent PATCHes of one pack\'s connectors all succeed, and the pack ends with exactly one of the lists sent, whole', async () => {
    const org = await h.newOrganization();
    const custom = await customConnector(org.organization_id);
    const ids = [...BUILTIN_CONNECTORS.map((c) => builtinConnectorId(c.slug)), custom.id];
    const scopes = ['INDIVIDUAL', 'SHARED', 'ORGANIZATION'];
    // Overlapping lists in different orders and lengths, each entry's scope telling the lists apart.
    const lists: Entry[][] = Array.from({ length: 20 }, (_, i) =>
      Array.from({ length: 3 + (i % 5) }, (_, j) => ({ connector_id: ids[(i * 3 + j) % ids.length] as string, auth_scope: scopes[(i + j) % 3] as string, tool_names: [] })),
    );
    const pack = (await create(org.master_key, { name: 'Busy', description: 'd', connectors: lists[0] })).body;
    const answers = await Promise.all(lists.map((connectors) => request(h.app).patch(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key)).send({ connectors })));
    expect(answers.map((r) => r.status)).toEqual(lists.map(() => 200));
    // Each answer shows its own list whole: no other request's rows slipped in between its write and its read.
    for (const [i, res] of answers.entries()) expect(entriesOf(res.body)).toEqual(lists[i]);
    const final = entriesOf((await request(h.app).get(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key))).body);
    expect(lists).toContainEqual(final);
    const rows = await h.db.toolPackConnector.findMany({ where: { toolPackId: pack.id }, orderBy: { position: 'asc' } });
    expect(rows.map((r) => ({ connector_id: r.connectorId, auth_scope: r.authScope, tool_names: r.toolNames }))).toEqual(final);
  }, 60_000);

  it('PATCHes racing a DELETE of their pack answer 200 or 404, never a 500, and the pack is gone', async () => {
    const org = await h.newOrganization();
    const ids = BUILTIN_CONNECTORS.map((c) => builtinConnectorId(c.slug));
    const pack = (await create(org.master_key, { name: 'Doomed', description: 'd', connectors: [{ connector_id: GITHUB, auth_scope: 'INDIVIDUAL', tool_names: [] }] })).body;
    const patch = (i: number) => request(h.app).patch(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key)).send({ connectors: ids.slice(i % 4, (i % 4) + 3).map((connector_id) => ({ connector_id, auth_scope: 'INDIVIDUAL', tool_names: [] })) });
    const answers = await Promise.all([...Array.from({ length: 10 }, (_, i) => patch(i)), request(h.app).delete(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key)), ...Array.from({ length: 10 }, (_, i) => patch(i + 10))]);
    const deleted = answers[10];
    expect(deleted?.status).toBe(204);
    for (const res of answers) expect([200, 204, 404]).toContain(res.status);
    expect((await request(h.app).get(`/api/v1/tool-packs/${pack.id}/`).set(bearer(org.master_key))).status).toBe(404);
    expect(await h.db.toolPackConnector.count({ where: { toolPackId: pack.id } })).toBe(0);
  }, 60_000);
});
