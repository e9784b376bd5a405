import type { Express } from 'express';
import request from 'supertest';
import { createServiceApp, finishServiceApp } from './http';
import { createLogger } from './logger';
import { MAX_JSON_DEPTH, findTextProblem, jsonDeeperThan } from './request-text';

const logger = createLogger('test', 'silent');

function echoApp(): { app: Express; reached: () => number } {
  const app = createServiceApp({ logger });
  let reached = 0;
  app.all('/items/{:id}', (req, res) => {
    reached += 1;
    res.json({ query: req.query, body: req.body as unknown });
  });
  finishServiceApp(app, logger);
  return { app, reached: () => reached };
}

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('JSON depth, checked before JSON.parse', () => {
  it.each([5_000, 100_000])('a body nested %i levels deep is a 400 naming body, not a stack overflow', async (depth) => {
    const { app, reached } = echoApp();
    const res = await request(app).post('/items/').set('Content-Type', 'application/json').send(`{"a":${nested(depth)}}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: `The request is invalid. body: must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
      code: 'validation_error',
      errors: [{ field: 'body', message: `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep` }],
    });
    expect(reached()).toBe(0);
  });

  it(`accepts ${MAX_JSON_DEPTH} levels, and brackets inside strings do not count`, async () => {
    const { app } = echoApp();
    expect((await request(app).post('/items/').set('Content-Type', 'application/json').send(nested(MAX_JSON_DEPTH))).status).toBe(200);
    const text = JSON.stringify({ s: '[[[[{{{{\\"['.repeat(200) });
    const res = await request(app).post('/items/').set('Content-Type', 'application/json').send(text);
    expect(res.status).toBe(200);
  });

  it('counts depth on raw bytes, escapes included', () => {
    expect(jsonDeeperThan(nested(3), 3)).toBe(false);
    expect(jsonDeeperThan(nested(4), 3)).toBe(true);
    expect(jsonDeeperThan('["\\"[[[[[["]', 1)).toBe(false);
  });
});

describe('NUL characters', () => {
  it('in a query parameter: 400 naming the parameter', async () => {
    const { app, reached } = echoApp();
    const res = await request(app).get('/items/?search=a%00b');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.errors).toEqual([{ field: 'query.search', message: 'must not contain a NUL character (U+0000)' }]);
    expect(reached()).toBe(0);
  });

  it('in a body string, nested: 400 naming the field', async () => {
    const { app } = echoApp();
    const res = await request(app).post('/items/').send({ name: 'ok', tools: [{ label: 'a\u0000b' }] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'body.tools[0].label', message: 'must not contain a NUL character (U+0000)' }]);
  });

  it('in a body key, and in the path', async () => {
    const { app } = echoApp();
    const key = await request(app).post('/items/').send({ ['a\u0000']: 1 });
    expect(key.status).toBe(400);
    expect(key.body.errors[0].field).toBe('body.a\u0000');
    const path = await request(app).get('/items/a%00b');
    expect(path.status).toBe(400);
    expect(path.body.errors).toEqual([{ field: 'path', message: 'must not contain a NUL character (U+0000)' }]);
  });
});

describe('lone surrogates', () => {
  it('in a body string: 400 naming the field, never stored as U+FFFD', async () => {
    const { app } = echoApp();
    const res = await request(app).post('/items/').set('Content-Type', 'application/json').send('{"external_id":"\\ud800"}');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'body.external_id', message: 'must be well-formed Unicode: a lone surrogate such as \\ud800 is not allowed' }]);
  });

  it('a surrogate pair (an emoji) is fine', async () => {
    const { app } = echoApp();
    const res = await request(app).post('/items/').set('Content-Type', 'application/json').send('{"name":"\\ud83d\\ude00 ok"}');
    expect(res.status).toBe(200);
    expect(res.body.body.name).toBe('\u{1F600} ok');
  });

  it('a path that is not valid percent-encoding is a 400, not a 500', async () => {
    const { app } = echoApp();
    const res = await request(app).get('/items/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
  });

  it('finds problems iteratively, however deep a value built in code is', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(findTextProblem(deep, 'body')?.message).toBe('must not contain a NUL character (U+0000)');
  });
});
