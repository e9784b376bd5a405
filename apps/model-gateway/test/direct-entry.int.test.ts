import net from 'node:net';
import { call, createKey, createOrg, startHarness, type Harness, type TestOrg } from './harness';

/*
 * The Helm chart can route /v1 from the Ingress straight to the gateway pods (ingress.modelGatewayDirect),
 * skipping the edge router. These tests call the gateway itself, as such an Ingress does, and check that it
 * does for /v1 what the edge does: request ids, and the body limit before any of the body is read.
 */

const MAX_BODY_BYTES = 8192;

let h: Harness;
let org: TestOrg;
let apiKey: string;

beforeAll(async () => {
  h = await startHarness({ GATEWAY_MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
  org = await createOrg(h);
  apiKey = (await createKey(h, org)).key;
}, 60_000);

afterAll(async () => {
  await h?.close();
});

interface RawAnswer {
  head: string;
  body: string;
  /** Whether the gateway closed the connection after answering. */
  closed: boolean;
}

/**
 * Sends only the head of a request (its body is declared, never sent) and reads what comes back within
 * `waitMs`: a gateway that waits for the body to arrive before answering gives no answer.
 */
function sendHeadOnly(baseUrl: string, head: string, waitMs = 3000): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(head));
    let received = '';
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const split = received.indexOf('\r\n\r\n');
      resolve({ head: split === -1 ? received : received.slice(0, split), body: split === -1 ? '' : received.slice(split + 4), closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    socket.on('end', () => finish(true));
    socket.on('error', reject);
  });
}

const headerOf = (head: string, name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim();

describe('the gateway reached without the edge router (ingress.modelGatewayDirect)', () => {
  it('refuses a model request whose declared body is over the limit with 413 before reading it, and closes the connection', async () => {
    const answer = await sendHeadOnly(
      h.gatewayUrl,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\nX-Request-Id: client-id-1\r\n\r\n`,
    );
    expect(answer.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { type: 'invalid_request_error', code: 'payload_too_large', source: 'gateway' } });
    expect(JSON.parse(answer.body).error.message).toContain(`over ${MAX_BODY_BYTES} bytes`);
    expect(headerOf(answer.head, 'x-request-id')).toBe('client-id-1');
    expect(headerOf(answer.head, 'connection')).toBe('close');
    expect(answer.closed).toBe(true);
  });

  it('refuses an over-limit declared body on a management path the same way', async () => {
    const answer = await sendHeadOnly(
      h.gatewayUrl,
      `POST /v1/keys HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${org.mgmtKey}\r\nContent-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024 * 1024}\r\n\r\n`,
    );
    expect(answer.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(headerOf(answer.head, 'x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.closed).toBe(true);
  });

  it('answers a body within the limit as usual', async () => {
    const res = await call(h.gatewayUrl, apiKey, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
  });

  it('keeps a well-formed client X-Request-Id and replaces a malformed one, on model, management and unknown paths', async () => {
    const paths: Array<[string, string, string | null, unknown]> = [
      ['POST', '/v1/chat/completions', apiKey, { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }],
      ['GET', '/v1/keys', org.mgmtKey, undefined],
      ['GET', '/v1/no-such-thing', null, undefined],
    ];
    for (const [method, path, key, body] of paths) {
      const kept = await call(h.gatewayUrl, key, method, path, body, { 'x-request-id': 'req-42.a:b' });
      expect(kept.headers.get('x-request-id')).toBe('req-42.a:b');
      const replaced = await call(h.gatewayUrl, key, method, path, body, { 'x-request-id': 'not ok/' + 'x'.repeat(200) });
      expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
