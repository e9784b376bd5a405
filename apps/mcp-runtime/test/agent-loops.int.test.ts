import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createMCPClient } from '@ai-sdk/mcp';
import { createOpenAI } from '@ai-sdk/openai';
import { node22 } from '@patchbay/mcp-conformance';
import { startFakeOpenAI, type FakeVendor } from '@patchbay/provider-fakes';
import { freePort, startServiceProcess, TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN, type ServiceProcess } from '@patchbay/testing';
import { isStepCount, streamText } from 'ai';
import { startCountingProxy, type CountingProxy } from './counting-proxy';
import { api, startHarness, type Harness } from './harness';
import { start2026Server, type Server2026 } from './remote-servers-2026';

/**
 * A whole agent turn through Patchbay, as the frameworks people build agents with run one: the OpenAI Agents SDK
 * (its MCP client is @modelcontextprotocol/client, on Node 22) and the `ai` SDK with @ai-sdk/mcp, each taking its
 * tools from the MCP endpoint and its model from the model gateway (its OpenAI vendor the fake of
 * @patchbay/provider-fakes), both behind one edge router, streamed, until the model answers in text after the tool
 * ran. A counting proxy in front of the edge shows what the MCP endpoint received per connect: one server/discover
 * (2026-07-28 from the first request), never the 2025 handshake after a refused probe.
 */

const MODEL = 'openai/gpt-4o-mini';
let h: Harness;
let remote: Server2026;
let openai: FakeVendor;
let gateway: ServiceProcess;
let edge: ServiceProcess;
let proxy: CountingProxy;
let key: string;
let gatewayKey: string;
let mcpPath: string;

