import type { ServerResponse } from 'node:http';
import { FakeService, type RunningEdge, closedPort, send, startEdge } from './harness';

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const accessKeysSpec = {
  openapi: '3.0.0',
  info: { title: 'access-keys-and-audit', version: '0.1.0' },
  servers: [{ url: 'http://127.0.0.1:8081' }],
  security: [{ bearer: [] }],
  tags: [{ name: 'Access keys' }, { name: 'Audit log' }],
  paths: {
    '/api/v1/access-keys/': {
      get: { operationId: 'listAccessKeys', tags: ['Access keys'], responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/AccessKeyList' } } } } } },
    },
    '/api/v1/audit-log/': { get: { operationId: 'listAuditLog', tags: ['Audit log'], security: [], responses: { '200': { description: 'ok' } } } },
    '/internal/v1/verify': { post: { operationId: 'verifyKey', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/VerifyResult' } } } } } } },
    '/healthz': { get: { responses: { '200': { description: 'ok' } } } },
  },
  components: {
    schemas: {
      AccessKeyList: { type: 'object', properties: { results: { type: 'array', items: { $ref: '#/components/schemas/AccessKey' } }, error: { $ref: '#/components/schemas/Error' } } },
      AccessKey: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } },
      Error: { type: 'object', properties: { detail: { type: 'string' }, code: { type: 'string' } } },
      VerifyResult: { type: 'object', properties: { organization_id: { type: 'string' } } },
    },
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  },
};

const registrySpec = {
  openapi: '3.0.0',
  info: { title: 'connector-registry', version: '0.1.0' },
  tags: [{ name: 'Connectors' }, { name: 'Access keys', description: 'a duplicate tag name' }],
  paths: {
    '/api/v1/connectors/': {
      get: { tags: ['Connectors'], servers: [{ url: 'http://10.0.0.5:8082' }], responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Connector' } } } }, '400': { description: 'bad', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } } },
    },
    '/internal/v1/tool-packs/{id}/tools': { get: { responses: { '200': { description: 'ok' } } } },
    // A path the edge routes elsewhere is not this service's to publish.
    '/api/v1/access-keys/': { get: { operationId: 'impostor', responses: { '200': { description: 'ok' } } } },
  },
  components: {
    schemas: {
      // Same name, different content as the access-keys service's Error: renamed, not overwritten.
      Error: { type: 'object', properties: { message: { type: 'string' } } },
      Connector: { type: 'object', properties: { slug: { type: 'string' }, error: { $ref: '#/components/schemas/Error' } } },
    },
  },
};

describe('GET /healthz, /openapi.json and /docs', () => {
  const accessKeys = new FakeService('access-keys-and-audit');
  const registry = new FakeService('connector-registry');
  let downPort: number;
  let edge: RunningEdge;
  let degradedEdge: RunningEdge;

  beforeAll(async () => {
    await Promise.all([accessKeys.start(), registry.start()]);
    downPort = await closedPort();
    edge = await startEdge({ ACCESS_KEYS_URL: accessKeys.url, CONNECTOR_REGISTRY_URL: registry.url, EDGE_OPENAPI_CACHE_MS: '0' });
    degradedEdge = await startEdge({ ACCESS_KEYS_URL: accessKeys.url, CONNECTOR_REGISTRY_URL: registry.url, MCP_RUNTIME_URL: `http://127.0.0.1:${downPort}`, EDGE_OPENAPI_CACHE_MS: '0' });
  });

  afterAll(async () => {
    await Promise.all([edge.stop(), degradedEdge.stop()]);
    await Promise.all([accessKeys.stop(), registry.stop()]);
  });

  beforeEach(() => {
    for (const service of [accessKeys, registry]) {
      service.reset();
      service.on('/healthz', (_req, res) => json(res, 200, { status: 'ok' }));
    }
    accessKeys.on('/openapi.json', (_req, res) => json(res, 200, accessKeysSpec));
    registry.on('/openapi.json', (_req, res) => json(res, 200, registrySpec));
  });

  describe('/healthz', () => {
    it('is 200 ok when every deployed service is ok, listing the others as not deployed', async () => {
      const res = await send(edge.port, '/healthz', { headers: { 'x-request-id': 'health-1' } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({
        status: 'ok',
        services: {
          'access-keys-and-audit': { status: 'ok' },
          'connector-registry': { status: 'ok' },
          'mcp-runtime': { status: 'not_deployed' },
          'model-gateway': { status: 'not_deployed' },
          'unified-data': { status: 'not_deployed' },
          console: { status: 'not_deployed' },
        },
      });
      expect(res.headers['x-request-id']).toBe('health-1');
      expect(accessKeys.requests.map((r) => r.url)).toEqual(['/healthz']);
    });

    it('is 503 degraded when a deployed service is down', async () => {
      const res = await send(degradedEdge.port, '/healthz');
      expect(res.status).toBe(503);
      expect(res.json().status).toBe('degraded');
      expect(res.json().services['mcp-runtime']).toMatchObject({ status: 'unavailable' });
      expect(res.json().services['access-keys-and-audit']).toEqual({ status: 'ok' });
    });

    it('is 503 degraded when a deployed service reports itself unhealthy', async () => {
      registry.on('/healthz', (_req, res) => json(res, 503, { status: 'unavailable' }));
      const res = await send(edge.port, '/healthz');
      expect(res.status).toBe(503);
      expect(res.json().services['connector-registry']).toMatchObject({ status: 'unavailable' });
    });
  });

  describe('/openapi.json', () => {
    it('merges the deployed services’ documents under one title and version', async () => {
      const res = await send(edge.port, '/openapi.json', { headers: { host: 'api.patchbay.test:8080' } });
      expect(res.status).toBe(200);
      const doc = res.json();
      expect(doc.info).toMatchObject({ title: 'Patchbay API', version: '1.0.0' });
      expect(doc.openapi).toMatch(/^3\./);
      expect(doc.servers).toEqual([{ url: 'http://api.patchbay.test:8080' }]);
      expect(Object.keys(doc.paths).sort()).toEqual(['/api/v1/access-keys/', '/api/v1/audit-log/', '/api/v1/connectors/']);
      expect(doc.paths['/api/v1/access-keys/'].get.operationId).toBe('listAccessKeys');
      expect(doc.tags.map((t: { name: string }) => t.name)).toEqual(['Access keys', 'Audit log', 'Connectors']);
      expect(doc.components.securitySchemes).toEqual({ bearer: { type: 'http', scheme: 'bearer' } });
      expect(doc['x-patchbay-unavailable']).toEqual([]);
    });

    it('never lists internal paths, nor the schemas only they use', async () => {
      const res = await send(edge.port, '/openapi.json');
      const text = res.text;
      expect(text).not.toContain('/internal');
      expect(res.json().components.schemas.VerifyResult).toBeUndefined();
      expect(res.json().paths['/healthz']).toBeUndefined();
    });

    it('keeps both of two different schemas with the same name, each reference pointing at its own', async () => {
      const doc = (await send(edge.port, '/openapi.json')).json();
      expect(doc.components.schemas.Error).toEqual(accessKeysSpec.components.schemas.Error);
      expect(doc.components.schemas.ConnectorRegistryError).toEqual(registrySpec.components.schemas.Error);
      expect(doc.components.schemas.Connector.properties.error.$ref).toBe('#/components/schemas/ConnectorRegistryError');
      expect(doc.paths['/api/v1/connectors/'].get.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/ConnectorRegistryError');
      expect(doc.components.schemas.AccessKeyList.properties.error.$ref).toBe('#/components/schemas/Error');
    });

    it('carries a service’s default security onto its operations and drops private server addresses', async () => {
      const doc = (await send(edge.port, '/openapi.json')).json();
      expect(doc.paths['/api/v1/access-keys/'].get.security).toEqual([{ bearer: [] }]);
      expect(doc.paths['/api/v1/audit-log/'].get.security).toEqual([]);
      expect(doc.paths['/api/v1/connectors/'].get.servers).toBeUndefined();
      expect(JSON.stringify(doc)).not.toContain('10.0.0.5');
    });

    it('builds servers from the public address a trusted balancer reports', async () => {
      const trusted = await startEdge({ ACCESS_KEYS_URL: accessKeys.url, EDGE_TRUST_FORWARDED: 'true' });
      try {
        const doc = (await send(trusted.port, '/openapi.json', { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.patchbay.dev' } })).json();
        expect(doc.servers).toEqual([{ url: 'https://api.patchbay.dev' }]);
      } finally {
        await trusted.stop();
      }
    });

    it('skips a service that is down and names it in x-patchbay-unavailable', async () => {
      const res = await send(degradedEdge.port, '/openapi.json');
      expect(res.status).toBe(200);
      expect(res.json()['x-patchbay-unavailable']).toEqual(['mcp-runtime']);
      expect(Object.keys(res.json().paths)).toContain('/api/v1/connectors/');
    });

    it('reuses the merged document for a few seconds', async () => {
      const cached = await startEdge({ ACCESS_KEYS_URL: accessKeys.url, EDGE_OPENAPI_CACHE_MS: '60000' });
      try {
        await send(cached.port, '/openapi.json');
        await send(cached.port, '/openapi.json');
        expect(accessKeys.requests.filter((r) => r.url === '/openapi.json')).toHaveLength(1);
      } finally {
        await cached.stop();
      }
    });
  });

  describe('/docs', () => {
    it('serves an HTML page that renders /openapi.json with locally served Swagger UI', async () => {
      const res = await send(edge.port, '/docs');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('<div id="swagger-ui">');
      const sources = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(sources.length).toBeGreaterThanOrEqual(3);
      for (const source of sources) expect(source.startsWith('/docs/assets/')).toBe(true);
      expect(res.text).not.toMatch(/https?:\/\//);
    });

    it('serves every asset the page refers to', async () => {
      const page = await send(edge.port, '/docs/');
      const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      for (const source of sources) {
        const asset = await send(edge.port, source);
        expect(asset.status).toBe(200);
        expect(Number(asset.headers['content-length'])).toBeGreaterThan(0);
      }
      const bundle = await send(edge.port, '/docs/assets/swagger-ui-bundle.js');
      expect(bundle.headers['content-type']).toMatch(/^text\/javascript/);
      expect(bundle.text).toContain('SwaggerUIBundle');
      const init = await send(edge.port, '/docs/assets/docs-init.js');
      expect(init.text).toContain("url: '/openapi.json'");
      const css = await send(edge.port, '/docs/assets/swagger-ui.css');
      expect(css.headers['content-type']).toMatch(/^text\/css/);
    });

    it('answers 404 for any other file name, never reading outside the asset list', async () => {
      for (const path of ['/docs/assets/package.json', '/docs/assets/index.html', '/docs/assets/..%2Fpackage.json', '/docs/assets/../../package.json', '/docs/assets/']) {
        const res = await send(edge.port, path);
        expect(res.status).toBe(404);
        expect(res.json().code).toBe('not_found');
      }
    });
  });
});
