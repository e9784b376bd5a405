import { JIRA_FAKE_CREDENTIALS, JIRA_FAKE_USERS, startFakeJira } from '@patchbay/provider-fakes';
import { expectOutputMatchesSchema } from './output-schema';
import { expectToolError, runTool } from './run-tool';

let fake: Awaited<ReturnType<typeof startFakeJira>>;
const C = JIRA_FAKE_CREDENTIALS;
const tokenCred = (apiToken: string = C.apiToken, email: string = C.email) => ({ auth_type: 'api_key' as const, values: { site_url: fake.url, email, api_token: apiToken } });
// The base URL argument is the deployment override; API-token credentials carry their own site_url, which wins.
const run = async (tool: string, input: unknown, credential = tokenCred()) => {
  const output = await runTool('jira', tool, { input }, { credential, baseUrl: 'http://unused.invalid' });
  expectOutputMatchesSchema('jira', tool, output);
  return output;
};
const basic = (token: string = C.apiToken) => `Basic ${Buffer.from(`${C.email}:${token}`).toString('base64')}`;
const last = () => fake.requests.at(-1)!;

type Issue = { key: string; summary: string; status: string; description?: string | null; comments?: Array<{ body: string }> };

beforeAll(async () => {
  fake = await startFakeJira({ issues: 7 });
});
afterAll(async () => {
  await fake.close();
});

