import path from 'node:path';
import { runServerConformance, type ConformanceRun } from '@patchbay/mcp-conformance';
import { freePort, startServiceProcess, type ServiceProcess } from '@patchbay/testing';
import { startAdapter, startConformanceToolsServer, type Listening } from './conformance-fixtures';
import { startConformanceToolsServer2026 } from './conformance-fixtures-2026';
import { api, rpc, startHarness, type Harness } from './harness';
import { startServerEverything, type RemoteServer } from './remote-servers';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, on the Node 22 it needs)
 * against the runtime through the edge router, as an agent on the internet reaches it. The suite's
 * tools live on an SDK MCP server registered as a custom connector; a small adapter gives the suite
 * the access key and the tool names it expects. The organization allows the adapter's own origin as
 * a browser origin, so dns-rebinding-protection's "valid origin" request is one an administrator
 * allowed, and its evil origin is refused with 403.
 */

/** Every scenario that applies to an MCP server that offers tools (and logging) only. */
const APPLICABLE = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-logging',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'json-schema-2020-12',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/** Scenarios of features the runtime does not offer (its capabilities say tools and logging only). */
const NOT_APPLICABLE = [
  'completion-complete',
  'prompts-get-embedded-resource',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-with-image',
  'prompts-list',
  'resources-list',
  'resources-read-binary',
  'resources-read-text',
  'resources-subscribe',
  'resources-templates-read',
  'resources-unsubscribe',
];

/**
 * The scenarios revision 2026-07-28 requires of a server (conformance 0.2.0-alpha.12, `--spec-version 2026-07-28`)
 * that apply to one offering tools only, and pass through the edge router.
 */
const APPLICABLE_2026 = [
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];
/**
 * A scenario that passes every check it can make here: caching's tools/list and discover checks (its prompts and
 * resources checks get Method not found: tools only).
 */
const PARTLY_APPLICABLE_2026: Record<string, RegExp> = {
  caching: /returned JSON-RPC error -32601: Method not found: (prompts|resources)\//,
};
const SCENARIOS_2026 = [...APPLICABLE_2026, ...Object.keys(PARTLY_APPLICABLE_2026)];

/**
 * The 2026-07-28 scenarios whose tools only a 2026 server can offer, run against a pack whose connector is one
 * (conformance-fixtures-2026.ts, on `@modelcontextprotocol/server` 2.x): server-stateless with its diagnostic tools
 * (test_missing_capability's -32021 comes back from the server through the runtime as 400/-32021), and the
 * multi-round-trip scenarios, the server's `input_required` passed to the suite with its requestState sealed in
 * Patchbay's.
 */
const MRTR_2026 = [
  'server-stateless',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-missing-input-response',
  'input-required-result-result-type',
  'input-required-result-unsupported-methods',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
];
/** server-stateless's checks that read a tool call's stream for a fixed 500-600 ms. */
const TIMED_STREAM_CHECKS = ['sep-2575-http-server-no-independent-requests-on-stream', 'sep-2575-server-no-log-without-loglevel'];
/** prompts/get's input_required: the runtime offers tools only, so prompts/get is Method not found (404/-32601). */
const MRTR_NOT_APPLICABLE_2026 = ['input-required-result-non-tool-request'];

let h: Harness;
let edge: ServiceProcess;
let tools: Listening;
let adapter: Listening;
let everything: RemoteServer;
let key: string;
let everythingUrl: string;
let run: ConformanceRun;
let run2026: ConformanceRun;
let tools2026: Listening;
let adapter2026: Listening;
let runMrtr: ConformanceRun;

