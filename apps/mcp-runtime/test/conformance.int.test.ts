import path from 'node:path';
import { runServerConformance, type ConformanceRun } from '@patchbay/mcp-conformance';
import { freePort, startServiceProcess, type ServiceProcess } from '@patchbay/testing';
import { startAdapter, startConformanceToolsServer, type Listening } from './conformance-fixtures';
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
 * Scenarios that pass every check they can make here: server-stateless's checks of the `_meta`, headers, versions,
 * unknown methods and discover (its checks that need the reference fixture's diagnostic tools, test_missing_capability,
 * test_streaming_elicitation and test_logging_tool, say "Not testable": the suite's tools server is a 2025 one without them), and
 * caching's tools/list and discover checks (its prompts and resources checks get Method not found: tools only).
 */
const PARTLY_APPLICABLE_2026: Record<string, RegExp> = {
  'server-stateless': /^Not testable: server does not list the diagnostic tool/,
  caching: /returned JSON-RPC error -32601: Method not found: (prompts|resources)\//,
};
const SCENARIOS_2026 = [...APPLICABLE_2026, ...Object.keys(PARTLY_APPLICABLE_2026)];

let h: Harness;
let edge: ServiceProcess;
let tools: Listening;
let adapter: Listening;
let everything: RemoteServer;
let key: string;
let everythingUrl: string;
let run: ConformanceRun;
let run2026: ConformanceRun;

beforeAll(async () => {
  [h, tools, everything] = await Promise.all([startHarness(), startConformanceToolsServer(), startServerEverything('stateful')]);
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

  adapter = await startAdapter(`${edge.url}/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp`, key, 'conf');
  await h.accessKeys.updateOrganization(org.organization_id, ['--mcp-allowed-origin', new URL(adapter.url).origin]);
  // `all`: the active suite and its two pending scenarios (json-schema-2020-12, server-sse-polling).
  run = await runServerConformance(adapter.url, { suite: 'all' });
  run2026 = await runServerConformance(adapter.url, { release: 'next', specVersion: '2026-07-28', scenarios: SCENARIOS_2026 });
}, 400_000);

afterAll(async () => {
  await adapter?.close();
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

describe('server-everything through the edge router', () => {
  it('a tools/call of its echo and get-sum returns its real answer', async () => {
    expect((await rpc(everythingUrl, key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'through the edge' } } })).body.result).toEqual({
      content: [{ type: 'text', text: 'Echo: through the edge' }],
    });
    const sum = await rpc(everythingUrl, key, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'everything__get-sum', arguments: { a: 40, b: 2 } } });
    expect(sum.body.result.content[0].text).toContain('42');
  });
});
