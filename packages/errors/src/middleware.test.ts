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

  it('maps every code to one status', () => {
    expect(new AppError('billing_limit_reached', 'x').status).toBe(402);
    expect(new AppError('key_scope_violation', 'x').status).toBe(403);
  });
});
