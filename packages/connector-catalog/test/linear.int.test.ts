import { LINEAR_FAKE_TOKENS, linearFakeId, startFakeLinear } from '@patchbay/provider-fakes';
import { findTool, getBuiltinConnector } from '../src/catalog';
import type { InjectedCredential } from '../src/core/types';
import { validateToolArguments } from '../src/core/validate';
import { expectToolError, runTool } from './run-tool';

let fake: Awaited<ReturnType<typeof startFakeLinear>>;
const apiKey = (key: string): InjectedCredential => ({ auth_type: 'api_key', values: { api_key: key } });
const oauth = (token: string): InjectedCredential => ({ auth_type: 'oauth2', values: {}, access_token: token });
/** Runs a tool and checks its output against the tool's output_schema. */
async function run(tool: string, input: unknown, credential: InjectedCredential = apiKey(LINEAR_FAKE_TOKENS.apiKey)): Promise<unknown> {
  const output = await runTool('linear', tool, { input }, { credential, baseUrl: fake.url });
  expect(validateToolArguments({ input_schema: findTool(getBuiltinConnector('linear')!, tool)!.output_schema }, output)).toEqual([]);
  return output;
}
const lastRequest = () => fake.requests.at(-1)!;
const sent = () => lastRequest().json as { query: string; variables: Record<string, unknown> };

interface Issue {
  id: string;
  identifier: string;
  title: string;
  state: string;
  state_type: string;
  team: string;
  assignee: { email: string } | null;
  labels: string[];
}

beforeAll(async () => {
  fake = await startFakeLinear({ issues: 30 });
});
afterAll(async () => {
  await fake.close();
});

