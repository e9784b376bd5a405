import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scenario, startHarness, type Harness } from './harness';

type Scenario = Awaited<ReturnType<typeof scenario>>;

/**
 * The official MCP Inspector CLI (a separate process, its own MCP client) against the real endpoint:
 * proof that an off-the-shelf client negotiates our stateless transport, not just our own SDK version.
 */

const inspectorDir = path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json'));
const inspectorBin = path.join(inspectorDir, 'clients/launcher/build/index.js');

interface CliRun {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

let h: Harness;
let home: string;
beforeAll(async () => {
  h = await startHarness();
  // The Inspector keeps a catalog, OAuth tokens and secrets under $HOME; give it an empty one.
  home = mkdtempSync(path.join(tmpdir(), 'mcp-inspector-home-'));
}, 90_000);
afterAll(async () => {
  await h.close();
  rmSync(home, { recursive: true, force: true });
});

/**
 * One `mcp-inspector --cli` run against the scenario's MCP URL. `--stored-auth-only` keeps it from
 * starting an interactive OAuth login when the server answers 401; the timeout only stops a hung
 * child so the test fails with its output instead of at jest's limit.
 */
function inspector(s: Scenario, args: string[], options: { authorization?: string } = {}): Promise<CliRun> {
  const auth = options.authorization === undefined ? [] : ['--header', `Authorization: ${options.authorization}`];
  const argv = [inspectorBin, '--cli', s.mcpUrl, '--transport', 'http', ...auth, '--stored-auth-only', '--format', 'json', ...args];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { timeout: 60_000, env: { ...process.env, HOME: home, MCP_STORAGE_DIR: path.join(home, 'storage') } }, (error, stdout, stderr) => {
      const failure = error as (Error & { code?: number | string; signal?: string | null }) | null;
      resolve({
        exitCode: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null,
        signal: failure?.signal ?? null,
        stdout,
        stderr,
      });
    });
  });
}

/** The `{ "result": ... }` object `--format json` prints, or a failure that shows what the CLI said. */
function resultOf(run: CliRun): any {
  if (run.exitCode !== 0) throw new Error(`mcp-inspector exited ${run.exitCode ?? run.signal}: ${run.stderr}${run.stdout}`);
  return (JSON.parse(run.stdout) as { result: unknown }).result;
}

describe('MCP Inspector CLI', () => {
  let s: Scenario;
  beforeAll(async () => {
    s = await scenario(h);
  });

  it('tools/list returns the pack\'s tools with fully qualified names and input schemas', async () => {
    const result = resultOf(await inspector(s, ['--method', 'tools/list'], { authorization: `Bearer ${s.key}` }));
    expect(result.tools.map((t: { name: string }) => t.name)).toEqual(['github__list_issues', 'github__get_issue', 'github__create_issue']);
    for (const tool of result.tools) {
      expect(tool).toMatchObject({ description: expect.any(String), inputSchema: { type: 'object', required: ['input'], properties: { input: { type: 'object' } } } });
    }
  });

  // `--tool-arg key=value` JSON-parses the value, so an object goes through as an object;
  // `--tool-args-json` passes the whole arguments object verbatim.
  it.each([
    ['--tool-arg input=<json>', ['--tool-arg', 'input={"owner":"octo-org","repo":"hello"}']],
    ['--tool-args-json', ['--tool-args-json', '{"input":{"owner":"octo-org","repo":"hello"}}']],
  ])('tools/call of github__list_issues with %s returns the issues of octo-org/hello from GitHub', async (_form, toolArgs) => {
    const before = h.github.requests.length;
    const result = resultOf(await inspector(s, ['--method', 'tools/call', '--tool-name', 'github__list_issues', ...toolArgs], { authorization: `Bearer ${s.key}` }));
    expect(result.isError).toBeFalsy();
    const output = JSON.parse(result.content[0].text) as { issues: Array<{ number: number; title: string; url: string }> };
    expect(output).toEqual(result.structuredContent);
    expect(output.issues.length).toBeGreaterThan(0);
    for (const issue of output.issues) expect(issue.url).toBe(`https://github.com/octo-org/hello/issues/${issue.number}`);
    const calls = h.github.requests.slice(before);
    expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /repos/octo-org/hello/issues']);
    expect(calls[0]!.headers.authorization).toBe('Bearer ghp_fake_valid_token');
  });

  it('without the Authorization header the CLI fails with auth_required and the endpoint\'s 401 message', async () => {
    const run = await inspector(s, ['--method', 'tools/list']);
    // Exit 3 is the CLI's class for a 401/403 answer; its envelope carries our 401 body, not the status.
    expect(run.exitCode).toBe(3);
    expect(run.stdout).toBe('');
    const envelope = JSON.parse(run.stderr.trim().split('\n').at(-1)!) as { error: { code: string; message: string } };
    expect(envelope.error.code).toBe('auth_required');
    expect(envelope.error.message).toContain('authentication_failed');
    expect(envelope.error.message).toContain('Authorization: Bearer <API_KEY>');
  });
});