beforeAll(async () => {
  [h, remote, openai] = await Promise.all([startHarness(), start2026Server('reject'), startFakeOpenAI()]);
  const dir = (app: string) => path.resolve(__dirname, '..', '..', app);
  gateway = await startServiceProcess('model-gateway', dir('model-gateway'), {
    ...process.env,
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    ACCESS_KEYS_URL: h.accessKeys.url,
    PATCHBAY_SERVICE_TOKEN: TEST_SERVICE_TOKEN,
    PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
    PATCHBAY_ENCRYPTION_KEYS: `loops:${randomBytes(32).toString('base64')}`,
    PATCHBAY_VENDOR_OPENAI_API_KEY: openai.apiKeys.valid,
    PATCHBAY_VENDOR_OPENAI_BASE_URL: openai.baseUrl,
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
  });
  edge = await startServiceProcess('edge-router', dir('edge-router'), {
    ...process.env,
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    ACCESS_KEYS_URL: h.accessKeys.url,
    CONNECTOR_REGISTRY_URL: h.registry.url,
    MCP_RUNTIME_URL: h.url,
    MODEL_GATEWAY_URL: gateway.url,
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
  });
  // One organization for both: its access key calls the MCP endpoint, a gateway key made with its management key the model.
  const org = (await h.accessKeys.cli(['org', 'create', '--name', `Agent loops ${process.pid}`, '--plan', 'paid', '--payment-method', 'true', '--gateway-credit-usd', '100'])) as { organization_id: string; master_key: string };
  key = org.master_key;
  const mgmt = (await h.accessKeys.cli(['mgmt-key', 'create', '--org', org.organization_id, '--name', 'agent loops'])) as { key: string };
  const created = await fetch(`${edge.url}/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${mgmt.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'agent loops' }) });
  const body = (await created.json()) as { key?: string; data?: { key?: string } };
  gatewayKey = (body.data ?? body).key!;
  expect(gatewayKey).toEqual(expect.any(String));

  const connector = await api(h, key, 'POST', '/api/v1/connectors/', { name: 'Records', slug: 'records', url: remote.url, auth: { type: 'none' } });
  const user = await api(h, key, 'POST', '/api/v1/registered-users', { origin_user_id: 'ada', origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } });
  const pack = await api(h, key, 'POST', '/api/v1/tool-packs/', { name: 'Loops', description: 'One lookup tool', connectors: [{ connector_id: connector.id, tool_names: ['lookup'] }] });
  mcpPath = `/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp`;
  proxy = await startCountingProxy(edge.url);
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await edge?.stop();
  await gateway?.stop();
  await openai?.close();
  await remote?.close();
  await h?.close();
});

/** The model requests the fake vendor received since `from`: the gateway's, with the tools the agent offered. */
const modelRequests = (from: number) => openai.requests.slice(from).filter((r) => r.path === '/v1/chat/completions');

describe('agent loops through Patchbay: tools from the MCP endpoint, the model from the gateway', () => {
  it('the OpenAI Agents SDK (Node 22) runs a streamed tool loop; the endpoint receives one server/discover to connect and no initialize', async () => {
    const mcpStart = proxy.seenAt('/mcp').length;
    const modelStart = openai.requests.length;
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        node22(),
        [path.join(__dirname, 'fixtures', 'agents-sdk-loop.mjs'), `${proxy.url}${mcpPath}`, key, `${proxy.url}/v1/openai`, gatewayKey, MODEL, 'Please use records__lookup to find the order'],
        { cwd: path.join(__dirname, '..'), timeout: 90_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      );
    });
    const run = JSON.parse(output) as { tools: string[]; called: string[]; outputs: unknown[]; output: string; deltas: number };
    expect(run.tools).toEqual(['records__lookup']);
    expect(run.called).toEqual(['records__lookup']);
    expect(JSON.stringify(run.outputs)).toContain('found ');
    // The fake model's answer after a tool result reports it: the tool's text went model-wards through the gateway.
    expect(run.output).toMatch(/^Tool records__lookup returned: .*found/);
    expect(run.deltas).toBeGreaterThan(0);

    const mcp = proxy.seenAt('/mcp').slice(mcpStart);
    expect(mcp[0]).toBe('POST server/discover');
    expect(mcp.filter((m) => m === 'POST server/discover')).toHaveLength(1);
    expect(mcp).not.toContain('POST initialize');
    expect(mcp).toContain('POST tools/call');
    const models = modelRequests(modelStart);
    expect(models).toHaveLength(2);
    expect(JSON.stringify((models[0]!.json as { tools?: unknown }).tools)).toContain('records__lookup');
    expect((models[0]!.json as { stream?: unknown }).stream).toBe(true);
  }, 120_000);

  it('the ai SDK with @ai-sdk/mcp runs a streamed tool loop; the endpoint receives one server/discover to connect and no initialize', async () => {
    const mcpStart = proxy.seenAt('/mcp').length;
    const modelStart = openai.requests.length;
    const client = await createMCPClient({ transport: { type: 'http', url: `${proxy.url}${mcpPath}`, headers: { authorization: `Bearer ${key}` } } });
    try {
      expect(proxy.seenAt('/mcp').slice(mcpStart)).toEqual(['POST server/discover']);
      const tools = await client.tools();
      const model = createOpenAI({ apiKey: gatewayKey, baseURL: `${proxy.url}/v1/openai` }).chat(MODEL);
      const errors: unknown[] = [];
      const result = streamText({ model, tools, prompt: 'Please use records__lookup to find the invoice', stopWhen: isStepCount(3), onError: ({ error }) => void errors.push(error) });
      let chunks = 0;
      for await (const _delta of result.textStream) chunks += 1;
      expect(errors.map((e) => (e instanceof Error ? `${e.message} ${String((e as { cause?: unknown }).cause ?? '')}` : String(e)))).toEqual([]);
      const steps = await result.steps;
      expect(steps[0]!.toolCalls.map((c) => c.toolName)).toEqual(['records__lookup']);
      expect(JSON.stringify(steps[0]!.toolResults.map((r) => r.output))).toContain('found ');
      expect(await result.text).toMatch(/^Tool records__lookup returned: .*found/);
      expect(chunks).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    const mcp = proxy.seenAt('/mcp').slice(mcpStart);
    expect(mcp.filter((m) => m === 'POST server/discover')).toHaveLength(1);
    expect(mcp).not.toContain('POST initialize');
    expect(mcp).toContain('POST tools/call');
    expect(modelRequests(modelStart)).toHaveLength(2);
  }, 120_000);
});
