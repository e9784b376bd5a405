import { toGatewayErrorLike } from './errors';

describe('toGatewayErrorLike', () => {
  it('a unique violation (Prisma P2002, the pg adapter, node-postgres) on a model endpoint is a 409 in the model envelope, never a 500', () => {
    const prisma = Object.assign(new Error('Unique constraint failed on the constraint: `x_key`'), { name: 'PrismaClientKnownRequestError', code: 'P2002' });
    const pg = Object.assign(new Error('duplicate key value violates unique constraint "x_key"'), { code: '23505', severity: 'ERROR' });
    for (const err of [prisma, pg]) {
      const mapped = toGatewayErrorLike(err);
      expect({ status: mapped.status, type: mapped.type, code: mapped.code }).toEqual({ status: 409, type: 'invalid_request_error', code: 'conflict' });
      expect(mapped.message).not.toMatch(/x_key|duplicate key|prisma/i);
    }
  });

  it('an unknown error stays a 500 internal_error with no detail of its own', () => {
    const mapped = toGatewayErrorLike(new Error('secret internals'));
    expect({ status: mapped.status, code: mapped.code }).toEqual({ status: 500, code: 'internal_error' });
    expect(mapped.message).not.toContain('secret internals');
  });
});
