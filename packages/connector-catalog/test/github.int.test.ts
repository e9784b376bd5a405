import { GITHUB_FAKE_TOKENS, startFakeGithub } from '@patchbay/provider-fakes';
import { expectToolError, runTool } from './run-tool';

let fake: Awaited<ReturnType<typeof startFakeGithub>>;
const cred = (token: string) => ({ auth_type: 'bearer_token' as const, values: { token } });
const run = (tool: string, input: unknown, token: string = GITHUB_FAKE_TOKENS.valid) => runTool('github', tool, { input }, { credential: cred(token), baseUrl: fake.url });

beforeAll(async () => {
  fake = await startFakeGithub({ owner: 'octo-org', repo: 'hello', issues: 45 });
});
afterAll(async () => {
  await fake.close();
});

describe('github connector', () => {
  it('list_issues pages through a repository with the Link header and sends the token as a bearer header', async () => {
    const first = (await run('list_issues', { owner: 'octo-org', repo: 'hello', state: 'all', per_page: 20 })) as { issues: Array<{ number: number }>; next_page: number | null };
    expect(first.issues).toHaveLength(20);
    expect(first.issues[0]?.number).toBe(45);
    expect(first.next_page).toBe(2);
    const last = (await run('list_issues', { owner: 'octo-org', repo: 'hello', state: 'all', per_page: 20, page: 3 })) as { issues: unknown[]; next_page: number | null };
    expect(last.issues).toHaveLength(5);
    expect(last.next_page).toBeNull();
    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe('/repos/octo-org/hello/issues');
    expect(sent.headers.authorization).toBe(`Bearer ${GITHUB_FAKE_TOKENS.valid}`);
    expect(sent.headers.accept).toBe('application/vnd.github+json');
  });

  it('list_issues filters by labels', async () => {
    const res = (await run('list_issues', { owner: 'octo-org', repo: 'hello', state: 'all', labels: ['bug'], per_page: 100 })) as { issues: Array<{ labels: string[] }> };
    expect(res.issues.length).toBeGreaterThan(0);
    expect(res.issues.every((i) => i.labels.includes('bug'))).toBe(true);
  });

  it('get_issue returns one issue in the tool\'s output shape', async () => {
    const issue = await run('get_issue', { owner: 'octo-org', repo: 'hello', issue_number: 3 });
    expect(issue).toMatchObject({ number: 3, title: 'Issue 3', state: 'open', url: 'https://github.com/octo-org/hello/issues/3', author: 'octocat', labels: ['bug'], is_pull_request: false });
  });

  it('create_issue posts the title, body, labels and assignees', async () => {
    const issue = (await run('create_issue', { owner: 'octo-org', repo: 'hello', title: 'Crash on start', body: 'Steps...', labels: ['bug'], assignees: ['octocat'] })) as { number: number };
    expect(issue).toMatchObject({ title: 'Crash on start', labels: ['bug'], assignees: ['octocat'] });
    expect(fake.requests.at(-1)!.json).toEqual({ title: 'Crash on start', body: 'Steps...', labels: ['bug'], assignees: ['octocat'] });
  });

  it('refuses arguments that fail the input schema before calling GitHub', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('get_issue', { owner: 'octo-org', issue_number: 'three' }), 'invalid_input');
    expect(err.message).toContain('input.repo is required');
    expect(err.message).toContain('input.issue_number must be integer');
    expect(fake.requests.length).toBe(before);
  });

  it('maps 401 Bad credentials to a rejected credential, without echoing the token', async () => {
    const err = await expectToolError(run('get_issue', { owner: 'octo-org', repo: 'hello', issue_number: 1 }, 'ghp_wrong'), 'credential_rejected');
    expect(err.message).toContain('Bad credentials');
    expect(err.message).toContain('reconnect GitHub');
    expect(err.message).not.toContain('ghp_wrong');
  });

  it('maps 404 to not found with GitHub\'s message', async () => {
    const err = await expectToolError(run('get_issue', { owner: 'octo-org', repo: 'nope', issue_number: 1 }), 'not_found');
    expect(err.status).toBe(404);
  });

  it('maps GitHub\'s 422 Validation Failed to invalid input with GitHub\'s message', async () => {
    const err = await expectToolError(run('create_issue', { owner: 'octo-org', repo: 'hello', title: '   ' }), 'invalid_input');
    expect(err.status).toBe(422);
    expect(err.message).toContain('Validation Failed');
  });

  it('maps both of GitHub\'s rate limits to rate_limited, with Retry-After when given', async () => {
    await expectToolError(run('get_issue', { owner: 'octo-org', repo: 'hello', issue_number: 1 }, GITHUB_FAKE_TOKENS.rateLimited), 'rate_limited');
    const secondary = await expectToolError(run('get_issue', { owner: 'octo-org', repo: 'hello', issue_number: 1 }, GITHUB_FAKE_TOKENS.secondaryLimited), 'rate_limited');
    expect(secondary.retryAfterSeconds).toBe(30);
    expect(secondary.message).toContain('retry after 30 s');
  });

  it('maps 5xx to a provider error and a slow provider to a timeout', async () => {
    await expectToolError(run('get_issue', { owner: 'octo-org', repo: 'hello', issue_number: 1 }, GITHUB_FAKE_TOKENS.failing), 'provider_error');
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      await expectToolError(
        runTool('github', 'get_issue', { input: { owner: 'o', repo: 'r', issue_number: 1 } }, { credential: cred(GITHUB_FAKE_TOKENS.valid), baseUrl: `http://127.0.0.1:${port}`, limits: { timeoutMs: 200 } }),
        'timeout',
      );
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
