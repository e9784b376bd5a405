import { GITHUB_FAKE_TOKENS, startFakeGithub } from '@patchbay/provider-fakes';
import { findTool, getBuiltinConnector } from '../src/catalog';
import { validateToolArguments } from '../src/core/validate';
import { expectToolError, runTool } from './run-tool';

/** Problems of a tool's output against its output_schema (the same validator the runtime uses for input). */
function outputProblems(slug: string, tool: string, output: unknown): string[] {
  const definition = findTool(getBuiltinConnector(slug)!, tool)!;
  return validateToolArguments({ input_schema: definition.output_schema }, output);
}

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

describe('github connector: repositories, pull requests, comments, search and contents', () => {
  let rich: Awaited<ReturnType<typeof startFakeGithub>>;
  // Every success here is also checked against the tool's declared output schema.
  const runRich = async (tool: string, input: unknown, token: string = GITHUB_FAKE_TOKENS.valid) => {
    const output = await runTool('github', tool, { input }, { credential: cred(token), baseUrl: rich.url });
    expect(outputProblems('github', tool, output)).toEqual([]);
    return output;
  };
  const lastRequest = () => rich.requests.at(-1)!;

  beforeAll(async () => {
    rich = await startFakeGithub({
      owner: 'octo-org',
      repo: 'hello',
      issues: 6,
      pulls: 3,
      extraRepos: 4,
      files: {
        'README.md': '# Hello\n\nWelcome to the repository. Ünïcödé too.\n',
        'src/index.ts': 'export const answer = 42;\n',
        'src/lib/util.ts': 'export {};\n',
        'assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x0d, 0x0a]),
      },
    });
  });
  afterAll(async () => {
    await rich.close();
  });

  it('list_repositories lists the authenticated user\'s repositories from /user/repos and pages with the Link header', async () => {
    type Page = { repositories: Array<{ full_name: string; owner: string; private: boolean; url: string; default_branch: string }>; next_page: number | null };
    const first = (await runRich('list_repositories', { sort: 'full_name', direction: 'asc', per_page: 3 })) as Page;
    let sent = lastRequest();
    expect(sent.method).toBe('GET');
    expect(sent.path).toBe('/user/repos');
    expect(sent.query.get('sort')).toBe('full_name');
    expect(sent.query.get('direction')).toBe('asc');
    expect(sent.query.get('per_page')).toBe('3');
    expect(sent.headers.authorization).toBe(`Bearer ${GITHUB_FAKE_TOKENS.valid}`);
    expect(first.repositories.map((r) => r.full_name)).toEqual(['octo-org/hello', 'octocat/project-01', 'octocat/project-02']);
    expect(first.repositories[0]).toMatchObject({ owner: 'octo-org', private: false, url: 'https://github.com/octo-org/hello', default_branch: 'main' });
    expect(first.next_page).toBe(2);

    const second = (await runRich('list_repositories', { sort: 'full_name', direction: 'asc', per_page: 3, page: first.next_page })) as Page;
    sent = lastRequest();
    expect(sent.query.get('page')).toBe('2');
    expect(second.repositories.map((r) => r.full_name)).toEqual(['octocat/project-03', 'octocat/project-04']);
    expect(second.next_page).toBeNull();
  });

  it('list_repositories sorts by most recently updated by default and passes visibility and affiliation filters', async () => {
    const res = (await runRich('list_repositories', { visibility: 'private', affiliation: ['owner', 'collaborator'] })) as { repositories: Array<{ full_name: string; private: boolean }> };
    const sent = lastRequest();
    expect(sent.query.get('sort')).toBe('updated');
    expect(sent.query.get('visibility')).toBe('private');
    expect(sent.query.get('affiliation')).toBe('owner,collaborator');
    expect(res.repositories.map((r) => r.full_name)).toEqual(['octocat/project-04', 'octocat/project-02']);
    expect(res.repositories.every((r) => r.private)).toBe(true);
  });

  it('get_repository returns one repository in the tool\'s output shape', async () => {
    const repo = await runRich('get_repository', { owner: 'octo-org', repo: 'hello' });
    expect(lastRequest()).toMatchObject({ method: 'GET', path: '/repos/octo-org/hello' });
    expect(repo).toEqual({
      full_name: 'octo-org/hello',
      owner: 'octo-org',
      name: 'hello',
      description: 'The seeded repository',
      private: false,
      visibility: 'public',
      fork: false,
      archived: false,
      url: 'https://github.com/octo-org/hello',
      default_branch: 'main',
      language: 'TypeScript',
      topics: ['demo'],
      stars: 42,
      forks: 0,
      open_issues: expect.any(Number),
      can_push: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      pushed_at: expect.any(String),
    });
  });

  it('get_repository maps an unknown repository to not found', async () => {
    const err = await expectToolError(runRich('get_repository', { owner: 'octo-org', repo: 'missing' }), 'not_found');
    expect(err.message).toContain('Not Found');
  });

  it('list_pull_requests lists a repository\'s pull requests with their branches', async () => {
    const res = (await runRich('list_pull_requests', { owner: 'octo-org', repo: 'hello', state: 'all', base: 'main' })) as { pull_requests: Array<Record<string, unknown>>; next_page: number | null };
    const sent = lastRequest();
    expect(sent).toMatchObject({ method: 'GET', path: '/repos/octo-org/hello/pulls' });
    expect(sent.query.get('state')).toBe('all');
    expect(sent.query.get('base')).toBe('main');
    expect(res.pull_requests.map((p) => p.number)).toEqual([9, 8, 7]);
    expect(res.pull_requests[0]).toMatchObject({ number: 9, state: 'closed', head: 'feature-9', base: 'main', author: 'hubot', requested_reviewers: ['octocat'], url: 'https://github.com/octo-org/hello/pull/9' });
    expect(res.pull_requests[0]?.merged_at).toEqual(expect.any(String));
    expect(res.pull_requests[0]).not.toHaveProperty('mergeable');
    expect(res.next_page).toBeNull();

    const open = (await runRich('list_pull_requests', { owner: 'octo-org', repo: 'hello' })) as { pull_requests: Array<{ number: number; draft: boolean }> };
    expect(lastRequest().query.get('state')).toBe('open');
    expect(open.pull_requests).toEqual([expect.objectContaining({ number: 8, draft: true }), expect.objectContaining({ number: 7, draft: false })]);
  });

  it('get_pull_request returns the merge state and the size of the change', async () => {
    const pr = await runRich('get_pull_request', { owner: 'octo-org', repo: 'hello', pull_number: 7 });
    expect(lastRequest()).toMatchObject({ method: 'GET', path: '/repos/octo-org/hello/pulls/7' });
    expect(pr).toMatchObject({ number: 7, title: 'Pull request 7', state: 'open', head: 'feature-7', base: 'main', merged: false, mergeable: true, mergeable_state: 'clean', commits: 2, additions: 10, deletions: 0, changed_files: 1 });
    expect((pr as { head_sha: string }).head_sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('get_pull_request maps an issue number that is not a pull request to not found', async () => {
    await expectToolError(runRich('get_pull_request', { owner: 'octo-org', repo: 'hello', pull_number: 1 }), 'not_found');
  });

  it('add_issue_comment posts the comment body to the issue\'s comments', async () => {
    const comment = await runRich('add_issue_comment', { owner: 'octo-org', repo: 'hello', issue_number: 2, body: 'Looking into it.' });
    const sent = lastRequest();
    expect(sent).toMatchObject({ method: 'POST', path: '/repos/octo-org/hello/issues/2/comments' });
    expect(sent.json).toEqual({ body: 'Looking into it.' });
    expect(sent.headers.authorization).toBe(`Bearer ${GITHUB_FAKE_TOKENS.valid}`);
    expect(comment).toMatchObject({ id: expect.any(Number), body: 'Looking into it.', author: 'octocat', url: expect.stringContaining('https://github.com/octo-org/hello/issues/2#issuecomment-') });
    const issue = (await runRich('get_issue', { owner: 'octo-org', repo: 'hello', issue_number: 2 })) as { comments: number };
    expect(issue.comments).toBe(1);
  });

  it('add_issue_comment maps an unknown issue to not found', async () => {
    await expectToolError(runRich('add_issue_comment', { owner: 'octo-org', repo: 'hello', issue_number: 999, body: 'Hi' }), 'not_found');
  });

  it('update_issue closes an issue with a reason, sending only the fields given', async () => {
    const issue = await runRich('update_issue', { owner: 'octo-org', repo: 'hello', issue_number: 1, state: 'closed', state_reason: 'not_planned' });
    const sent = lastRequest();
    expect(sent).toMatchObject({ method: 'PATCH', path: '/repos/octo-org/hello/issues/1' });
    expect(sent.json).toEqual({ state: 'closed', state_reason: 'not_planned' });
    expect(issue).toMatchObject({ number: 1, state: 'closed', title: 'Issue 1' });
    expect(rich.issues[0]).toMatchObject({ state: 'closed', state_reason: 'not_planned' });
  });

  it('update_issue replaces title, body, labels and assignees', async () => {
    const issue = await runRich('update_issue', { owner: 'octo-org', repo: 'hello', issue_number: 3, title: 'Renamed', body: 'New body', labels: ['bug', 'p1'], assignees: ['octocat'] });
    expect(lastRequest().json).toEqual({ title: 'Renamed', body: 'New body', labels: ['bug', 'p1'], assignees: ['octocat'] });
    expect(issue).toMatchObject({ number: 3, title: 'Renamed', body: 'New body', labels: ['bug', 'p1'], assignees: ['octocat'], state: 'open' });
  });

  it('update_issue refuses a call that changes nothing, before calling GitHub', async () => {
    const before = rich.requests.length;
    const err = await expectToolError(runRich('update_issue', { owner: 'octo-org', repo: 'hello', issue_number: 3 }), 'invalid_input');
    expect(err.message).toContain('at least one of title');
    expect(rich.requests.length).toBe(before);
  });

  it('search_issues sends the query to /search/issues and returns matches with their repository', async () => {
    const res = (await runRich('search_issues', { q: 'repo:octo-org/hello is:issue label:bug', sort: 'created', order: 'asc', per_page: 2 })) as {
      total_count: number;
      incomplete_results: boolean;
      issues: Array<{ number: number; repository: string; labels: string[]; is_pull_request: boolean }>;
      next_page: number | null;
    };
    const sent = lastRequest();
    expect(sent).toMatchObject({ method: 'GET', path: '/search/issues' });
    expect(sent.query.get('q')).toBe('repo:octo-org/hello is:issue label:bug');
    expect(sent.query.get('sort')).toBe('created');
    expect(sent.query.get('order')).toBe('asc');
    expect(res.total_count).toBe(3);
    expect(res.incomplete_results).toBe(false);
    expect(res.issues.map((i) => i.number)).toEqual([1, 3]);
    expect(res.issues[0]).toMatchObject({ repository: 'octo-org/hello', is_pull_request: false });
    expect(res.issues.every((i) => i.labels.includes('bug'))).toBe(true);
    expect(res.next_page).toBe(2);
  });

  it('search_issues maps GitHub\'s 422 for a repository it cannot search to invalid input', async () => {
    const err = await expectToolError(runRich('search_issues', { q: 'repo:nobody/nothing is:issue' }), 'invalid_input');
    expect(err.status).toBe(422);
  });

  it('get_file_contents decodes a file\'s base64 content to text', async () => {
    const file = await runRich('get_file_contents', { owner: 'octo-org', repo: 'hello', path: 'README.md' });
    expect(lastRequest()).toMatchObject({ method: 'GET', path: '/repos/octo-org/hello/contents/README.md' });
    expect(file).toMatchObject({ type: 'file', path: 'README.md', name: 'README.md', content: '# Hello\n\nWelcome to the repository. Ünïcödé too.\n', content_omitted: null, entries: null, url: 'https://github.com/octo-org/hello/blob/main/README.md' });
  });

  it('get_file_contents keeps the slashes of a nested path and passes the ref', async () => {
    const file = await runRich('get_file_contents', { owner: 'octo-org', repo: 'hello', path: 'src/lib/util.ts', ref: 'main' });
    const sent = lastRequest();
    expect(sent.path).toBe('/repos/octo-org/hello/contents/src/lib/util.ts');
    expect(sent.query.get('ref')).toBe('main');
    expect(file).toMatchObject({ type: 'file', path: 'src/lib/util.ts', content: 'export {};\n' });
  });

  it('get_file_contents lists a directory\'s entries, the root when no path is given', async () => {
    const root = (await runRich('get_file_contents', { owner: 'octo-org', repo: 'hello' })) as { type: string; content: null; entries: Array<{ name: string; type: string }> };
    expect(lastRequest().path).toBe('/repos/octo-org/hello/contents');
    expect(root.type).toBe('dir');
    expect(root.content).toBeNull();
    expect(root.entries.map((e) => [e.name, e.type])).toEqual([['assets', 'dir'], ['README.md', 'file'], ['src', 'dir']]);
    const src = (await runRich('get_file_contents', { owner: 'octo-org', repo: 'hello', path: 'src' })) as { entries: Array<{ path: string; type: string }> };
    expect(src.entries).toEqual([expect.objectContaining({ path: 'src/index.ts', type: 'file' }), expect.objectContaining({ path: 'src/lib', type: 'dir' })]);
  });

  it('get_file_contents returns no content for a binary file', async () => {
    const file = await runRich('get_file_contents', { owner: 'octo-org', repo: 'hello', path: 'assets/logo.png' });
    expect(file).toMatchObject({ type: 'file', content: null, content_omitted: 'binary', size: 8 });
  });

  it('get_file_contents maps a missing path or an unknown ref to not found', async () => {
    await expectToolError(runRich('get_file_contents', { owner: 'octo-org', repo: 'hello', path: 'nope.txt' }), 'not_found');
    const err = await expectToolError(runRich('get_file_contents', { owner: 'octo-org', repo: 'hello', path: 'README.md', ref: 'no-such-branch' }), 'not_found');
    expect(err.message).toContain('No commit found for the ref no-such-branch');
  });

  it('the new tools map 401 to a rejected credential without echoing the token, and rate limits to rate_limited', async () => {
    const err = await expectToolError(runRich('list_repositories', {}, 'ghp_stolen_or_wrong'), 'credential_rejected');
    expect(err.message).not.toContain('ghp_stolen_or_wrong');
    const limited = await expectToolError(runRich('search_issues', { q: 'is:issue crash' }, GITHUB_FAKE_TOKENS.secondaryLimited), 'rate_limited');
    expect(limited.retryAfterSeconds).toBe(30);
    await expectToolError(runRich('get_file_contents', { owner: 'octo-org', repo: 'hello', path: 'README.md' }, GITHUB_FAKE_TOKENS.failing), 'provider_error');
  });

  it('refuses input that fails a new tool\'s schema before calling GitHub', async () => {
    const before = rich.requests.length;
    await expectToolError(runRich('update_issue', { owner: 'octo-org', repo: 'hello', issue_number: 1, state: 'merged' }), 'invalid_input');
    await expectToolError(runRich('add_issue_comment', { owner: 'octo-org', repo: 'hello', issue_number: 1, body: '' }), 'invalid_input');
    await expectToolError(runRich('list_repositories', { per_page: 500 }), 'invalid_input');
    expect(rich.requests.length).toBe(before);
  });
});
