import request from 'supertest';
import { bearer, newOrganization, startHarness, type Harness } from './harness';

// The shared request checks of service-kit, as this service answers them (issue: no 5xx for any input).
let h: Harness;
let key: string;
beforeAll(async () => {
  h = await startHarness();
  key = (await newOrganization(h.db)).master_key!;
});
afterAll(async () => {
  await h.close();
});

const NUL_MESSAGE = 'must not contain a NUL character (U+0000)';

describe('request text', () => {
  it('a NUL byte in a query filter is a 400 naming the parameter', async () => {
    const res = await request(h.app).get('/api/v1/audit-log/?event_type=%00').set(bearer(key));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'query.event_type', message: NUL_MESSAGE }]);
  });

  it('a NUL byte in a body string is a 400 naming the field, and nothing is created', async () => {
    const res = await request(h.app).post('/api/v1/access-keys/').set(bearer(key)).send({ name: 'a\u0000b' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'body.name', message: NUL_MESSAGE }]);
    expect(await h.db.accessKey.count({ where: { name: { startsWith: 'a' }, revokedAt: null, createdAt: { gt: new Date(Date.now() - 60_000) } } })).toBe(0);
  });

  it('a lone surrogate is a 400 naming the field', async () => {
    const res = await request(h.app).post('/api/v1/access-keys/').set(bearer(key)).set('Content-Type', 'application/json').send('{"name":"x\\ud800"}');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('body.name');
  });

  it('JSON nested 5,000 levels deep is a 400, not a stack overflow', async () => {
    const res = await request(h.app).post('/api/v1/access-keys/').set(bearer(key)).set('Content-Type', 'application/json').send(`{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(JSON.stringify(res.body)).not.toMatch(/call stack/i);
  });

  it.each(['0x10', '', '1e1'])('page=%j is a 400: only integers from 1', async (page) => {
    const res = await request(h.app).get(`/api/v1/access-keys/?page=${page}`).set(bearer(key));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('query.page');
  });
});
