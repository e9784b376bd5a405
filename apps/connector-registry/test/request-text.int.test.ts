import { builtinConnectorId } from '../src/domain/ids';
import { bearer, request, startHarness, type Harness } from './harness';

// The shared request checks of service-kit, as this service answers them (issue: no 5xx for any input).
let h: Harness;
let key: string;
beforeAll(async () => {
  h = await startHarness();
  key = (await h.newOrganization()).master_key;
}, 60_000);
afterAll(async () => {
  await h.close();
});

const NUL_MESSAGE = 'must not contain a NUL character (U+0000)';
const SURROGATE_MESSAGE = 'must be well-formed Unicode: a lone surrogate such as \\ud800 is not allowed';

describe('request text', () => {
  it.each([
    ['/api/v1/registered-users/?origin_user_id=%00', 'query.origin_user_id'],
    ['/api/v1/connectors/?search=%00', 'query.search'],
    ['/api/v1/application-credentials/?external_id=a%00', 'query.external_id'],
  ])('GET %s is a 400 naming %s', async (path, field) => {
    const res = await request(h.app).get(path).set(bearer(key));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field, message: NUL_MESSAGE }]);
  });

  it('POST /tool-packs/ with a NUL in name is a 400 naming body.name, and no pack is created', async () => {
    const res = await request(h.app).post('/api/v1/tool-packs/').set(bearer(key)).send({ name: 'a\u0000b', description: '', connectors: [{ connector_id: builtinConnectorId('github'), auth_scope: 'INDIVIDUAL', tool_names: [] }] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'body.name', message: NUL_MESSAGE }]);
    expect((await request(h.app).get('/api/v1/tool-packs/').set(bearer(key))).body.count).toBe(0);
  });

  it('a lone surrogate in external_id of application credentials is a 400 naming the field, not stored as U+FFFD', async () => {
    const res = await request(h.app).post('/api/v1/application-credentials/').set(bearer(key)).set('Content-Type', 'application/json').send('{"connector":"github","client_id":"x","external_id":"\\ud800"}');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'body.external_id', message: SURROGATE_MESSAGE }]);
    expect((await request(h.app).get('/api/v1/application-credentials/').set(bearer(key))).body.count).toBe(0);
  });

  it('JSON nested 5,000 levels deep is a 400, not a stack overflow', async () => {
    const res = await request(h.app).post('/api/v1/tool-packs/').set(bearer(key)).set('Content-Type', 'application/json').send(`{"name":"x","connectors":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'body', message: 'must not nest arrays and objects more than 128 levels deep' }]);
  });

  it.each(['0x10', '', '1e1'])('page_size=%j is a 400: only integers from 1', async (size) => {
    const res = await request(h.app).get(`/api/v1/registered-users/?page_size=${size}`).set(bearer(key));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('query.page_size');
  });
});
