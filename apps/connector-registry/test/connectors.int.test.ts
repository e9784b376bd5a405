import { BUILTIN_CONNECTORS } from '@patchbay/connector-catalog';
import { bearer, request, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h.close();
});

describe('connectors API', () => {
  it('lists built-in connectors to every organization, paginated', async () => {
    const org = await h.newOrganization();
    const res = await request(h.app).get('/api/v1/connectors/?page_size=100').set(bearer(org.master_key));
    expect(res.status).toBe(200);
    expect(res.body.count).toBeGreaterThanOrEqual(BUILTIN_CONNECTORS.length);
    const github = res.body.results.find((c: { slug: string }) => c.slug === 'github');
    expect(github).toMatchObject({ name: 'GitHub', source: 'builtin', logo_url: expect.any(String), categories: expect.any(Array) });
    expect(github.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(github.tools[0]).toEqual({ name: expect.any(String), description: expect.any(String) });
  });

  it('searches case-insensitively over name and slug', async () => {
    const org = await h.newOrganization();
    const byName = await request(h.app).get('/api/v1/connectors/?search=GITHUB').set(bearer(org.master_key));
    expect(byName.body.results.map((c: { slug: string }) => c.slug)).toEqual(['github']);
    const none = await request(h.app).get('/api/v1/connectors/?search=no-such-thing').set(bearer(org.master_key));
    expect(none.body).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  it('detail returns auth_options; auth_mode=runtime returns credential_fields instead', async () => {
    const org = await h.newOrganization();
    const full = await request(h.app).get('/api/v1/connectors/github/').set(bearer(org.master_key));
    expect(full.status).toBe(200);
    expect(full.body.auth_options.map((o: { type: string }) => o.type)).toEqual(['oauth2', 'bearer_token']);
    expect(full.body.credential_fields).toBeUndefined();
    const runtime = await request(h.app).get('/api/v1/connectors/github/?auth_mode=runtime').set(bearer(org.master_key));
    expect(runtime.body.auth_options).toBeUndefined();
    expect(runtime.body.credential_fields).toEqual([expect.objectContaining({ name: 'token', type: 'secret', required: true })]);
  });

  it('include_tool_details=true adds input_schema, output_schema and annotations', async () => {
    const org = await h.newOrganization();
    const plain = await request(h.app).get('/api/v1/connectors/github/').set(bearer(org.master_key));
    expect(plain.body.tools[0].input_schema).toBeUndefined();
    const detailed = await request(h.app).get('/api/v1/connectors/github/?include_tool_details=true').set(bearer(org.master_key));
    const tool = detailed.body.tools.find((t: { name: string }) => t.name === 'get_issue');
    expect(tool.input_schema).toMatchObject({ type: 'object', required: ['input'] });
    expect(tool.output_schema).toMatchObject({ type: 'object' });
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it('answers 404 for an unknown slug and 400 for an unknown auth_mode', async () => {
    const org = await h.newOrganization();
    expect((await request(h.app).get('/api/v1/connectors/nope/').set(bearer(org.master_key))).status).toBe(404);
    const bad = await request(h.app).get('/api/v1/connectors/github/?auth_mode=sideways').set(bearer(org.master_key));
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('query.auth_mode');
  });

  it('needs management:all', async () => {
    const org = await h.newOrganization();
    const runtimeOnly = await h.accessKeys.createKey(org.master_key, { name: 'runtime', scopes: ['runtime:all'] });
    expect((await request(h.app).get('/api/v1/connectors/').set(bearer(runtimeOnly.key))).status).toBe(403);
    expect((await request(h.app).get('/api/v1/connectors/')).status).toBe(401);
  });
});
