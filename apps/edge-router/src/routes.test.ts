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
