import { nextLink, pageOf } from '../../core/link-header';
import { encodePath } from '../../core/provider-http';
import { IDEMPOTENT_WRITE, READ_ONLY, WRITE, arr, inputSchema, int, limit, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { ToolDefinition } from '../../core/types';
import { githubRequest } from './client';
import { nextPageSchema, pageParams, repoParams } from './params';

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

type UpdateIssueInput = {
  owner: string;
  repo: string;
  issue_number: number;
  title?: string;
  body?: string;
  state?: 'open' | 'closed';
  state_reason?: 'completed' | 'not_planned' | 'reopened';
  labels?: string[];
  assignees?: string[];
};

const UPDATABLE = ['title', 'body', 'state', 'state_reason', 'labels', 'assignees'] as const;

/**
 * Marked idempotent rather than destructive: it sets fields to the values given, and GitHub keeps the
 * edit history of titles and bodies and the label, assignee and state events in the issue's timeline.
 */
export const updateIssue: ToolDefinition<UpdateIssueInput> = {
  name: 'update_issue',
  description:
    'Change a GitHub issue or pull request: title, body, state (close with state "closed" and an optional state_reason, reopen with "open"), labels and assignees. labels and assignees replace the current lists; fields left out stay as they are.',
  input_schema: inputSchema(
    {
      ...repoParams,
      issue_number: int('Issue or pull request number', { minimum: 1 }),
      title: str('New title', { minLength: 1, maxLength: 256 }),
      body: str('New body (Markdown); replaces the current body'),
      state: str('open or closed', { enum: ['open', 'closed'] }),
      state_reason: str('Why the state changed: completed or not_planned when closing, reopened when reopening', { enum: ['completed', 'not_planned', 'reopened'] }),
      labels: arr(str('Label name'), 'The complete list of labels the issue should have (an empty list removes all)'),
      assignees: arr(str('Login'), 'The complete list of assignees the issue should have (an empty list removes all)'),
    },
    ['owner', 'repo', 'issue_number'],
  ),
  output_schema: issueSchema,
  annotations: IDEMPOTENT_WRITE,
  async execute(ctx, input) {
    const changes: Record<string, unknown> = {};
    for (const field of UPDATABLE) if (input[field] !== undefined) changes[field] = input[field];
    if (Object.keys(changes).length === 0) throw new ToolError('invalid_input', `Nothing to change: give at least one of ${UPDATABLE.join(', ')}.`);
    const res = await githubRequest<GithubIssue>(ctx, { method: 'PATCH', path: encodePath('/repos/{owner}/{repo}/issues/{issue_number}', input), json: changes });
    return toIssue(res.data);
  },
};

/** `https://api.github.com/repos/octo-org/hello` -> `octo-org/hello`. */
function repositoryOf(repositoryUrl: string | undefined): string | null {
  const match = /\/repos\/([^/]+\/[^/]+)$/.exec(repositoryUrl ?? '');
  return match?.[1] ?? null;
}

const searchItemSchema = objectSchema(
  { ...(issueSchema.properties as Record<string, unknown>), repository: { type: ['string', 'null'], description: 'owner/name of the repository' } },
  ['number', 'title', 'state', 'url', 'repository'],
);

export const searchIssues: ToolDefinition<{ q: string; sort?: string; order?: 'asc' | 'desc'; per_page?: number; page?: number }> = {
  name: 'search_issues',
  description:
    'Search issues and pull requests across GitHub with GitHub\'s search syntax, e.g. "repo:octo-org/hello is:issue is:open label:bug crash". Include is:issue or is:pr (GitHub App tokens require one). Only the first 1000 results can be paged through.',
  input_schema: inputSchema(
    {
      q: str('Search query: keywords and qualifiers such as repo:, org:, is:issue, is:pr, is:open, label:, author:, assignee:', { minLength: 1, maxLength: 256 }),
      sort: str('Sort by this instead of best match', { enum: ['comments', 'reactions', 'interactions', 'created', 'updated'] }),
      order: str('asc or desc (default desc); only with sort', { enum: ['asc', 'desc'] }),
      ...pageParams,
    },
    ['q'],
  ),
  output_schema: objectSchema(
    {
      total_count: int('How many issues match in all'),
      incomplete_results: { type: 'boolean', description: 'True when GitHub stopped the search early (a timeout); results may be missing' },
      issues: arr(searchItemSchema, 'Matching issues and pull requests'),
      next_page: nextPageSchema,
    },
    ['total_count', 'incomplete_results', 'issues', 'next_page'],
  ),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await githubRequest<{ total_count: number; incomplete_results: boolean; items: Array<GithubIssue & { repository_url?: string }> }>(ctx, {
      path: '/search/issues',
      query: { q: input.q, sort: input.sort, order: input.order, per_page: input.per_page ?? 30, page: input.page },
    });
    return {
      total_count: res.data.total_count,
      incomplete_results: res.data.incomplete_results,
      issues: res.data.items.map((item) => ({ ...toIssue(item), repository: repositoryOf(item.repository_url) })),
      next_page: pageOf(nextLink(res.headers.get('link'))),
    };
  },
};
