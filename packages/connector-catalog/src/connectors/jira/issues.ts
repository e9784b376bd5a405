import { encodePath } from '../../core/provider-http';
import { IDEMPOTENT_WRITE, READ_ONLY, WRITE, arr, bool, inputSchema, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { JsonSchema, ToolDefinition } from '../../core/types';
import { adfToText, textToAdf, type AdfNode } from './adf';
import { jiraRequest } from './client';

interface JiraUser {
  accountId: string;
  displayName?: string;
}

interface JiraComment {
  id: string;
  author?: JiraUser;
  body?: AdfNode | string | null;
  created: string;
  updated?: string;
}

export interface JiraIssue {
  id: string;
  key: string;
  self: string;
  fields: {
    summary?: string;
    description?: AdfNode | string | null;
    status?: { name: string; statusCategory?: { key: string } };
    issuetype?: { name: string };
    project?: { key: string; name?: string };
    priority?: { name: string } | null;
    assignee?: JiraUser | null;
    reporter?: JiraUser | null;
    labels?: string[];
    parent?: { key: string } | null;
    duedate?: string | null;
    created?: string;
    updated?: string;
    comment?: { comments: JiraComment[]; total: number };
  };
}

/** Fields a search returns: enough to pick an issue, without the (long) description and comments. */
export const SEARCH_FIELDS = ['summary', 'status', 'issuetype', 'project', 'priority', 'assignee', 'reporter', 'labels', 'parent', 'duedate', 'created', 'updated'];
const DETAIL_FIELDS = [...SEARCH_FIELDS, 'description', 'comment'];

const nullableStr = (description: string): JsonSchema => ({ type: ['string', 'null'], description });
const userSchema: JsonSchema = { type: ['object', 'null'], properties: { account_id: str('Atlassian account ID'), display_name: nullableStr('Name') } };

export const commentSchema = objectSchema(
  { id: str('Comment ID'), author: userSchema, body: str('Comment text'), created: str('ISO 8601') },
  ['id', 'body'],
);

export const issueSchema = objectSchema(
  {
    id: str('Issue ID'),
    key: str('Issue key, e.g. ENG-42'),
    url: nullableStr('Link to the issue in the Jira web app'),
    summary: str('Summary'),
    status: nullableStr('Workflow status, e.g. In Progress'),
    status_category: nullableStr('new, indeterminate or done'),
    issue_type: nullableStr('Task, Bug, Story...'),
    project_key: nullableStr('Project key'),
    priority: nullableStr('Priority name'),
    assignee: userSchema,
    reporter: userSchema,
    labels: arr(str('Label'), 'Labels'),
    parent_key: nullableStr('Parent issue key (epic or parent task)'),
    due_date: nullableStr('YYYY-MM-DD'),
    created: nullableStr('ISO 8601'),
    updated: nullableStr('ISO 8601'),
    description: nullableStr('Description as plain text (only from get_issue)'),
    comments: arr(commentSchema, 'Comments, oldest first (only from get_issue)'),
  },
  ['id', 'key', 'summary', 'labels'],
);

const toUser = (u: JiraUser | null | undefined) => (u ? { account_id: u.accountId, display_name: u.displayName ?? null } : null);

export function toComment(c: JiraComment) {
  return { id: c.id, author: toUser(c.author), body: adfToText(c.body) ?? '', created: c.created };
}

/** The web link: `self` is the API URL on the same site, except through the OAuth gateway, which has no browse page. */
export function browseUrl(self: string, key: string): string | null {
  try {
    const origin = new URL(self).origin;
    return origin === 'https://api.atlassian.com' ? null : `${origin}/browse/${key}`;
  } catch {
    return null;
  }
}

export function toIssue(issue: JiraIssue, detail = false) {
  const f = issue.fields;
  return {
    id: issue.id,
    key: issue.key,
    url: browseUrl(issue.self, issue.key),
    summary: f.summary ?? '',
    status: f.status?.name ?? null,
    status_category: f.status?.statusCategory?.key ?? null,
    issue_type: f.issuetype?.name ?? null,
    project_key: f.project?.key ?? null,
    priority: f.priority?.name ?? null,
    assignee: toUser(f.assignee),
    reporter: toUser(f.reporter),
    labels: f.labels ?? [],
    parent_key: f.parent?.key ?? null,
    due_date: f.duedate ?? null,
    created: f.created ?? null,
    updated: f.updated ?? null,
    ...(detail ? { description: adfToText(f.description), comments: (f.comment?.comments ?? []).map(toComment) } : {}),
  };
}

export const issueKeyParam = str('Issue key (ENG-42) or numeric issue ID', { minLength: 1, pattern: '^[^/?#]+$' });

export const searchIssues: ToolDefinition<{ jql: string; max_results?: number; next_page_token?: string }> = {
  name: 'search_issues',
  description:
    'Search Jira issues with JQL, e.g. `project = ENG AND status != Done ORDER BY updated DESC` or `assignee = currentUser() AND resolution = Unresolved`. The query must restrict the search (a bare ORDER BY is refused). Returns summaries without descriptions (use get_issue); page through with next_page_token.',
  input_schema: inputSchema(
    {
      jql: str('JQL query', { minLength: 1 }),
      max_results: { type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'How many issues to return (1 to 100, default 50).' },
      next_page_token: str('next_page_token from an earlier call with the same JQL', { minLength: 1 }),
    },
    ['jql'],
  ),
  output_schema: objectSchema({ issues: arr(issueSchema, 'Issues'), next_page_token: nullableStr('Pass to get the next page; null on the last page') }, ['issues', 'next_page_token']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await jiraRequest<{ issues?: JiraIssue[]; nextPageToken?: string | null; isLast?: boolean }>(ctx, {
      method: 'POST',
      path: '/rest/api/3/search/jql',
      json: { jql: input.jql, maxResults: input.max_results ?? 50, nextPageToken: input.next_page_token, fields: SEARCH_FIELDS },
    });
    const next = res.data.isLast === true ? null : res.data.nextPageToken ?? null;
    return { issues: (res.data.issues ?? []).map((i) => toIssue(i)), next_page_token: next };
  },
};

export const getIssue: ToolDefinition<{ issue_key: string }> = {
  name: 'get_issue',
  description: 'Get one Jira issue by key (ENG-42) with its description and comments as plain text, status, assignee, labels and dates.',
  input_schema: inputSchema({ issue_key: issueKeyParam }, ['issue_key']),
  output_schema: issueSchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await jiraRequest<JiraIssue>(ctx, { path: encodePath('/rest/api/3/issue/{issue_key}', input), query: { fields: DETAIL_FIELDS.join(',') } });
    return toIssue(res.data, true);
  },
};

