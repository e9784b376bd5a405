import { rpc, scenario, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 90_000);
afterAll(async () => {
  await h.close();
});

const call = (id: number, input: Record<string, unknown> = { owner: 'octo-org', repo: 'hello', issue_number: 1 }) => ({ id, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input } } });
const list = { id: 99, jsonrpc: '2.0', method: 'tools/list' };

describe('credits', () => {
  it('a free-plan organization over its monthly allotment gets 402 billing_limit_reached on tools/call, while tools/list keeps working', async () => {
    const s = await scenario(h, { plan: 'free', credits: 2 });
    expect((await rpc(s.mcpUrl, s.org.master_key, call(1))).status).toBe(200);
    expect((await rpc(s.mcpUrl, s.org.master_key, call(2))).status).toBe(200);
    const refused = await rpc(s.mcpUrl, s.org.master_key, call(3));
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('billing_limit_reached');
    expect(refused.body.detail).toContain('next billing cycle');
    expect((await rpc(s.mcpUrl, s.org.master_key, list)).status).toBe(200);
    const management = await fetch(`${h.registry.url}/api/v1/tool-packs/`, { headers: { authorization: `Bearer ${s.org.master_key}` } });
    expect(management.status).toBe(200);
  });

  it('every tools/call costs one credit, whether it succeeds or fails; tools/list costs nothing', async () => {
    const s = await scenario(h, { plan: 'free', credits: 2 });
    for (let i = 0; i < 5; i += 1) expect((await rpc(s.mcpUrl, s.org.master_key, list)).status).toBe(200);
    const failing = await rpc(s.mcpUrl, s.org.master_key, call(1, { owner: 'octo-org' }));
    expect(failing.body.result.isError).toBe(true);
    const providerError = await rpc(s.mcpUrl, s.org.master_key, call(2, { owner: 'octo-org', repo: 'missing', issue_number: 1 }));
    expect(providerError.body.result.isError).toBe(true);
    expect((await rpc(s.mcpUrl, s.org.master_key, call(3))).status).toBe(402);
  });

  it('test keys count like production: one allotment for both environments', async () => {
    const prod = await scenario(h, { plan: 'free', credits: 2 });
    const sandbox = await scenario(h, { org: prod.org, environment: 'test' });
    expect((await rpc(sandbox.mcpUrl, prod.org.test_key, call(1))).status).toBe(200);
    expect((await rpc(prod.mcpUrl, prod.org.master_key, call(2))).status).toBe(200);
    expect((await rpc(sandbox.mcpUrl, prod.org.test_key, call(3))).status).toBe(402);
    expect((await rpc(prod.mcpUrl, prod.org.master_key, call(4))).status).toBe(402);
  });

  it('a paid organization goes into overage instead of being refused', async () => {
    const s = await scenario(h, { plan: 'paid', credits: 1 });
    for (let i = 0; i < 3; i += 1) expect((await rpc(s.mcpUrl, s.org.master_key, call(i))).status).toBe(200);
  });
});

describe('rate limit', () => {
  it('over the per-user per-minute limit tools/call gets 429 with Retry-After and the rate-limit headers', async () => {
    const s = await scenario(h, { plan: 'paid' });
    await h.accessKeys.updateOrganization(s.org.organization_id, ['--mcp-rate-limit', '2']);
    // The CLI's change reaches the runtime over pub/sub; the first call after it reads the new limit.
    let first = await rpc(s.mcpUrl, s.org.master_key, call(1));
    const deadline = Date.now() + 5000;
    while (first.status === 200 && Date.now() < deadline) {
      const res = await fetch(s.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${s.org.master_key}`, 'content-type': 'application/json' }, body: JSON.stringify(call(2)) });
      if (res.status === 429) {
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(res.headers.get('ratelimit-limit')).toBe('2');
        expect(res.headers.get('ratelimit-remaining')).toBe('0');
        expect(((await res.json()) as { code: string }).code).toBe('rate_limited');
        return;
      }
      first = { status: res.status, body: await res.json() };
    }
    throw new Error('never rate limited');
  });

  it('tools/list is not rate limited', async () => {
    const s = await scenario(h, { plan: 'paid' });
    await h.accessKeys.updateOrganization(s.org.organization_id, ['--mcp-rate-limit', '1']);
    for (let i = 0; i < 5; i += 1) expect((await rpc(s.mcpUrl, s.org.master_key, list)).status).toBe(200);
  });
});
