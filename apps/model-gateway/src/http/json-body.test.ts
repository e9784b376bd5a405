import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { BodyReadError, discardRest, readJsonBody } from './json-body';

/** readJsonBody behind a real node server: what it resolved, or the BodyReadError type it refused with. */
let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    readJsonBody(req, 64).then(
      (body) => res.end(JSON.stringify({ body: body === undefined ? 'none' : body })),
      async (err: unknown) => {
        // What the model endpoints do: read off the rest, then answer on a connection that stays usable.
        await discardRest(req);
        res.end(JSON.stringify({ error: err instanceof BodyReadError ? err.type : String(err) }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(body: Buffer | string | null, headers: Record<string, string> = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ port, method: 'POST', path: '/', headers: { connection: 'close', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

describe('readJsonBody', () => {
  it('parses a JSON object and an array', async () => {
    expect(await send('{"model":"openai/gpt-4o"}', { 'content-type': 'application/json' })).toEqual({ body: { model: 'openai/gpt-4o' } });
    expect(await send(' [1,2]')).toEqual({ body: [1, 2] });
  });

  it('reads no body as undefined and an empty one as {}', async () => {
    expect(await send(null)).toEqual({ body: 'none' });
    expect(await send('   ', { 'content-length': '3' })).toEqual({ body: {} });
  });

  it('refuses what is not JSON, or JSON whose top level is not an object or array (strict, as express.json)', async () => {
    expect(await send('{"model":')).toEqual({ error: 'entity.parse.failed' });
    expect(await send('"text"')).toEqual({ error: 'entity.parse.failed' });
  });

  it('decodes gzip and refuses a corrupt or unknown encoding', async () => {
    expect(await send(gzipSync('{"a":1}'), { 'content-encoding': 'gzip' })).toEqual({ body: { a: 1 } });
    expect(await send(Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' })).toEqual({ error: 'encoding.corrupt' });
    expect(await send('{}', { 'content-encoding': 'zstd-custom' })).toEqual({ error: 'encoding.unsupported' });
  });

  it('accepts only UTF-8', async () => {
    expect(await send('{}', { 'content-type': 'application/json; charset=utf-8' })).toEqual({ body: {} });
    expect(await send('{}', { 'content-type': 'application/json; charset=latin1' })).toEqual({ error: 'charset.unsupported' });
  });

  it('applies the limit to the declared length and to the decoded size (a gzip bomb is refused)', async () => {
    expect(await send(JSON.stringify({ text: 'x'.repeat(100) }))).toEqual({ error: 'entity.too.large' });
    const bomb = gzipSync(JSON.stringify({ text: ' '.repeat(10_000) }));
    expect(bomb.length).toBeLessThan(64);
    expect(await send(bomb, { 'content-encoding': 'gzip' })).toEqual({ error: 'entity.too.large' });
  });

  it('answers a body refused part-way only after reading off the rest, so a sender still writing gets the answer', async () => {
    const pieces = Array.from({ length: 40 }, () => 'x'.repeat(16 * 1024));
    const answer = await new Promise<unknown>((resolve, reject) => {
      const req = request({ port, method: 'POST', path: '/', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(JSON.parse(text)));
      });
      req.on('error', reject);
      req.write('{"text":"');
      for (const piece of pieces) req.write(piece);
      req.end('"}');
    });
    expect(answer).toEqual({ error: 'entity.too.large' });
  });
});
