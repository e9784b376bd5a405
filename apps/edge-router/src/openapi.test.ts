import { mergeOpenApi } from './openapi';
import { RouteTable } from './routes';

describe('mergeOpenApi', () => {
  const routes = new RouteTable();

  it('renames a component that looks identical but refers to a renamed one', () => {
    const merged = mergeOpenApi(
      [
        {
          service: 'access-keys-and-audit',
          document: {
            openapi: '3.0.0',
            paths: { '/api/v1/access-keys/': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Page' } } } } } } } },
            components: { schemas: { Page: { type: 'object', properties: { item: { $ref: '#/components/schemas/Item' } } }, Item: { type: 'string' } } },
          },
        },
        {
          service: 'connector-registry',
          document: {
            openapi: '3.0.0',
            paths: { '/api/v1/connectors/': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Page' } } } } } } } },
            components: { schemas: { Page: { type: 'object', properties: { item: { $ref: '#/components/schemas/Item' } } }, Item: { type: 'integer' } } },
          },
        },
      ],
      [],
      routes,
    );
    const schemas = merged.components.schemas!;
    expect(schemas.Item).toEqual({ type: 'string' });
    expect(schemas.ConnectorRegistryItem).toEqual({ type: 'integer' });
    expect(schemas.ConnectorRegistryPage).toEqual({ type: 'object', properties: { item: { $ref: '#/components/schemas/ConnectorRegistryItem' } } });
    const connectors = merged.paths['/api/v1/connectors/'] as any;
    expect(connectors.get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/ConnectorRegistryPage');
  });

  it('shares an identical component instead of duplicating it', () => {
    const doc = (path: string) => ({
      openapi: '3.1.0',
      paths: { [path]: { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } } } } },
      components: { schemas: { Error: { type: 'object' } }, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    });
    const merged = mergeOpenApi(
      [
        { service: 'model-gateway', document: doc('/v1/models') },
        { service: 'unified-data', document: doc('/api/mktg/v1/events') },
      ],
      [],
      routes,
    );
    expect(Object.keys(merged.components.schemas!)).toEqual(['Error']);
    expect(Object.keys(merged.components.securitySchemes!)).toEqual(['bearer']);
    expect(merged.openapi).toBe('3.1.0');
  });

  it('renames a different security scheme and the requirements that name it', () => {
    const merged = mergeOpenApi(
      [
        { service: 'access-keys-and-audit', document: { paths: { '/api/v1/audit-log/': { get: { security: [{ key: [] }], responses: {} } } }, components: { securitySchemes: { key: { type: 'http', scheme: 'bearer' } } } } },
        { service: 'unified-data', document: { security: [{ key: [] }], paths: { '/api/mktg/v1/events': { get: { responses: {} } } }, components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Account-Token' } } } } },
      ],
      [],
      routes,
    );
    expect(merged.components.securitySchemes).toEqual({ key: { type: 'http', scheme: 'bearer' }, UnifiedDataKey: { type: 'apiKey', in: 'header', name: 'X-Account-Token' } });
    expect((merged.paths['/api/mktg/v1/events'] as any).get.security).toEqual([{ UnifiedDataKey: [] }]);
    expect((merged.paths['/api/v1/audit-log/'] as any).get.security).toEqual([{ key: [] }]);
  });

  it('drops internal paths even when percent-encoded', () => {
    const merged = mergeOpenApi([{ service: 'access-keys-and-audit', document: { paths: { '/%69nternal/v1/x': { get: {} }, '/internal/v1/verify': { post: {} }, '/api/v1/access-keys/': { get: {} } } } }], [], routes);
    expect(Object.keys(merged.paths)).toEqual(['/api/v1/access-keys/']);
  });
});
