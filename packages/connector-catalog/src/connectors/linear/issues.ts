import { ToolError } from '../../core/tool-error';
import { IDEMPOTENT_WRITE, READ_ONLY, WRITE, arr, inputSchema, int, limit, objectSchema, str } from '../../core/schema';
import type { JsonSchema, ToolDefinition } from '../../core/types';
import { isUuid, linearGraphql } from './client';

const ISSUE_FIELDS = `
fragment IssueFields on Issue {
  id
  identifier
  title
  description
  url
  priority
  priorityLabel
  estimate
  dueDate
  createdAt
  updatedAt
  state { id name type }
  team { id key name }
  assignee { id name email }
  project { id name }
  labels { nodes { id name } }
}`;

interface LinearIssue {
  id: string;
  identifier: string;
  title: string;
  description: string | null;
  url: string;
  priority: number;
  priorityLabel: string;
  estimate: number | null;
  dueDate: string | null;
  createdAt: string;
  updatedAt: string;
  state: { id: string; name: string; type: string } | null;
  team: { id: string; key: string; name: string } | null;
  assignee: { id: string; name: string; email: string } | null;
  project: { id: string; name: string } | null;
  labels: { nodes: Array<{ id: string; name: string }> };
}

interface LinearComment {
  id: string;
  body: string;
  createdAt: string;
  url: string;
  user: { id: string; name: string } | null;
}

const nullableString = (description: string): JsonSchema => ({ type: ['string', 'null'], description });

const issueProperties = {
  id: str('Linear issue ID (UUID)'),
  identifier: str('Human-readable key, e.g. ENG-123'),
  title: str('Title'),
  description: nullableString('Description (Markdown)'),
  url: str('Web URL'),
  priority: int('0 none, 1 urgent, 2 high, 3 medium, 4 low'),
  priority_label: str('Priority in words'),
  estimate: { type: ['number', 'null'], description: 'Estimate points' },
  due_date: nullableString('YYYY-MM-DD'),
  state: nullableString('Workflow state name'),
  state_id: nullableString('Workflow state ID'),
  state_type: nullableString('triage, backlog, unstarted, started, completed or canceled'),
  team: nullableString('Team key'),
  team_id: nullableString('Team ID'),
  assignee: {
    type: ['object', 'null'],
    properties: { id: str('User ID'), name: str('Name'), email: str('Email') },
    description: 'Assigned user',
  },
  project: nullableString('Project name'),
  labels: arr(str('Label name'), 'Labels'),
  created_at: str('ISO 8601'),
  updated_at: str('ISO 8601'),
};
const issueRequired = ['id', 'identifier', 'title', 'url', 'state', 'labels'];
export const issueSchema = objectSchema(issueProperties, issueRequired);

export function toIssue(issue: LinearIssue) {
  return {
    id: issue.id,
    identifier: issue.identifier,
    title: issue.title,
    description: issue.description,
    url: issue.url,
    priority: issue.priority,
    priority_label: issue.priorityLabel,
    estimate: issue.estimate,
    due_date: issue.dueDate,
    state: issue.state?.name ?? null,
    state_id: issue.state?.id ?? null,
    state_type: issue.state?.type ?? null,
    team: issue.team?.key ?? null,
    team_id: issue.team?.id ?? null,
    assignee: issue.assignee ? { id: issue.assignee.id, name: issue.assignee.name, email: issue.assignee.email } : null,
    project: issue.project?.name ?? null,
    labels: issue.labels.nodes.map((l) => l.name),
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
  };
}

const STATE_TYPES = ['triage', 'backlog', 'unstarted', 'started', 'completed', 'canceled'];

interface ListIssuesInput {
  team?: string;
  state?: string;
  state_type?: string;
  assignee?: string;
  title_contains?: string;
  order_by?: 'updatedAt' | 'createdAt';
  first?: number;
  after?: string;
}

/** Builds Linear's IssueFilter (https://linear.app/developers/filtering) from the tool's plain parameters. */
function issueFilter(input: ListIssuesInput): Record<string, unknown> | undefined {
  const filter: Record<string, unknown> = {};
  if (input.team) filter.team = isUuid(input.team) ? { id: { eq: input.team } } : { key: { eqIgnoreCase: input.team } };
  const state: Record<string, unknown> = {};
  if (input.state) state.name = { eqIgnoreCase: input.state };
  if (input.state_type) state.type = { eq: input.state_type };
  if (Object.keys(state).length > 0) filter.state = state;
  if (input.assignee) {
    if (input.assignee === 'me') filter.assignee = { isMe: { eq: true } };
    else if (input.assignee.includes('@')) filter.assignee = { email: { eqIgnoreCase: input.assignee } };
    else filter.assignee = { id: { eq: input.assignee } };
  }
  if (input.title_contains) filter.title = { containsIgnoreCase: input.title_contains };
  return Object.keys(filter).length > 0 ? filter : undefined;
}