beforeAll(async () => {
  [h, tools, everything, tools2026] = await Promise.all([startHarness(), startConformanceToolsServer(), startServerEverything('stateful'), startConformanceToolsServer2026()]);
  const port = await freePort();
  edge = await startServiceProcess('edge-router', path.dirname(require.resolve('@patchbay/edge-router/package.json')), {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    ACCESS_KEYS_URL: h.accessKeys.url,
    CONNECTOR_REGISTRY_URL: h.registry.url,
    MCP_RUNTIME_URL: h.url,
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
  });
  const org = await h.accessKeys.createOrganization();
  key = org.master_key;
  const user = await api(h, key, 'POST', '/api/v1/registered-users', { origin_user_id: 'conformance', origin_user_name: 'Conformance', shared_credential_group: { origin_company_id: 'mcp', origin_company_name: 'MCP', custom_groupings: {} } });
  const conformance = await api(h, key, 'POST', '/api/v1/connectors/', { name: 'Conformance', slug: 'conf', url: tools.url, auth: { type: 'none' } });
  const pack = await api(h, key, 'POST', '/api/v1/tool-packs/', { name: 'Conformance', description: 'The suite tools', connectors: [{ connector_id: conformance.id }] });
  const reference = await api(h, key, 'POST', '/api/v1/connectors/', { name: 'Everything', url: everything.url, auth: { type: 'none' } });
  const everythingPack = await api(h, key, 'POST', '/api/v1/tool-packs/', { name: 'Reference', description: 'server-everything', connectors: [{ connector_id: reference.id, tool_names: ['echo', 'get-sum'] }] });
  everythingUrl = `${edge.url}/api/v1/tool-packs/${everythingPack.id}/registered-users/${user.id}/mcp`;

  const conformance2026 = await api(h, key, 'POST', '/api/v1/connectors/', { name: 'Conformance 2026', slug: 'conf26', url: tools2026.url, auth: { type: 'none' } });
  const pack2026 = await api(h, key, 'POST', '/api/v1/tool-packs/', { name: 'Conformance 2026', description: 'The suite tools only a 2026 server offers', connectors: [{ connector_id: conformance2026.id }] });

  adapter = await startAdapter(`${edge.url}/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp`, key, 'conf');
  adapter2026 = await startAdapter(`${edge.url}/api/v1/tool-packs/${pack2026.id}/registered-users/${user.id}/mcp`, key, 'conf26');
  // The three runs make a few hundred tool calls within minutes as one registered user: the organization's
  // per-user limit (30 a minute by default) is raised so the suite tests the protocol, not the rate limit.
  await h.accessKeys.updateOrganization(org.organization_id, ['--mcp-allowed-origin', new URL(adapter.url).origin, '--mcp-rate-limit', '100000']);
  // `all`: the active suite and its two pending scenarios (json-schema-2020-12, server-sse-polling).
  run = await runServerConformance(adapter.url, { suite: 'all' });
  // One run at a time: server-stateless reads a tool call's stream for 500-600 ms only, which two runs side by side on a
  // busy machine can miss.
  run2026 = await runServerConformance(adapter.url, { release: 'next', specVersion: '2026-07-28', scenarios: SCENARIOS_2026 });
  runMrtr = await runServerConformance(adapter2026.url, { release: 'next', specVersion: '2026-07-28', scenarios: [...MRTR_2026, ...MRTR_NOT_APPLICABLE_2026] });
  // Its two stream checks give a tools/call 500 and 600 ms through the adapter, the edge, the runtime and the server,
  // which a machine at load 30 on 2 CPUs misses now and then: when only they failed, the scenario runs once more.
  const stateless = runMrtr.scenarios.find((r) => r.scenario === 'server-stateless');
  const failed = stateless?.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => c.id) ?? [];
  if (failed.length > 0 && failed.every((id) => TIMED_STREAM_CHECKS.includes(id))) {
    const again = await runServerConformance(adapter2026.url, { release: 'next', specVersion: '2026-07-28', scenarios: ['server-stateless'] });
    runMrtr.scenarios = runMrtr.scenarios.map((r) => (r.scenario === 'server-stateless' ? (again.scenarios[0] ?? r) : r));
  }
}, 900_000);

afterAll(async () => {
  await adapter?.close();
  await adapter2026?.close();
  await tools2026?.close();
  await edge?.stop();
  await tools?.close();
  await everything?.close();
  await h?.close();
});

