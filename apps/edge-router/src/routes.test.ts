import { RouteTable, ROUTE_TABLE } from './routes';

describe('RouteTable', () => {
  const table = new RouteTable();
  const match = (path: string) => table.match(path.slice(1).split('/'));

  it('sends the MCP endpoints of a tool pack to the runtime and the tool pack itself to the registry', () => {
    expect(match('/api/v1/tool-packs/a/registered-users/b/mcp')).toBe('mcp-runtime');
    expect(match('/api/v1/tool-packs/a/registered-users/b/tools/list')).toBe('mcp-runtime');
    expect(match('/api/v1/tool-packs/a/registered-users/b/tools')).toBe('connector-registry');
    expect(match('/api/v1/tool-packs/a/')).toBe('connector-registry');
  });

  it("sends the security rules, a pack's rule overrides, tool-call records and usage to the runtime", () => {
    expect(match('/api/v1/security-rules/')).toBe('mcp-runtime');
    expect(match('/api/v1/security-rules/r/')).toBe('mcp-runtime');
    expect(match('/api/v1/tool-packs/a/security-rules/')).toBe('mcp-runtime');
    expect(match('/api/v1/tool-packs/a/security-rules/r/override/')).toBe('mcp-runtime');
    expect(match('/api/v1/tool-call-records/')).toBe('mcp-runtime');
    expect(match('/api/v1/tool-call-records/r/')).toBe('mcp-runtime');
    expect(match('/api/v1/usage/')).toBe('mcp-runtime');
    expect(match('/api/v1/tool-packs/a/security-rulesX')).toBe('connector-registry');
    expect(match('/api/v1/tool-packs//security-rules/')).toBe('connector-registry');
    expect(table.matchTemplate('/api/v1/tool-packs/{tool_pack_id}/security-rules/{rule_id}/override/')).toBe('mcp-runtime');
  });

  it('matches on whole segments', () => {
    expect(match('/api/v1/access-keysX')).toBeUndefined();
    expect(match('/v1')).toBe('model-gateway');
    expect(match('/v10/models')).toBeUndefined();
    expect(match('/api/v1/tool-packs//registered-users/b/mcp')).toBe('connector-registry');
  });

  it('reads OpenAPI path templates', () => {
    expect(table.matchTemplate('/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/search')).toBe('mcp-runtime');
    expect(table.matchTemplate('/internal/v1/verify')).toBeUndefined();
  });

  it('refuses a table that would publish an internal route', () => {
    expect(() => new RouteTable([...ROUTE_TABLE, { pattern: '/Internal/v1', service: 'mcp-runtime' }])).toThrow(/never public/);
  });
});