describe('jira connector', () => {
  it('search_issues posts the JQL to /rest/api/3/search/jql with Basic email:token auth and pages with nextPageToken', async () => {
    const first = (await run('search_issues', { jql: 'project = ENG ORDER BY created ASC', max_results: 3 })) as { issues: Issue[]; next_page_token: string | null };
    expect(first.issues.map((i) => i.key)).toEqual(['ENG-1', 'ENG-2', 'ENG-3']);
    expect(first.issues[0]).toMatchObject({ id: '10100', key: 'ENG-1', url: `${fake.url}/browse/ENG-1`, summary: 'Issue 1', status: 'To Do', status_category: 'new', issue_type: 'Bug', project_key: 'ENG', assignee: { account_id: JIRA_FAKE_USERS.me.accountId, display_name: 'Agent Smith' }, labels: ['backend'] });
    expect(first.next_page_token).toEqual(expect.any(String));
    const sent = last();
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/rest/api/3/search/jql');
    expect(sent.headers.authorization).toBe(basic());
    expect(sent.json).toMatchObject({ jql: 'project = ENG ORDER BY created ASC', maxResults: 3, fields: expect.arrayContaining(['summary', 'status', 'assignee']) });

    const second = (await run('search_issues', { jql: 'project = ENG ORDER BY created ASC', max_results: 3, next_page_token: first.next_page_token })) as { issues: Issue[]; next_page_token: string | null };
    expect(second.issues.map((i) => i.key)).toEqual(['ENG-4', 'ENG-5', 'ENG-6']);
    expect(last().json).toMatchObject({ nextPageToken: first.next_page_token });
    const third = (await run('search_issues', { jql: 'project = ENG ORDER BY created ASC', max_results: 3, next_page_token: second.next_page_token })) as { issues: Issue[]; next_page_token: string | null };
    expect(third.issues.map((i) => i.key)).toEqual(['ENG-7']);
    expect(third.next_page_token).toBeNull();
  });

  it('search_issues reports JQL errors as invalid input with Jira\'s message', async () => {
    const unbounded = await expectToolError(run('search_issues', { jql: 'ORDER BY created DESC' }), 'invalid_input');
    expect(unbounded.message).toContain('Unbounded JQL queries are not allowed');
    const field = await expectToolError(run('search_issues', { jql: 'colour = red' }), 'invalid_input');
    expect(field.message).toContain("Field 'colour' does not exist");
  });

  it('get_issue returns the description and comments converted from Atlassian Document Format to text', async () => {
    const issue = (await run('get_issue', { issue_key: 'ENG-2' })) as Issue;
    expect(issue).toMatchObject({ key: 'ENG-2', summary: 'Issue 2', status: 'In Progress', status_category: 'indeterminate', assignee: null, description: 'Description of ENG-2', comments: [] });
    expect(last().method).toBe('GET');
    expect(last().path).toBe('/rest/api/3/issue/ENG-2');
    expect(last().query.get('fields')?.split(',')).toEqual(expect.arrayContaining(['description', 'comment', 'summary']));
  });

  it('create_issue sends the project key, issue type and the description as an ADF document', async () => {
    const created = (await run('create_issue', { project_key: 'ENG', issue_type: 'Bug', summary: 'Login fails', description: 'Steps:\n1. open\n\nExpected: works', labels: ['auth'], assignee_account_id: JIRA_FAKE_USERS.alana.accountId, priority: 'High' })) as { key: string; url: string };
    expect(created).toEqual({ id: expect.any(String), key: 'ENG-8', url: `${fake.url}/browse/ENG-8` });
    expect(last().method).toBe('POST');
    expect(last().path).toBe('/rest/api/3/issue');
    expect(last().json).toEqual({
      fields: {
        project: { key: 'ENG' },
        issuetype: { name: 'Bug' },
        summary: 'Login fails',
        description: {
          type: 'doc',
          version: 1,
          content: [
            { type: 'paragraph', content: [{ type: 'text', text: 'Steps:' }, { type: 'hardBreak' }, { type: 'text', text: '1. open' }] },
            { type: 'paragraph', content: [{ type: 'text', text: 'Expected: works' }] },
          ],
        },
        labels: ['auth'],
        assignee: { accountId: JIRA_FAKE_USERS.alana.accountId },
        priority: { name: 'High' },
      },
    });
    const read = (await run('get_issue', { issue_key: 'ENG-8' })) as Issue;
    expect(read.description).toBe('Steps:\n1. open\n\nExpected: works');
  });

  it('create_issue maps Jira\'s per-field errors to invalid input naming the fields', async () => {
    const err = await expectToolError(run('create_issue', { project_key: 'NOPE', issue_type: 'Spaceship', summary: 'x' }), 'invalid_input');
    expect(err.status).toBe(400);
    expect(err.message).toContain('project: valid project is required');
    expect(err.message).toContain('issuetype: Specify a valid issue type');
  });

  it('update_issue PUTs only the given fields and can unassign with null', async () => {
    const res = await run('update_issue', { issue_key: 'ENG-1', summary: 'Renamed', labels: ['backend', 'p1'], assignee_account_id: null, due_date: '2026-04-01' });
    expect(res).toEqual({ key: 'ENG-1', updated_fields: ['summary', 'labels', 'assignee', 'duedate'] });
    expect(last().method).toBe('PUT');
    expect(last().path).toBe('/rest/api/3/issue/ENG-1');
    expect(last().json).toEqual({ fields: { summary: 'Renamed', labels: ['backend', 'p1'], assignee: { accountId: null }, duedate: '2026-04-01' } });
    expect(fake.issues.find((i) => i.key === 'ENG-1')).toMatchObject({ summary: 'Renamed', assignee: null, duedate: '2026-04-01' });
  });

  it('update_issue with nothing to change is refused before calling Jira', async () => {
    const before = fake.requests.length;
    await expectToolError(run('update_issue', { issue_key: 'ENG-1' }), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('maps 403 (turning notifications off without admin rights) to forbidden', async () => {
    const err = await expectToolError(run('update_issue', { issue_key: 'ENG-1', summary: 'Quiet', notify_users: false }), 'forbidden');
    expect(last().query.get('notifyUsers')).toBe('false');
    expect(err.message).toContain('admin');
  });

  it('add_comment posts an ADF body and returns the comment as text', async () => {
    const comment = await run('add_comment', { issue_key: 'ENG-3', body: 'Looks good to me' });
    expect(comment).toEqual({ id: expect.any(String), author: { account_id: JIRA_FAKE_USERS.me.accountId, display_name: 'Agent Smith' }, body: 'Looks good to me', created: expect.any(String) });
    expect(last().path).toBe('/rest/api/3/issue/ENG-3/comment');
    expect(last().json).toEqual({ body: { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Looks good to me' }] }] } });
  });

  it('transition_issue reads the transitions, then posts the one whose name or target status matches, with a comment', async () => {
    const res = await run('transition_issue', { issue_key: 'ENG-4', transition: 'in progress', comment: 'Picking this up' });
    expect(res).toMatchObject({ key: 'ENG-4', transition: { id: '11', name: 'Start Progress' }, status: 'In Progress' });
    const [list, post] = fake.requests.slice(-2);
    expect(list).toMatchObject({ method: 'GET', path: '/rest/api/3/issue/ENG-4/transitions' });
    expect(post).toMatchObject({ method: 'POST', path: '/rest/api/3/issue/ENG-4/transitions' });
    expect(post!.json).toEqual({ transition: { id: '11' }, update: { comment: [{ add: { body: { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Picking this up' }] }] } } }] } });
    expect(fake.issues.find((i) => i.key === 'ENG-4')).toMatchObject({ status: 'In Progress' });
  });

  it('transition_issue lists the available transitions when none matches, without changing the issue', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('transition_issue', { issue_key: 'ENG-4', transition: 'Archive' }), 'invalid_input');
    expect(err.message).toContain('Stop Progress (id 21, to To Do)');
    expect(err.message).toContain('Done (id 31, to Done)');
    expect(fake.requests.length).toBe(before + 1);
  });

  it('list_projects pages with startAt and isLast', async () => {
    const first = (await run('list_projects', { max_results: 2 })) as { projects: Array<{ key: string }>; total: number; next_start_at: number | null };
    expect(first.projects).toEqual([
      { id: '10000', key: 'ENG', name: 'Engineering', type: 'software', style: 'next-gen' },
      { id: '10001', key: 'MKT', name: 'Marketing', type: 'business', style: 'classic' },
    ]);
    expect(first).toMatchObject({ total: 3, next_start_at: 2 });
    expect(last()).toMatchObject({ method: 'GET', path: '/rest/api/3/project/search' });
    expect(last().query.get('maxResults')).toBe('2');
    expect(last().query.get('startAt')).toBe('0');
    const second = (await run('list_projects', { max_results: 2, start_at: first.next_start_at })) as { projects: Array<{ key: string }>; next_start_at: number | null };
    expect(second.projects.map((p) => p.key)).toEqual(['OPS']);
    expect(second.next_start_at).toBeNull();
    const filtered = (await run('list_projects', { query: 'mark' })) as { projects: Array<{ key: string }> };
    expect(filtered.projects.map((p) => p.key)).toEqual(['MKT']);
    expect(last().query.get('query')).toBe('mark');
  });

  it('with OAuth, calls go to api.atlassian.com/ex/jira/{cloud_id} with the bearer token', async () => {
    const oauth = { auth_type: 'oauth2' as const, values: { cloud_id: C.cloudId }, access_token: C.oauthAccessToken };
    const issue = (await runTool('jira', 'get_issue', { input: { issue_key: 'ENG-5' } }, { credential: oauth, baseUrl: `${fake.url}/ex/jira` })) as Issue;
    expect(issue).toMatchObject({ key: 'ENG-5', summary: 'Issue 5' });
    expect(last().path).toBe(`/ex/jira/${C.cloudId}/rest/api/3/issue/ENG-5`);
    expect(last().headers.authorization).toBe(`Bearer ${C.oauthAccessToken}`);
    const wrongSite = { ...oauth, values: { cloud_id: 'another-site' } };
    await expectToolError(runTool('jira', 'get_issue', { input: { issue_key: 'ENG-5' } }, { credential: wrongSite, baseUrl: `${fake.url}/ex/jira` }), 'credential_rejected');
  });

  it('refuses arguments that fail the input schema before calling Jira', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('create_issue', { project_key: 'ENG', summary: '', labels: ['has space'], colour: 'red' }), 'invalid_input');
    expect(err.message).toContain('input.summary must NOT have fewer than 1 characters');
    expect(err.message).toContain('unknown property "colour"');
    expect(err.message).toContain('input.labels.0 must match pattern');
    expect(fake.requests.length).toBe(before);
  });

  it('maps 401 to a rejected credential, without echoing the token', async () => {
    const err = await expectToolError(run('get_issue', { issue_key: 'ENG-1' }, tokenCred('wrong-token-123')), 'credential_rejected');
    expect(err.message).toContain('Client must be authenticated');
    expect(err.message).toContain('reconnect Jira');
    expect(err.message).not.toContain('wrong-token-123');
    expect(err.message).not.toContain(Buffer.from(`${C.email}:wrong-token-123`).toString('base64'));
  });

  it('maps 404 to not found with Jira\'s message', async () => {
    const err = await expectToolError(run('get_issue', { issue_key: 'ENG-999' }), 'not_found');
    expect(err.status).toBe(404);
    expect(err.message).toContain('Issue does not exist or you do not have permission to see it.');
  });

  it('maps 429 to rate_limited with Retry-After', async () => {
    const err = await expectToolError(run('search_issues', { jql: 'project = ENG' }, tokenCred(C.rateLimitedToken)), 'rate_limited');
    expect(err.retryAfterSeconds).toBe(17);
    expect(err.message).toContain('retry after 17 s');
  });

  it('maps 5xx to a provider error and a silent Jira to a timeout', async () => {
    await expectToolError(run('list_projects', {}, tokenCred(C.failingToken)), 'provider_error');
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      const credential = { auth_type: 'api_key' as const, values: { site_url: `http://127.0.0.1:${port}`, email: C.email, api_token: C.apiToken } };
      await expectToolError(runTool('jira', 'get_issue', { input: { issue_key: 'ENG-1' } }, { credential, baseUrl: 'http://unused.invalid', limits: { timeoutMs: 200 } }), 'timeout');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