const createdSchema = objectSchema({ id: str('Issue ID'), key: str('Issue key'), url: nullableStr('Link to the issue in the Jira web app') }, ['id', 'key']);

export const createIssue: ToolDefinition<{
  project_key: string;
  issue_type?: string;
  summary: string;
  description?: string;
  labels?: string[];
  assignee_account_id?: string;
  priority?: string;
  parent_key?: string;
}> = {
  name: 'create_issue',
  description:
    'Create a Jira issue in a project (by project key) with a summary, an optional plain-text description (blank lines separate paragraphs), labels, assignee account ID, priority and parent issue. Issue types are the project\'s own (Task, Bug, Story, Subtask...).',
  input_schema: inputSchema(
    {
      project_key: str('Project key, e.g. ENG (see list_projects)', { minLength: 1 }),
      issue_type: str('Issue type name', { minLength: 1, default: 'Task' }),
      summary: str('One-line summary', { minLength: 1, maxLength: 255 }),
      description: str('Description as plain text'),
      labels: arr(str('Label (no spaces)', { pattern: '^\\S+$' }), 'Labels'),
      assignee_account_id: str('Atlassian account ID of the assignee', { minLength: 1 }),
      priority: str('Priority name, e.g. High', { minLength: 1 }),
      parent_key: str('Parent issue key, for a subtask or an issue in an epic', { minLength: 1 }),
    },
    ['project_key', 'summary'],
  ),
  output_schema: createdSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    const fields: Record<string, unknown> = {
      project: { key: input.project_key },
      issuetype: { name: input.issue_type ?? 'Task' },
      summary: input.summary,
    };
    if (input.description) fields.description = textToAdf(input.description);
    if (input.labels) fields.labels = input.labels;
    if (input.assignee_account_id) fields.assignee = { accountId: input.assignee_account_id };
    if (input.priority) fields.priority = { name: input.priority };
    if (input.parent_key) fields.parent = { key: input.parent_key };
    const res = await jiraRequest<{ id: string; key: string; self: string }>(ctx, { method: 'POST', path: '/rest/api/3/issue', json: { fields } });
    return { id: res.data.id, key: res.data.key, url: browseUrl(res.data.self, res.data.key) };
  },
};

export const updateIssue: ToolDefinition<{
  issue_key: string;
  summary?: string;
  description?: string;
  labels?: string[];
  assignee_account_id?: string | null;
  priority?: string;
  due_date?: string | null;
  notify_users?: boolean;
}> = {
  name: 'update_issue',
  description:
    'Change fields of a Jira issue: summary, description (plain text), labels (replaces the whole list), assignee (account ID, or null to unassign), priority, due date. Fields left out keep their values. To change the status, use transition_issue.',
  input_schema: inputSchema(
    {
      issue_key: issueKeyParam,
      summary: str('New summary', { minLength: 1, maxLength: 255 }),
      description: str('New description as plain text (replaces the old one)'),
      labels: arr(str('Label (no spaces)', { pattern: '^\\S+$' }), 'The complete new list of labels'),
      assignee_account_id: { type: ['string', 'null'], minLength: 1, description: 'Account ID of the new assignee, or null to unassign' },
      priority: str('Priority name', { minLength: 1 }),
      due_date: { type: ['string', 'null'], format: 'date', description: 'YYYY-MM-DD, or null to clear' },
      notify_users: bool('Email watchers about the change (default true; false needs Jira admin rights)'),
    },
    ['issue_key'],
  ),
  output_schema: objectSchema({ key: str('Issue key'), updated_fields: arr(str('Field'), 'Fields that were set') }, ['key', 'updated_fields']),
  annotations: IDEMPOTENT_WRITE,
  async execute(ctx, input) {
    const fields: Record<string, unknown> = {};
    if (input.summary !== undefined) fields.summary = input.summary;
    if (input.description !== undefined) fields.description = input.description === '' ? null : textToAdf(input.description);
    if (input.labels !== undefined) fields.labels = input.labels;
    if (input.assignee_account_id !== undefined) fields.assignee = { accountId: input.assignee_account_id };
    if (input.priority !== undefined) fields.priority = { name: input.priority };
    if (input.due_date !== undefined) fields.duedate = input.due_date;
    if (Object.keys(fields).length === 0) {
      throw new ToolError('invalid_input', 'Nothing to update: give at least one of summary, description, labels, assignee_account_id, priority, due_date.');
    }
    await jiraRequest(ctx, {
      method: 'PUT',
      path: encodePath('/rest/api/3/issue/{issue_key}', input),
      query: { notifyUsers: input.notify_users === false ? 'false' : undefined },
      json: { fields },
    });
    return { key: input.issue_key, updated_fields: Object.keys(fields) };
  },
};