describe('linear connector', () => {
  it('list_issues pages through issues with pageInfo.endCursor, posting GraphQL with the personal API key as a bare Authorization header', async () => {
    const first = (await run('list_issues', { first: 20 })) as { issues: Issue[]; next_cursor: string | null };
    expect(first.issues).toHaveLength(20);
    expect(first.next_cursor).toEqual(expect.any(String));
    const request = lastRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/graphql');
    expect(request.headers.authorization).toBe(LINEAR_FAKE_TOKENS.apiKey);
    expect(request.headers['content-type']).toContain('application/json');
    expect(sent().query).toContain('issues(first: $first, after: $after, filter: $filter, orderBy: $orderBy)');
    expect(sent().variables).toEqual({ first: 20, orderBy: 'updatedAt' });

    const second = (await run('list_issues', { first: 20, after: first.next_cursor })) as { issues: Issue[]; next_cursor: string | null };
    expect(second.issues).toHaveLength(10);
    expect(second.next_cursor).toBeNull();
    expect(sent().variables.after).toBe(first.next_cursor);
    const all = [...first.issues, ...second.issues].map((i) => i.identifier);
    expect(new Set(all).size).toBe(30);
    expect(first.issues[0]).toMatchObject({ identifier: 'ENG-30', team: 'ENG', url: expect.stringContaining('ENG-30') });
  });

  it('list_issues turns team key, state name, assignee and title text into Linear\'s IssueFilter', async () => {
    const res = (await run('list_issues', { team: 'eng', state: 'in progress', assignee: 'ada@example.com', title_contains: 'issue 2', first: 100 })) as { issues: Issue[] };
    expect(sent().variables.filter).toEqual({
      team: { key: { eqIgnoreCase: 'eng' } },
      state: { name: { eqIgnoreCase: 'in progress' } },
      assignee: { email: { eqIgnoreCase: 'ada@example.com' } },
      title: { containsIgnoreCase: 'issue 2' },
    });
    expect(res.issues.length).toBeGreaterThan(0);
    for (const issue of res.issues) {
      expect(issue).toMatchObject({ team: 'ENG', state: 'In Progress', state_type: 'started', assignee: { email: 'ada@example.com' } });
      expect(issue.title.toLowerCase()).toContain('issue 2');
    }
    const mine = (await run('list_issues', { assignee: 'me', state_type: 'unstarted', first: 100 })) as { issues: Issue[] };
    expect(sent().variables.filter).toEqual({ state: { type: { eq: 'unstarted' } }, assignee: { isMe: { eq: true } } });
    expect(mine.issues.every((i) => i.assignee?.email === 'ada@example.com' && i.state_type === 'unstarted')).toBe(true);
  });

  it('get_issue fetches an issue by its key, with its comments, using an OAuth token as a bearer header', async () => {
    const issue = (await run('get_issue', { id: 'ENG-3' }, oauth(LINEAR_FAKE_TOKENS.oauth))) as Issue & { comments: unknown[]; priority: number; priority_label: string };
    expect(lastRequest().headers.authorization).toBe(`Bearer ${LINEAR_FAKE_TOKENS.oauth}`);
    expect(sent().variables).toEqual({ id: 'ENG-3' });
    expect(sent().query).toContain('issue(id: $id)');
    expect(issue).toMatchObject({ id: linearFakeId(6, 3), identifier: 'ENG-3', title: 'Issue 3', state: 'In Progress', labels: ['Bug'], priority: 2, priority_label: 'High', comments: [] });
  });

  it('create_issue sends IssueCreateInput with the team ID and optional fields', async () => {
    const eng = fake.teams[0]!;
    const todo = eng.states.find((s) => s.name === 'Todo')!;
    const issue = (await run('create_issue', {
      team_id: eng.id,
      title: 'Crash on start',
      description: 'Steps to reproduce...',
      priority: 1,
      assignee_id: fake.users[1]!.id,
      state_id: todo.id,
      label_ids: [fake.labels[0]!.id],
      due_date: '2026-04-01',
    })) as Issue & { priority_label: string; due_date: string; description: string };
    expect(sent().query).toContain('issueCreate(input: $input)');
    expect(sent().variables).toEqual({
      input: { teamId: eng.id, title: 'Crash on start', description: 'Steps to reproduce...', priority: 1, assigneeId: fake.users[1]!.id, stateId: todo.id, labelIds: [fake.labels[0]!.id], dueDate: '2026-04-01' },
    });
    expect(issue).toMatchObject({ identifier: 'ENG-31', title: 'Crash on start', state: 'Todo', priority_label: 'Urgent', labels: ['Bug'], assignee: { email: 'linus@example.com' }, due_date: '2026-04-01' });
  });

  it('update_issue changes only the fields given and can unassign', async () => {
    const done = fake.teams[0]!.states.find((s) => s.name === 'Done')!;
    const issue = (await run('update_issue', { id: 'ENG-1', state_id: done.id, assignee_id: null, title: 'Renamed' })) as Issue;
    expect(sent().query).toContain('issueUpdate(id: $id, input: $input)');
    expect(sent().variables).toEqual({ id: 'ENG-1', input: { title: 'Renamed', assigneeId: null, stateId: done.id } });
    expect(issue).toMatchObject({ identifier: 'ENG-1', title: 'Renamed', state: 'Done', state_type: 'completed', assignee: null });
    expect(fake.issues[0]!.description).toBe('Description of issue 1');
  });

  it('update_issue with nothing to change is refused before calling Linear', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('update_issue', { id: 'ENG-1' }), 'invalid_input');
    expect(err.message).toContain('at least one field');
    expect(fake.requests.length).toBe(before);
  });

  it('add_comment resolves an issue key to its ID, then creates the comment', async () => {
    const comment = (await run('add_comment', { issue_id: 'ENG-2', body: 'Looking into it.' })) as { id: string; body: string; author: string; issue: string };
    const [lookup, create] = fake.requests.slice(-2).map((r) => r.json as { query: string; variables: Record<string, unknown> });
    expect(lookup!.variables).toEqual({ id: 'ENG-2' });
    expect(create!.query).toContain('commentCreate(input: $input)');
    expect(create!.variables).toEqual({ input: { issueId: linearFakeId(6, 2), body: 'Looking into it.' } });
    expect(comment).toMatchObject({ body: 'Looking into it.', author: 'Ada Lovelace', issue: 'ENG-2' });
    const issue = (await run('get_issue', { id: 'ENG-2' })) as { comments: Array<{ body: string }> };
    expect(issue.comments.map((c) => c.body)).toEqual(['Looking into it.']);
  });

  it('list_teams returns team IDs and keys, paged with a cursor', async () => {
    const first = (await run('list_teams', { first: 1 })) as { teams: Array<{ id: string; key: string; name: string }>; next_cursor: string | null };
    expect(sent().query).toContain('teams(first: $first, after: $after)');
    expect(first.teams).toEqual([{ id: fake.teams[0]!.id, key: 'ENG', name: 'Engineering', description: 'Builds the product' }]);
    const second = (await run('list_teams', { first: 1, after: first.next_cursor })) as { teams: Array<{ key: string }>; next_cursor: string | null };
    expect(second.teams.map((t) => t.key)).toEqual(['DES']);
    expect(second.next_cursor).toBeNull();
  });

  it('refuses arguments that fail the input schema before calling Linear', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('create_issue', { title: 'No team', priority: 7 }), 'invalid_input');
    expect(err.message).toContain('input.team_id is required');
    expect(err.message).toContain('input.priority must be <= 4');
    await expectToolError(run('list_issues', { state_type: 'doing' }), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('maps Linear\'s HTTP 400 AUTHENTICATION_ERROR to a rejected credential, without echoing the key', async () => {
    const err = await expectToolError(run('get_issue', { id: 'ENG-1' }, apiKey('lin_api_wrong_key')), 'credential_rejected');
    expect(err.status).toBe(400);
    expect(err.message).toContain('reconnect Linear');
    expect(err.message).not.toContain('lin_api_wrong_key');
    // A personal key must not carry the Bearer prefix.
    await expectToolError(run('get_issue', { id: 'ENG-1' }, oauth(LINEAR_FAKE_TOKENS.apiKey)), 'credential_rejected');
  });

  it('maps "Entity not found" (HTTP 200 with a GraphQL error) to not found', async () => {
    const err = await expectToolError(run('get_issue', { id: 'ENG-999' }), 'not_found');
    expect(err.status).toBe(200);
    expect(err.message).toContain('Entity not found: Issue');
    await expectToolError(run('add_comment', { issue_id: 'ENG-999', body: 'x' }), 'not_found');
  });

  it('maps Linear\'s argument validation errors to invalid input with its message', async () => {
    const err = await expectToolError(run('create_issue', { team_id: 'ENG', title: 'Wrong team ID' }), 'invalid_input');
    expect(err.message).toContain('teamId must be a UUID');
  });

  it('maps RATELIMITED to rate_limited, under HTTP 400 with the reset header and under HTTP 429 with Retry-After', async () => {
    const budget = await expectToolError(run('list_teams', {}, apiKey(LINEAR_FAKE_TOKENS.rateLimited)), 'rate_limited');
    expect(budget.status).toBe(400);
    expect(budget.retryAfterSeconds).toBeGreaterThan(0);
    expect(budget.retryAfterSeconds).toBeLessThanOrEqual(60);
    const throttled = await expectToolError(run('list_teams', {}, apiKey(LINEAR_FAKE_TOKENS.throttled)), 'rate_limited');
    expect(throttled.status).toBe(429);
    expect(throttled.retryAfterSeconds).toBe(30);
    expect(throttled.message).toContain('retry after 30 s');
  });

  it('maps a 5xx to a provider error', async () => {
    const err = await expectToolError(run('list_teams', {}, apiKey(LINEAR_FAKE_TOKENS.failing)), 'provider_error');
    expect(err.status).toBe(500);
  });
});