export const listIssues: ToolDefinition<ListIssuesInput> = {
  name: 'list_issues',
  description:
    'List Linear issues, most recently updated first. Filter by team (key like ENG, or ID), workflow state name or type, assignee ("me", an email or a user ID) and title text; page through with next_cursor.',
  input_schema: inputSchema({
    team: str('Team key (e.g. ENG) or team ID', { minLength: 1 }),
    state: str('Workflow state name, e.g. "In Progress" (case-insensitive)', { minLength: 1 }),
    state_type: str('Workflow state type', { enum: STATE_TYPES }),
    assignee: str('"me", the assignee\'s email, or a user ID', { minLength: 1 }),
    title_contains: str('Only issues whose title contains this text (case-insensitive)', { minLength: 1 }),
    order_by: str('Sort order: updatedAt (default) or createdAt, newest first', { enum: ['updatedAt', 'createdAt'], default: 'updatedAt' }),
    first: limit(100, 25),
    after: str('next_cursor from an earlier call, to get the following page', { minLength: 1 }),
  }),
  output_schema: objectSchema({ issues: arr(issueSchema, 'Issues'), next_cursor: nullableString('Pass as `after` to get the next page; null on the last page') }, ['issues', 'next_cursor']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const data = await linearGraphql<{ issues: { nodes: LinearIssue[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } }>(
      ctx,
      `query ListIssues($first: Int, $after: String, $filter: IssueFilter, $orderBy: PaginationOrderBy) {
  issues(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
    nodes { ...IssueFields }
    pageInfo { hasNextPage endCursor }
  }
}
${ISSUE_FIELDS}`,
      { first: input.first ?? 25, after: input.after, filter: issueFilter(input), orderBy: input.order_by ?? 'updatedAt' },
    );
    const { nodes, pageInfo } = data.issues;
    return { issues: nodes.map(toIssue), next_cursor: pageInfo.hasNextPage ? pageInfo.endCursor : null };
  },
};

const commentProperties = { id: str('Comment ID'), body: str('Markdown'), author: nullableString('Author name'), url: str('Web URL'), created_at: str('ISO 8601') };
const commentSchema = objectSchema(commentProperties, ['id', 'body', 'created_at']);

function toComment(c: LinearComment) {
  return { id: c.id, body: c.body, author: c.user?.name ?? null, url: c.url, created_at: c.createdAt };
}

export const getIssue: ToolDefinition<{ id: string }> = {
  name: 'get_issue',
  description: 'Get one Linear issue by its key (ENG-123) or ID, with description, state, assignee, labels and its latest 50 comments.',
  input_schema: inputSchema({ id: str('Issue key such as ENG-123, or the issue ID', { minLength: 1 }) }, ['id']),
  output_schema: objectSchema({ ...issueProperties, comments: arr(commentSchema, 'Comments, oldest first') }, [...issueRequired, 'comments']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const data = await linearGraphql<{ issue: LinearIssue & { comments: { nodes: LinearComment[] } } }>(
      ctx,
      `query GetIssue($id: String!) {
  issue(id: $id) {
    ...IssueFields
    comments(first: 50) { nodes { id body createdAt url user { id name } } }
  }
}
${ISSUE_FIELDS}`,
      { id: input.id },
    );
    const comments = [...data.issue.comments.nodes].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    return { ...toIssue(data.issue), comments: comments.map(toComment) };
  },
};

const writableFields = {
  description: str('Description in Markdown'),
  priority: int('0 none, 1 urgent, 2 high, 3 medium, 4 low', { minimum: 0, maximum: 4 }),
  assignee_id: str('User ID to assign', { minLength: 1 }),
  state_id: str('Workflow state ID (from an issue\'s state_id or the team\'s states)', { minLength: 1 }),
  label_ids: arr(str('Label ID'), 'Label IDs; replaces the current labels'),
  project_id: str('Project ID', { minLength: 1 }),
  due_date: str('Due date, YYYY-MM-DD', { format: 'date' }),
  estimate: int('Estimate points', { minimum: 0 }),
};

interface WritableInput {
  description?: string;
  priority?: number;
  assignee_id?: string | null;
  state_id?: string;
  label_ids?: string[];
  project_id?: string;
  due_date?: string | null;
  estimate?: number;
}

/** Tool field names to IssueCreateInput / IssueUpdateInput names; absent fields stay absent. */
function issueInput(input: WritableInput & { title?: string }): Record<string, unknown> {
  const out: Record<string, unknown> = {
    title: input.title,
    description: input.description,
    priority: input.priority,
    assigneeId: input.assignee_id,
    stateId: input.state_id,
    labelIds: input.label_ids,
    projectId: input.project_id,
    dueDate: input.due_date,
    estimate: input.estimate,
  };
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}

interface IssuePayload {
  success: boolean;
  issue: LinearIssue | null;
}

function issueFromPayload(payload: IssuePayload, action: string) {
  if (!payload.success || !payload.issue) throw new ToolError('provider_error', `Linear did not ${action} the issue; retry later.`);
  return toIssue(payload.issue);
}

export const createIssue: ToolDefinition<WritableInput & { team_id: string; title: string; parent_id?: string }> = {
  name: 'create_issue',
  description: 'Create a Linear issue in a team (team_id from list_teams), with optional description, priority, assignee, state, labels, project, due date and parent issue.',
  input_schema: inputSchema(
    {
      team_id: str('ID of the team the issue belongs to (see list_teams)', { minLength: 1 }),
      title: str('Issue title', { minLength: 1 }),
      ...writableFields,
      parent_id: str('ID of a parent issue, to create a sub-issue', { minLength: 1 }),
    },
    ['team_id', 'title'],
  ),
  output_schema: issueSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    const data = await linearGraphql<{ issueCreate: IssuePayload }>(
      ctx,
      `mutation CreateIssue($input: IssueCreateInput!) {
  issueCreate(input: $input) { success issue { ...IssueFields } }
}
${ISSUE_FIELDS}`,
      { input: { teamId: input.team_id, ...issueInput(input), ...(input.parent_id ? { parentId: input.parent_id } : {}) } },
    );
    return issueFromPayload(data.issueCreate, 'create');
  },
};

