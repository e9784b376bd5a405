import { scenario, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 90_000);
afterAll(async () => {
  await h.close();
});

async function search(url: string, key: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url.replace(/\/mcp$/, '/search'), { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('tool search', () => {
  it('returns tools, total_results and intent; each tool with the spec\'s fields', async () => {
    const s = await scenario(h);
    const res = await search(s.mcpUrl, s.org.master_key, { intent: 'open a new bug report in our repo' });
    expect(res.status).toBe(200);
    expect(res.body.intent).toBe('open a new bug report in our repo');
    expect(res.body.total_results).toBeGreaterThan(0);
    const top = res.body.tools[0];
    expect(Object.keys(top).sort()).toEqual(['description', 'fully_qualified_name', 'human_name', 'input_schema', 'name', 'reasoning', 'relevance_score']);
    expect(top.fully_qualified_name).toBe('github__create_issue');
    expect(top.relevance_score).toBeGreaterThan(0);
    expect(top.relevance_score).toBeLessThanOrEqual(1);
    expect(top.reasoning.length).toBeGreaterThan(10);
  });

  it('only returns tools this pack shows this user', async () => {
    const s = await scenario(h);
    const res = await search(s.mcpUrl, s.org.master_key, { intent: 'send an email to my manager', max_results: 50 });
    for (const tool of res.body.tools) expect(['github__list_issues', 'github__get_issue', 'github__create_issue']).toContain(tool.fully_qualified_name);
  });

  it('honours max_results (default 10) and the connector_slugs filter', async () => {
    const s = await scenario(h);
    const one = await search(s.mcpUrl, s.org.master_key, { intent: 'issues', max_results: 1 });
    expect(one.body.tools).toHaveLength(1);
    const filtered = await search(s.mcpUrl, s.org.master_key, { intent: 'issues', connector_slugs: ['slack'] });
    expect(filtered.body.tools).toEqual([]);
  });

  it('rejects a missing or too long intent and max_results outside 1 to 50 with a 400 naming the field', async () => {
    const s = await scenario(h);
    expect((await search(s.mcpUrl, s.org.master_key, {})).body.errors[0].field).toBe('body.intent');
    expect((await search(s.mcpUrl, s.org.master_key, { intent: 'x'.repeat(501) })).body.errors[0].field).toBe('body.intent');
    expect((await search(s.mcpUrl, s.org.master_key, { intent: 'x'.repeat(500) })).status).toBe(200);
    for (const max of [0, 51]) {
      const res = await search(s.mcpUrl, s.org.master_key, { intent: 'issues', max_results: max });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe('body.max_results');
    }
  });

  it('a pair outside the key\'s scope is 404 Resource not in API key scope.', async () => {
    const s = await scenario(h);
    const other = await scenario(h);
    const res = await search(other.mcpUrl, s.org.master_key, { intent: 'issues' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_in_scope');
  });
});

describe('OpenAPI', () => {
  it('documents the MCP endpoint, its list-only variant, search and the management routes', async () => {
    const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: unknown }>> };
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/v1/security-rules',
      '/api/v1/security-rules/test',
      '/api/v1/security-rules/{rule_id}',
      '/api/v1/tool-call-records',
      '/api/v1/tool-call-records/{record_id}',
      '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/mcp',
      '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/search',
      '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/tools/list',
      '/api/v1/tool-packs/{tool_pack_id}/security-rules',
      '/api/v1/tool-packs/{tool_pack_id}/security-rules/{rule_id}/override',
      '/api/v1/usage',
      '/api/v1/usage/daily',
    ]);
    // The agent-facing routes need runtime:all, the management routes management:all; a member's console
    // session is the other way in, each route naming the permission it needs (the playground's tools/call
    // runs tools with a user's credentials, so it needs manage_tool_packs).
    const security = (path: string) => doc.paths[path]!.post!.security;
    const mcp = security('/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/mcp');
    expect(mcp).toHaveLength(2);
    expect(mcp).toEqual(expect.arrayContaining([{ access_key: ['runtime:all'] }, { session: ['manage_tool_packs'] }]));
    const rules = security('/api/v1/security-rules');
    expect(rules).toHaveLength(2);
    expect(rules).toEqual(expect.arrayContaining([{ access_key: ['management:all'] }, { session: ['manage_security_rules'] }]));
    // The rule tester only reads: viewing the rules is enough.
    expect(security('/api/v1/security-rules/test')).toEqual(expect.arrayContaining([{ access_key: ['management:all'] }, { session: ['view_security_rules'] }]));
  });
});
