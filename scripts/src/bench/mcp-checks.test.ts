import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResponseSampler, checkOnce, expectFields, hasFields, jsonCheck, parseMcpBody, toolCallBody, toolCallCheck } from './mcp-checks';

const echo = toolCallCheck((result) => expectFields('structuredContent', { tool: 'tool_001', arguments: { query: 'q' } })(result.structuredContent));
const rpc = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, result });

describe('tools/call answer checks', () => {
  it('accepts a 200 JSON-RPC result with the expected structured content', () => {
    expect(echo(200, rpc({ content: [{ type: 'text', text: '{}' }], structuredContent: { tool: 'tool_001', arguments: { query: 'q', extra: 1 } } }))).toBeNull();
  });

  it('names what is wrong: the status, a JSON-RPC error, an isError result, other content, a body that is not JSON', () => {
    expect(echo(429, '{"code":"rate_limited"}')).toMatch(/^status 429, expected 200/);
    expect(echo(200, JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown tool: x' } }))).toBe('JSON-RPC error -32602: Unknown tool: x');
    expect(echo(200, rpc({ content: [{ type: 'text', text: 'This user has not connected GitHub yet.' }], isError: true }))).toMatch(/isError.*not connected GitHub/);
    expect(echo(200, rpc({ content: [], structuredContent: { tool: 'tool_001', arguments: { query: 'other' } } }))).toMatch(/^structuredContent is not/);
    expect(echo(200, rpc(null))).toMatch(/^no result/);
    expect(echo(200, '<html>')).toMatch(/not a JSON-RPC message/);
  });

  it('reads an answer sent as an SSE stream by its last data message', () => {
    const body = `event: message\ndata: ${rpc({ content: [], structuredContent: { tool: 'tool_001', arguments: { query: 'q' } } })}\n\n`;
    expect(parseMcpBody(body)).toMatchObject({ id: 1 });
    expect(echo(200, body)).toBeNull();
  });

  it('reads an SSE answer that opens with a priming event (an id and empty data), as server-everything sends', () => {
    const body = `id: a1\ndata: \n\n: a comment\n\nevent: message\nid: a2\ndata: ${rpc({ content: [{ type: 'text', text: 'Echo: q' }] })}\n\n`;
    expect(parseMcpBody(body)).toMatchObject({ id: 1, result: { content: [{ text: 'Echo: q' }] } });
  });

  it('checks a provider answer as JSON with the expected fields', () => {
    const issue = jsonCheck(expectFields('the issue', { number: 1, title: 'Issue 1' }));
    expect(issue(200, JSON.stringify({ number: 1, title: 'Issue 1', state: 'open' }))).toBeNull();
    expect(issue(200, JSON.stringify({ number: 2, title: 'Issue 2' }))).toMatch(/^the issue is not/);
    expect(issue(401, '{"message":"Bad credentials"}')).toMatch(/^status 401/);
  });

  it('compares nested fields and refuses values that are not objects', () => {
    expect(hasFields({ a: { b: 1, c: 2 } }, { a: { b: 1 } })).toBe(true);
    expect(hasFields({ a: { b: 2 } }, { a: { b: 1 } })).toBe(false);
    expect(hasFields(undefined, { a: 1 })).toBe(false);
  });

  it('writes a bare tools/call request', () => {
    expect(JSON.parse(toolCallBody('github__get_issue', { input: { issue_number: 1 } }))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'github__get_issue', arguments: { input: { issue_number: 1 } } },
    });
  });
});

describe('the answer sampler', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    // /good answers the expected issue; /bad answers another one.
    server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ number: req.url === '/good' ? 1 : 2 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const check = jsonCheck(expectFields('the issue', { number: 1 }));

  it('checks one request and reports a request that cannot be sent', async () => {
    expect(await checkOnce({ label: 'good', url: `${base}/good`, check })).toBeNull();
    expect(await checkOnce({ label: 'bad', url: `${base}/bad`, check })).toMatch(/^the issue is not/);
    expect(await checkOnce({ label: 'down', url: 'http://127.0.0.1:1/', check })).toMatch(/^the request failed/);
  });

  it('goes round the requests until stopped, counting failures and keeping the first problem', async () => {
    const sampler = new ResponseSampler(
      [
        { label: 'good', url: `${base}/good`, check },
        { label: 'bad', url: `${base}/bad`, check },
      ],
      1,
    );
    sampler.start();
    let seen = 0;
    server.on('request', () => (seen += 1));
    while (seen < 6) await new Promise((resolve) => setImmediate(resolve));
    const [good, bad] = await sampler.stop();
    expect(good!.checked).toBeGreaterThanOrEqual(3);
    expect(good!.failed).toBe(0);
    expect(good!.firstProblem).toBeNull();
    expect(bad!.checked).toBeGreaterThanOrEqual(3);
    expect(bad!.failed).toBe(bad!.checked);
    expect(bad!.firstProblem).toMatch(/^the issue is not/);
  });
});
