import { request, rpc, scenario, startHarness, type Harness } from './harness';

// The shared request checks of service-kit, as this service answers them (issue: no 5xx for any input).
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 90_000);
afterAll(async () => {
  await h.close();
});

describe('request text', () => {
  it('an MCP request nested 5,000 levels deep is a 400 with the error envelope, not a stack overflow', async () => {
    const s = await scenario(h, { connect: false });
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const res = await rpc(s.mcpUrl, s.org.master_key, null, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"github__get_issue","arguments":{"input":${deep}}}}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: 'The request is invalid. body: must not nest arrays and objects more than 128 levels deep',
      code: 'validation_error',
      errors: [{ field: 'body', message: 'must not nest arrays and objects more than 128 levels deep' }],
    });
  });

  it('a NUL byte in a tool-call-records filter is a 400 naming the parameter', async () => {
    const s = await scenario(h, { connect: false });
    const res = await request(h.url, s.org.master_key, 'GET', '/api/v1/tool-call-records/?tool_name=%00');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'query.tool_name', message: 'must not contain a NUL character (U+0000)' }]);
  });

  it('a lone surrogate in a security rule is a 400 naming the field', async () => {
    const s = await scenario(h, { connect: false });
    const res = await fetch(`${h.url}/api/v1/security-rules/`, { method: 'POST', headers: { authorization: `Bearer ${s.org.master_key}`, 'content-type': 'application/json' }, body: '{"name":"\\udc00x","detector":"EMAIL_ADDRESS","direction":"inbound","action":"block"}' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Array<{ field: string }> }).errors[0]!.field).toBe('body.name');
  });
});
