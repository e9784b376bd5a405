import { generateRequest, rememberIds, type IdPool } from './generate';
import { operationsOf, type OpenApiDocument } from './operations';
import { randomFor } from './random';
import { isErrorEnvelope, judge } from './run';

const doc: OpenApiDocument = {
  paths: {
    '/api/v1/tool-packs/': {
      get: { parameters: [{ in: 'query', name: 'page', schema: { type: 'string' } }] },
      post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Pack' } } } } },
    },
    '/api/v1/tool-packs/{tool_pack_id}/': { parameters: [{ in: 'path', name: 'tool_pack_id', required: true, schema: { type: 'string' } }], delete: {} },
    '/v1/models': { get: {} },
  },
  components: { schemas: { Pack: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, connectors: { type: 'array', items: { type: 'object' } } } } } },
};

describe('the fuzzer', () => {
  it('finds every operation of the merged document, with its path parameters, query and JSON body', () => {
    const ops = operationsOf(doc);
    expect(ops.map((o) => `${o.method} ${o.path}`)).toEqual(['GET /api/v1/tool-packs/', 'POST /api/v1/tool-packs/', 'DELETE /api/v1/tool-packs/{tool_pack_id}/', 'GET /v1/models']);
    expect(ops[0]!.query).toEqual([{ name: 'page', schema: { type: 'string' }, required: false }]);
    expect(ops[1]!.body).toEqual({ $ref: '#/components/schemas/Pack' });
    expect(ops[2]!.pathParams).toEqual(['tool_pack_id']);
  });

  it('is seeded: the same seed and index give the same request, another seed another', () => {
    const [, post] = operationsOf(doc);
    const a = generateRequest(doc, post!, randomFor(7, 42), { key: 'k' }, new Map());
    const b = generateRequest(doc, post!, randomFor(7, 42), { key: 'k' }, new Map());
    expect(b).toEqual(a);
    const others = Array.from({ length: 20 }, (_, i) => generateRequest(doc, post!, randomFor(8, i), { key: 'k' }, new Map()));
    expect(others.some((r) => JSON.stringify(r) !== JSON.stringify(a))).toBe(true);
  });

  it('fills path parameters with ids seen in earlier answers, never with the ids it must not touch', () => {
    const pool: IdPool = new Map();
    rememberIds(pool, '/api/v1/tool-packs/', { results: [{ id: 'a1' }, { id: 'mine' }] }, new Set(['mine']));
    expect(pool.get('tool-packs')).toEqual(['a1']);
    const del = operationsOf(doc)[2]!;
    const paths = Array.from({ length: 200 }, (_, i) => generateRequest(doc, del, randomFor(1, i), { key: 'k' }, pool).path);
    expect(paths).toContain('/api/v1/tool-packs/a1/');
  });

  it('accepts the platform\'s error envelopes and nothing else', () => {
    expect(isErrorEnvelope({ detail: 'x', code: 'not_found' })).toBe(true);
    expect(isErrorEnvelope({ error: { type: 'invalid_request_error', message: 'x' } })).toBe(true);
    expect(isErrorEnvelope({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'x' } })).toBe(true);
    expect(isErrorEnvelope({ detail: { code: 'invalid_date', message: 'x' } })).toBe(true);
    expect(isErrorEnvelope({ message: 'x' })).toBe(false);
    expect(isErrorEnvelope('Bad Request')).toBe(false);
  });

  it('fails any 5xx but a documented upstream error, and any error body that is not an envelope', () => {
    const req = { method: 'GET', path: '/api/v1/x' };
    expect(judge(req, 500, 'application/json', '{"detail":"x","code":"internal_error"}')).toMatch(/server error/);
    expect(judge(req, 503, 'application/json', '{"detail":"x","code":"service_unavailable"}')).toMatch(/server error/);
    expect(judge(req, 502, 'application/json', '{"detail":"unreachable","code":"bad_gateway"}')).toBeNull();
    expect(judge(req, 400, 'text/html', '<h1>Bad</h1>')).toMatch(/without a JSON body/);
    expect(judge(req, 400, undefined, '')).toMatch(/without a JSON body/);
    expect(judge(req, 404, 'application/json', '{"detail":"x","code":"not_found"}')).toBeNull();
    expect(judge({ method: 'HEAD', path: '/x' }, 404, 'application/json', '')).toBeNull();
  });
});