export const updateIssue: ToolDefinition<WritableInput & { id: string; title?: string }> = {
  name: 'update_issue',
  description: 'Change fields of a Linear issue (by key like ENG-123 or ID): title, description, priority, assignee (null to unassign), state, labels, project, due date or estimate.',
  input_schema: inputSchema(
    {
      id: str('Issue key such as ENG-123, or the issue ID', { minLength: 1 }),
      title: str('New title', { minLength: 1 }),
      ...writableFields,
      assignee_id: { type: ['string', 'null'], minLength: 1, description: 'User ID to assign, or null to unassign' },
      due_date: { type: ['string', 'null'], format: 'date', description: 'Due date YYYY-MM-DD, or null to clear it' },
    },
    ['id'],
  ),
  output_schema: issueSchema,
  annotations: IDEMPOTENT_WRITE,
  async execute(ctx, input) {
    const changes = issueInput(input);
    if (Object.keys(changes).length === 0) throw new ToolError('invalid_input', 'Give at least one field to change besides input.id.');
    const data = await linearGraphql<{ issueUpdate: IssuePayload }>(
      ctx,
      `mutation UpdateIssue($id: String!, $input: IssueUpdateInput!) {
  issueUpdate(id: $id, input: $input) { success issue { ...IssueFields } }
}
${ISSUE_FIELDS}`,
      { id: input.id, input: changes },
    );
    return issueFromPayload(data.issueUpdate, 'update');
  },
};

export const addComment: ToolDefinition<{ issue_id: string; body: string }> = {
  name: 'add_comment',
  description: 'Add a Markdown comment to a Linear issue, given its key (ENG-123) or ID.',
  input_schema: inputSchema(
    {
      issue_id: str('Issue key such as ENG-123, or the issue ID', { minLength: 1 }),
      body: str('Comment text in Markdown', { minLength: 1 }),
    },
    ['issue_id', 'body'],
  ),
  output_schema: objectSchema({ ...commentProperties, issue: str('Key of the issue commented on') }, ['id', 'body', 'created_at', 'issue']),
  annotations: WRITE,
  async execute(ctx, input) {
    // commentCreate takes the issue's UUID; a key like ENG-123 is resolved first.
    let issueId = input.issue_id;
    let identifier = input.issue_id;
    if (!isUuid(issueId)) {
      const found = await linearGraphql<{ issue: { id: string; identifier: string } }>(ctx, 'query IssueId($id: String!) { issue(id: $id) { id identifier } }', { id: input.issue_id });
      issueId = found.issue.id;
      identifier = found.issue.identifier;
    }
    const data = await linearGraphql<{ commentCreate: { success: boolean; comment: (LinearComment & { issue: { identifier: string } | null }) | null } }>(
      ctx,
      `mutation AddComment($input: CommentCreateInput!) {
  commentCreate(input: $input) { success comment { id body createdAt url user { id name } issue { identifier } } }
}`,
      { input: { issueId, body: input.body } },
    );
    const { success, comment } = data.commentCreate;
    if (!success || !comment) throw new ToolError('provider_error', 'Linear did not create the comment; retry later.');
    return { ...toComment(comment), issue: comment.issue?.identifier ?? identifier };
  },
};