describe('the MCP conformance suite, through the edge router', () => {
  it('ran every scenario of the suite', () => {
    expect(run.scenarios.map((s) => s.scenario).sort()).toEqual([...APPLICABLE, ...NOT_APPLICABLE].sort());
  });

  it.each(APPLICABLE)('%s passes', (scenario) => {
    const result = run.scenarios.find((s) => s.scenario === scenario)!;
    const problems = result.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ''}`);
    expect(problems).toEqual([]);
    expect(result.checks.some((c) => c.status === 'SUCCESS' || c.status === 'INFO')).toBe(true);
  });

  it.each(NOT_APPLICABLE)('%s does not apply: the runtime offers tools only, and says so with Method not found', (scenario) => {
    const result = run.scenarios.find((s) => s.scenario === scenario)!;
    expect(result.passed).toBe(false);
    expect(result.checks.filter((c) => c.status === 'FAILURE').map((c) => c.errorMessage)).toEqual([expect.stringContaining('Method not found')]);
  });
});

describe('the MCP conformance suite at revision 2026-07-28, through the edge router', () => {
  it('ran every scenario asked', () => {
    expect(run2026.scenarios.map((s) => s.scenario).sort()).toEqual([...SCENARIOS_2026].sort());
  });

  it.each(APPLICABLE_2026)('%s passes at 2026-07-28', (scenario) => {
    const result = run2026.scenarios.find((s) => s.scenario === scenario)!;
    expect(result.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ''}`)).toEqual([]);
    expect(result.checks.some((c) => c.status === 'SUCCESS')).toBe(true);
  });

  it.each(Object.entries(PARTLY_APPLICABLE_2026))('%s passes every check that applies to a tools-only server', (scenario, notApplicable) => {
    const result = run2026.scenarios.find((s) => s.scenario === scenario)!;
    const failed = result.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    const problems = failed.filter((c) => !notApplicable.test(c.errorMessage ?? '')).map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ''}`);
    if (problems.length > 0) console.error(scenario, problems);
    expect(problems).toEqual([]);
    expect(result.checks.filter((c) => c.status === 'SUCCESS').length).toBeGreaterThan(scenario === 'caching' ? 1 : 10);
  });
});

describe('the MCP conformance suite at revision 2026-07-28 against a 2026 server behind the runtime, through the edge router', () => {
  it('ran every scenario asked', () => {
    expect(runMrtr.scenarios.map((s) => s.scenario).sort()).toEqual([...MRTR_2026, ...MRTR_NOT_APPLICABLE_2026].sort());
  });

  it.each(MRTR_2026)('%s passes at 2026-07-28', (scenario) => {
    const result = runMrtr.scenarios.find((s) => s.scenario === scenario)!;
    expect(result.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ''}`)).toEqual([]);
    expect(result.checks.some((c) => c.status === 'SUCCESS')).toBe(true);
  });

  it('server-stateless exercises the diagnostic tools: the -32021 check and the stream checks pass rather than say "Not testable"', () => {
    const checks = runMrtr.scenarios.find((s) => s.scenario === 'server-stateless')!.checks;
    for (const id of ['sep-2575-server-rejects-undeclared-capability', 'sep-2575-missing-capability-http-400', 'sep-2575-http-server-no-independent-requests-on-stream', 'sep-2575-server-no-log-without-loglevel']) {
      expect(checks.find((c) => c.id === id)?.status).toBe('SUCCESS');
    }
  });

  it.each(MRTR_NOT_APPLICABLE_2026)('%s does not apply: prompts/get is Method not found on a tools-only server', (scenario) => {
    const result = runMrtr.scenarios.find((s) => s.scenario === scenario)!;
    expect(result.checks.filter((c) => c.status === 'FAILURE').map((c) => c.errorMessage)).toEqual([expect.stringContaining('Method not found')]);
  });
});

describe('server-everything through the edge router', () => {
  it('a tools/call of its echo and get-sum returns its real answer', async () => {
    expect((await rpc(everythingUrl, key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'through the edge' } } })).body.result).toEqual({
      content: [{ type: 'text', text: 'Echo: through the edge' }],
    });
    const sum = await rpc(everythingUrl, key, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'everything__get-sum', arguments: { a: 40, b: 2 } } });
    expect(sum.body.result.content[0].text).toContain('42');
  });
});
