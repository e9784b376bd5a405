import { nextLink, pageOf } from '../../core/link-header';
import { encodePath } from '../../core/provider-http';
import { READ_ONLY, WRITE, arr, inputSchema, int, limit, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { githubRequest } from './client';

interface GithubIssue {
  number: number;
  title: string;
  state: string;
  body: string | null;
  html_url: string;
  user: { login: string } | null;
  labels: Array<{ name: string } | string>;
  assignees: Array<{ login: string }>;
  comments: number;
  created_at: string;
  updated_at: string;
  pull_request?: unknown;
}

const issueSchema = objectSchema(
  {
    number: int('Issue number'),
    title: str('Title'),
    state: str('open or closed'),
    body: { type: ['string', 'null'] },
    url: str('Web URL'),
    author: { type: ['string', 'null'] },
    labels: arr(str('Label'), 'Labels'),
    assignees: arr(str('Login'), 'Assignees'),
    comments: int('Number of comments'),
    is_pull_request: { type: 'boolean' },
    created_at: str('ISO 8601'),
    updated_at: str('ISO 8601'),
  },
  ['number', 'title', 'state', 'url'],
);

export function toIssue(issue: GithubIssue) {
  return {
    number: issue.number,
    title: issue.title,
    state: issue.state,
    body: issue.body,
    url: issue.html_url,
    author: issue.user?.login ?? null,
    labels: issue.labels.map((l) => (typeof l === 'string' ? l : l.name)),
    assignees: issue.assignees.map((a) => a.login),
    comments: issue.comments,
    is_pull_request: issue.pull_request !== undefined,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
  };
}

const repoParams = {
  owner: str('Repository owner (user or organization login)', { minLength: 1 }),
  repo: str('Repository name', { minLength: 1 }),
};

export const listIssues: ToolDefinition<{ owner: string; repo: string; state?: string; labels?: string[]; per_page?: number; page?: number }> = {
  name: 'list_issues',
  description: 'List issues (and pull requests) of a GitHub repository, newest first. Filter by state and labels; page through with next_page.',
  input_schema: inputSchema(
    {
      ...repoParams,
      state: str('open, closed or all', { enum: ['open', 'closed', 'all'], default: 'open' }),
      labels: arr(str('Label name'), 'Only issues with all of these labels'),
      per_page: limit(100, 30),
      page: int('Page to fetch, from next_page of an earlier call', { minimum: 1 }),
    },
    ['owner', 'repo'],
  ),
  output_schema: objectSchema({ issues: arr(issueSchema, 'Issues'), next_page: { type: ['integer', 'null'] } }, ['issues', 'next_page']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await githubRequest<GithubIssue[]>(ctx, {
      path: encodePath('/repos/{owner}/{repo}/issues', input),
      query: { state: input.state ?? 'open', labels: input.labels?.join(','), per_page: input.per_page ?? 30, page: input.page },
    });
    return { issues: res.data.map(toIssue), next_page: pageOf(nextLink(res.headers.get('link'))) };
  },
};

export const getIssue: ToolDefinition<{ owner: string; repo: string; issue_number: number }> = {
  name: 'get_issue',
  description: 'Get one GitHub issue or pull request by number, with its body, labels and assignees.',
  input_schema: inputSchema({ ...repoParams, issue_number: int('Issue number', { minimum: 1 }) }, ['owner', 'repo', 'issue_number']),
  output_schema: issueSchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await githubRequest<GithubIssue>(ctx, { path: encodePath('/repos/{owner}/{repo}/issues/{issue_number}', input) });
    return toIssue(res.data);
  },
};

export const createIssue: ToolDefinition<{ owner: string; repo: string; title: string; body?: string; labels?: string[]; assignees?: string[] }> = {
  name: 'create_issue',
  description: 'Open a new issue in a GitHub repository, optionally with labels and assignees.',
  input_schema: inputSchema(
    {
      ...repoParams,
      title: str('Issue title', { minLength: 1, maxLength: 256 }),
      body: str('Issue body (Markdown)'),
      labels: arr(str('Label name'), 'Labels to apply'),
      assignees: arr(str('Login'), 'Users to assign'),
    },
    ['owner', 'repo', 'title'],
  ),
  output_schema: issueSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    const res = await githubRequest<GithubIssue>(ctx, {
      method: 'POST',
      path: encodePath('/repos/{owner}/{repo}/issues', input),
      json: { title: input.title, body: input.body, labels: input.labels, assignees: input.assignees },
    });
    return toIssue(res.data);
  },
};
