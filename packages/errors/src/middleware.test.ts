import express from 'express';
import request from 'supertest';
import { AppError, ConflictError, NotInScopeError, RateLimitError, ValidationError } from './app-error';
import { errorMiddleware, notFoundHandler } from './middleware';

function appThrowing(error: unknown) {
  const app = express();
  app.use(express.json());
  app.post('/boom', () => {
    throw error;
  });
  app.use(notFoundHandler());
  app.use(errorMiddleware());
  return app;
}

describe('errorMiddleware', () => {
  it('renders an AppError as {detail, code} with the status of its code', async () => {
    const res = await request(appThrowing(new NotInScopeError())).post('/boom').send({});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Resource not in API key scope.', code: 'not_in_scope' });
  });

  it('adds field errors to validation errors', async () => {
    const res = await request(appThrowing(ValidationError.forField('body.name', 'must be at most 255 characters'))).post('/boom').send({});
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.errors).toEqual([{ field: 'body.name', message: 'must be at most 255 characters' }]);
    expect(res.body.detail).toContain('body.name');
  });

  it('keeps the extra members of a conflict body', async () => {
    const res = await request(appThrowing(new ConflictError('In use.', { dependents: [{ type: 'tool_pack', id: 'x' }] }))).post('/boom').send({});
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'In use.', code: 'conflict', dependents: [{ type: 'tool_pack', id: 'x' }] });
  });

  it('sets the headers an error carries', async () => {
    const res = await request(appThrowing(new RateLimitError('Slow down.', 12.2))).post('/boom').send({});
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('13');
  });

  it('renders malformed JSON as a 400 with a field error, not a 500', async () => {
    const res = await request(appThrowing(new Error('unreached'))).post('/boom').set('Content-Type', 'application/json').send('{"a":');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.errors[0].field).toBe('body');
  });

  it('renders a tsoa ValidateError as a 400 naming each field', async () => {
    const tsoaError = Object.assign(new Error('validation'), {
      name: 'ValidateError',
      status: 400,
      fields: { 'body.expires_in': { message: 'invalid integer number' }, 'requestBody.colour': { message: '"colour" is an excess property and therefore is not allowed' } },
    });
    const res = await request(appThrowing(tsoaError)).post('/boom').send({});
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'body.expires_in', message: 'invalid integer number' },
      { field: 'body.colour', message: 'unknown field "colour" is not allowed' },
    ]);
  });

  it('hides unexpected errors behind a generic 500 without a stack trace', async () => {
    const logged: unknown[] = [];
    const app = express();
    app.get('/boom', () => {
      throw new Error('SELECT secret FROM keys failed');
    });
    app.use(errorMiddleware({ logger: { error: (o) => logged.push(o) } }));
    const res = await request(app).get('/boom');
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toContain('SELECT');
    expect(logged).toHaveLength(1);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await request(appThrowing(new Error('x'))).get('/nowhere');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'No route matches GET /nowhere.', code: 'not_found' });
  });

  describe('a dependency that is down is 503 service_unavailable with Retry-After, not a 500', () => {
    const redisClosed = new Error('Connection is closed.');
    const redisRetries = Object.assign(new Error('Reached the max retries per request limit (which is 2). Refer to "maxRetriesPerRequest" option for details.'), { name: 'MaxRetriesPerRequestError' });
    const pgShutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL' });
    const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6399'), { code: 'ECONNREFUSED', syscall: 'connect', errno: -111 });
    const prismaWrapped = Object.assign(new Error('Invalid `prisma.x.findMany()` invocation'), {
      name: 'PrismaClientKnownRequestError',
      code: 'P2010',
      meta: { driverAdapterError: Object.assign(new Error('DatabaseNotReachable'), { cause: { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 } }) },
    });
    const wrapped = new Error('rebuild failed', { cause: socket });
    const counters = Object.assign(new Error('the counters of org:x could not be rebuilt'), { name: 'CountersUnavailableError' });
    // What ioredis Cluster threw in the cluster test when a master had just been killed.
    const clusterRedirections = new Error('Too many Cluster redirections. Last error: ReplyError: MOVED 1425 127.0.0.1:17000');
    const clusterDown = Object.assign(new Error('CLUSTERDOWN The cluster is down'), { name: 'ReplyError' });

    it.each([
      ['ioredis: connection closed', redisClosed],
      ['ioredis: max retries per request', redisRetries],
      ['PostgreSQL: admin shutdown (57P01)', pgShutdown],
      ['a refused socket', socket],
      ["Prisma's driver adapter: database not reachable", prismaWrapped],
      ['a refused socket as the cause of another error', wrapped],
      ['counters that cannot be rebuilt', counters],
      ['a Redis Cluster whose topology is changing (a node died)', clusterRedirections],
      ['a Redis Cluster node that cannot serve the slot (CLUSTERDOWN)', clusterDown],
    ])('%s', async (_label, error) => {
      const res = await request(appThrowing(error)).post('/boom').send({});
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('service_unavailable');
      expect(res.headers['retry-after']).toBe('2');
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|administrator|prisma|MOVED|CLUSTERDOWN/i);
    });

    it('keeps a Retry-After the error set, and adds one to a 503 that has none', async () => {
      const own = await request(appThrowing(new AppError('service_unavailable', 'x', { headers: { 'Retry-After': '7' } }))).post('/boom').send({});
      expect(own.headers['retry-after']).toBe('7');
      const none = await request(appThrowing(new AppError('service_unavailable', 'x'))).post('/boom').send({});
      expect(none.headers['retry-after']).toBe('2');
    });

    it('a plain bug stays a 500', async () => {
      const res = await request(appThrowing(new TypeError("Cannot read properties of undefined (reading 'id')"))).post('/boom').send({});
      expect(res.status).toBe(500);
    });
  });

  it('text PostgreSQL cannot store (22021) is the client\'s 400, not a 500', async () => {
    const nul = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021', severity: 'ERROR' });
    const res = await request(appThrowing(nul)).post('/boom').send({});
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
  });

  it('a record deleted by a concurrent request (Prisma P2025) is a 404, not a 500', async () => {
    const gone = Object.assign(new Error('An operation failed because it depends on one or more records that were required but not found.'), { name: 'PrismaClientKnownRequestError', code: 'P2025' });
    const res = await request(appThrowing(gone)).post('/boom').send({});
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  describe('a unique violation is a 409 conflict, never a 500, in each form the database clients give it', () => {
    // Shapes recorded from real violations of tool_pack_connectors' unique key (Prisma 7.10 with @prisma/adapter-pg, node-postgres 8).
    const adapterCause = { originalCode: '23505', originalMessage: 'duplicate key value violates unique constraint "t_a_b_key"', kind: 'UniqueConstraintViolation', constraint: { index: 't_a_b_key' }, table: 't' };
    const driverAdapterError = Object.assign(new Error('UniqueConstraintViolation'), { name: 'DriverAdapterError', cause: adapterCause });
    const prismaModel = Object.assign(new Error('Invalid `db.t.createMany()` invocation: Unique constraint failed on the constraint: `t_a_b_key`'), {
      name: 'PrismaClientKnownRequestError',
      code: 'P2002',
      meta: { driverAdapterError, modelName: 'T' },
    });
    const prismaRaw = Object.assign(new Error('Invalid `prisma.$executeRaw()` invocation: Raw query failed. Code: `23505`.'), { name: 'PrismaClientKnownRequestError', code: 'P2010', meta: { driverAdapterError } });
    const pg = Object.assign(new Error('duplicate key value violates unique constraint "t_a_b_key"'), { code: '23505', severity: 'ERROR', constraint: 't_a_b_key' });

    it.each([
      ['Prisma model query (P2002)', prismaModel],
      ['Prisma raw query (P2010 carrying the adapter\'s UniqueConstraintViolation)', prismaRaw],
      ['node-postgres (23505)', pg],
      ['wrapped as the cause of another error', new Error('create failed', { cause: prismaModel })],
    ])('%s', async (_label, error) => {
      const res = await request(appThrowing(error)).post('/boom').send({});
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('conflict');
      expect(res.body.detail).toMatch(/already taken.*retry/);
      expect(JSON.stringify(res.body)).not.toMatch(/t_a_b_key|duplicate key|prisma/i);
    });
  });

  it('a transaction that could not get a pool connection in time (Prisma P2028) is a 503, not a 500', async () => {
    const busy = Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { name: 'PrismaClientKnownRequestError', code: 'P2028' });
    const res = await request(appThrowing(busy)).post('/boom').send({});
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
  });

  it('maps every code to one status', () => {
    expect(new AppError('billing_limit_reached', 'x').status).toBe(402);
    expect(new AppError('key_scope_violation', 'x').status).toBe(403);
  });
});
