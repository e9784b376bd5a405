import { nextLink, pageOf } from '../../core/link-header';
import { encodePath } from '../../core/provider-http';
import { READ_ONLY, arr, bool, inputSchema, int, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { githubRequest } from './client';
import { nextPageSchema, pageParams, repoParams } from './params';

interface GithubPull {
  number: number;
  title: string;
  state: string;
  draft?: boolean;
  body: string | null;
  html_url: string;
  user: { login: string } | null;
  labels: Array<{ name: string }>;
  assignees: Array<{ login: string }> | null;
  requested_reviewers: Array<{ login: string }> | null;
  head: { ref: string; sha: string; label: string };
  base: { ref: string };
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  merged_at: string | null;
  // Only on GET /pulls/{pull_number}:
  merged?: boolean;
  mergeable?: boolean | null;
  mergeable_state?: string;
  comments?: number;
  review_comments?: number;
  commits?: number;
  additions?: number;
  deletions?: number;
  changed_files?: number;
}

const nullableString = { type: ['string', 'null'] };

const pullProperties = {
  number: int('Pull request number'),
  title: str('Title'),
  state: str('open or closed (a merged pull request is closed with merged_at set)'),
  draft: bool('Whether it is a draft'),
  body: nullableString,
  url: str('Web URL'),
  author: nullableString,
  head: str('Branch with the changes'),
  head_sha: str('Commit SHA at the head branch'),
  base: str('Branch the changes go into'),
  labels: arr(str('Label'), 'Labels'),
  assignees: arr(str('Login'), 'Assignees'),
  requested_reviewers: arr(str('Login'), 'Users asked to review'),
  created_at: str('ISO 8601'),
  updated_at: str('ISO 8601'),
  closed_at: nullableString,
  merged_at: nullableString,
};
const pullRequired = ['number', 'title', 'state', 'url', 'head', 'base'];

const pullSchema = objectSchema(pullProperties, pullRequired);

const pullDetailSchema = objectSchema(
  {
    ...pullProperties,
    merged: bool('Whether it has been merged'),
    mergeable: { type: ['boolean', 'null'], description: 'Whether it can be merged without conflicts; null while GitHub is still computing it' },
    mergeable_state: str('clean, dirty (conflicts), blocked, behind, unstable, unknown...'),
    comments: int('Conversation comments'),
    review_comments: int('Review comments on lines of code'),
    commits: int('Commits'),
    additions: int('Lines added'),
    deletions: int('Lines removed'),
    changed_files: int('Files changed'),
  },
  [...pullRequired, 'merged'],
);

function toPull(pull: GithubPull) {
  return {
    number: pull.number,
    title: pull.title,
    state: pull.state,
    draft: pull.draft ?? false,
    body: pull.body,
    url: pull.html_url,
    author: pull.user?.login ?? null,
    head: pull.head.ref,
    head_sha: pull.head.sha,
    base: pull.base.ref,
    labels: pull.labels.map((l) => l.name),
    assignees: (pull.assignees ?? []).map((a) => a.login),
    requested_reviewers: (pull.requested_reviewers ?? []).map((r) => r.login),
    created_at: pull.created_at,
    updated_at: pull.updated_at,
    closed_at: pull.closed_at,
    merged_at: pull.merged_at,
  };
}

function toPullDetail(pull: GithubPull) {
  return {
    ...toPull(pull),
    merged: pull.merged ?? pull.merged_at !== null,
    mergeable: pull.mergeable ?? null,
    mergeable_state: pull.mergeable_state ?? 'unknown',
    comments: pull.comments ?? 0,
    review_comments: pull.review_comments ?? 0,
    commits: pull.commits ?? 0,
    additions: pull.additions ?? 0,
    deletions: pull.deletions ?? 0,
    changed_files: pull.changed_files ?? 0,
  };
}

type ListPullsInput = {
  owner: string;
  repo: string;
  state?: 'open' | 'closed' | 'all';
  head?: string;
  base?: string;
  sort?: 'created' | 'updated' | 'popularity' | 'long-running';
  direction?: 'asc' | 'desc';
  per_page?: number;
  page?: number;
};

export const listPullRequests: ToolDefinition<ListPullsInput> = {
  name: 'list_pull_requests',
  description: 'List pull requests of a GitHub repository, newest first. Filter by state, head branch (user:branch) and base branch; page through with next_page.',
  input_schema: inputSchema(
    {
      ...repoParams,
      state: str('open, closed or all', { enum: ['open', 'closed', 'all'], default: 'open' }),
      head: str('Only pull requests from this branch, as user:branch or organization:branch', { minLength: 1 }),
      base: str('Only pull requests into this branch', { minLength: 1 }),
      sort: str('created, updated, popularity (comments) or long-running', { enum: ['created', 'updated', 'popularity', 'long-running'] }),
      direction: str('asc or desc (default desc)', { enum: ['asc', 'desc'] }),
      ...pageParams,
    },
    ['owner', 'repo'],
  ),
  output_schema: objectSchema({ pull_requests: arr(pullSchema, 'Pull requests'), next_page: nextPageSchema }, ['pull_requests', 'next_page']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await githubRequest<GithubPull[]>(ctx, {
      path: encodePath('/repos/{owner}/{repo}/pulls', input),
      query: { state: input.state ?? 'open', head: input.head, base: input.base, sort: input.sort, direction: input.direction, per_page: input.per_page ?? 30, page: input.page },
    });
    return { pull_requests: res.data.map(toPull), next_page: pageOf(nextLink(res.headers.get('link'))) };
  },
};

export const getPullRequest: ToolDefinition<{ owner: string; repo: string; pull_number: number }> = {
  name: 'get_pull_request',
  description: 'Get one GitHub pull request by number: branches, merge state (merged, mergeable), review requests and the size of the change.',
  input_schema: inputSchema({ ...repoParams, pull_number: int('Pull request number', { minimum: 1 }) }, ['owner', 'repo', 'pull_number']),
  output_schema: pullDetailSchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await githubRequest<GithubPull>(ctx, { path: encodePath('/repos/{owner}/{repo}/pulls/{pull_number}', input) });
    return toPullDetail(res.data);
  },
};
