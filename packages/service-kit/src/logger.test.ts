import { Writable } from 'node:stream';
import { createLogger, redactSecretPath, requestContextStorage } from './logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, stream };
}

describe('createLogger', () => {
  it('writes JSON with the service and the request id', () => {
    const { lines, stream } = capture();
    const logger = createLogger('svc', 'info', stream);
    requestContextStorage.run({ requestId: 'req-1' }, () => logger.info('hello'));
    expect(lines[0]).toMatchObject({ service: 'svc', request_id: 'req-1', msg: 'hello', level: 'info' });
  });

  it('never writes keys, secrets or credentials', () => {
    const { lines, stream } = capture();
    const logger = createLogger('svc', 'info', stream);
    logger.info({ req: { headers: { authorization: 'Bearer pb_live_secret' } }, body: { client_secret: 'cs', key: 'k' }, key: 'pb_test_x' }, 'x');
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('pb_live_secret');
    expect(text).not.toContain('"cs"');
    expect(text).not.toContain('pb_test_x');
  });
});

describe('redactSecretPath', () => {
  it('masks magic-link tokens and leaves other paths alone', () => {
    expect(redactSecretPath('/link/lt_abc123/oauth/start')).toBe('/link/[REDACTED]/oauth/start');
    expect(redactSecretPath('/link/lt_abc123')).toBe('/link/[REDACTED]');
    expect(redactSecretPath('/link/oauth/callback')).toBe('/link/oauth/callback');
    expect(redactSecretPath('/api/v1/tool-packs/')).toBe('/api/v1/tool-packs/');
  });
});
