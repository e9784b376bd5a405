import { GraphQLError, buildSchema, execute, parse, validate, type DocumentNode } from 'graphql';
import { FakeRoutes, startFakeServer, type FakeReply, type FakeServer } from './fake-server';

/** Credentials the fake Linear understands. Personal keys go in `Authorization` bare, OAuth tokens as `Bearer <token>`. */
export const LINEAR_FAKE_TOKENS = {
  apiKey: 'lin_api_fake_valid_key',
  oauth: 'lin_oauth_fake_valid_token',
  /** Over the request budget: HTTP 400, RATELIMITED, X-RateLimit-Requests-* headers (reset in epoch ms), no Retry-After. */
  rateLimited: 'lin_api_fake_rate_limited',
  /** Throttled at the edge: HTTP 429, RATELIMITED, Retry-After: 30. */
  throttled: 'lin_api_fake_throttled',
  /** Authenticated, but every call fails with HTTP 500. */
  failing: 'lin_api_fake_failing',
} as const;

/**
 * The subset of Linear's public GraphQL schema (https://studio.apollographql.com/public/Linear-API)
 * the connector uses, with Linear's type, argument and input names, so a query the real API would
 * refuse as invalid is refused here too.
 */
const SCHEMA = buildSchema(/* GraphQL */ `
  scalar DateTime
  scalar TimelessDate

  enum PaginationOrderBy {
    createdAt
    updatedAt
  }

  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  type User {
    id: ID!
    name: String!
    displayName: String!
    email: String!
  }

  type WorkflowState {
    id: ID!
    name: String!
    type: String!
    position: Float!
  }

  type Project {
    id: ID!
    name: String!
  }

  type IssueLabel {
    id: ID!
    name: String!
  }

  type IssueLabelConnection {
    nodes: [IssueLabel!]!
    pageInfo: PageInfo!
  }

  type Team {
    id: ID!
    key: String!
    name: String!
    description: String
  }

  type TeamConnection {
    nodes: [Team!]!
    pageInfo: PageInfo!
  }

  type Comment {
    id: ID!
    body: String!
    createdAt: DateTime!
    updatedAt: DateTime!
    url: String!
    user: User
    issue: Issue
  }

  type CommentConnection {
    nodes: [Comment!]!
    pageInfo: PageInfo!
  }

  type Issue {
    id: ID!
    identifier: String!
    number: Float!
    title: String!
    description: String
    url: String!
    priority: Float!
    priorityLabel: String!
    estimate: Float
    dueDate: TimelessDate
    createdAt: DateTime!
    updatedAt: DateTime!
    state: WorkflowState!
    team: Team!
    assignee: User
    project: Project
    parent: Issue
    labels(first: Int, after: String): IssueLabelConnection!
    comments(first: Int, after: String, orderBy: PaginationOrderBy): CommentConnection!
  }

  type IssueConnection {
    nodes: [Issue!]!
    pageInfo: PageInfo!
  }

  input StringComparator {
    eq: String
    neq: String
    in: [String!]
    nin: [String!]
    eqIgnoreCase: String
    neqIgnoreCase: String
    contains: String
    containsIgnoreCase: String
    notContains: String
    startsWith: String
    endsWith: String
  }

  input IDComparator {
    eq: ID
    neq: ID
    in: [ID!]
    nin: [ID!]
  }

  input BooleanComparator {
    eq: Boolean
    neq: Boolean
  }

  input TeamFilter {
    id: IDComparator
    key: StringComparator
    name: StringComparator
    and: [TeamFilter!]
    or: [TeamFilter!]
  }

  input WorkflowStateFilter {
    id: IDComparator
    name: StringComparator
    type: StringComparator
    and: [WorkflowStateFilter!]
    or: [WorkflowStateFilter!]
  }

  input NullableUserFilter {
    id: IDComparator
    name: StringComparator
    email: StringComparator
    isMe: BooleanComparator
    null: Boolean
  }

  input IssueFilter {
    id: IDComparator
    title: StringComparator
    team: TeamFilter
    state: WorkflowStateFilter
    assignee: NullableUserFilter
    and: [IssueFilter!]
    or: [IssueFilter!]
  }

  input IssueCreateInput {
    id: String
    teamId: String!
    title: String
    description: String
    priority: Int
    estimate: Int
    assigneeId: String
    stateId: String
    labelIds: [String!]
    projectId: String
    parentId: String
    dueDate: TimelessDate
  }

  input IssueUpdateInput {
    title: String
    description: String
    priority: Int
    estimate: Int
    assigneeId: String
    stateId: String
    labelIds: [String!]
    projectId: String
    parentId: String
    teamId: String
    dueDate: TimelessDate
  }

  input CommentCreateInput {
    id: String
    issueId: String
    body: String
    parentId: String
  }

  type IssuePayload {
    lastSyncId: Float!
    success: Boolean!
    issue: Issue
  }

  type CommentPayload {
    lastSyncId: Float!
    success: Boolean!
    comment: Comment!
  }

  type Query {
    viewer: User!
    issue(id: String!): Issue!
    issues(first: Int, after: String, last: Int, before: String, filter: IssueFilter, orderBy: PaginationOrderBy, includeArchived: Boolean): IssueConnection!
    teams(first: Int, after: String, last: Int, before: String, filter: TeamFilter, orderBy: PaginationOrderBy, includeArchived: Boolean): TeamConnection!
  }

  type Mutation {
    issueCreate(input: IssueCreateInput!): IssuePayload!
    issueUpdate(id: String!, input: IssueUpdateInput!): IssuePayload!
    commentCreate(input: CommentCreateInput!): CommentPayload!
  }
`);

export interface LinearFakeUser {
  id: string;
  name: string;
  email: string;
}

export interface LinearFakeTeam {
  id: string;
  key: string;
  name: string;
  description: string | null;
  states: Array<{ id: string; name: string; type: string; position: number }>;
}

export interface LinearFakeIssue {
  id: string;
  teamId: string;
  number: number;
  title: string;
  description: string | null;
  priority: number;
  estimate: number | null;
  dueDate: string | null;
  stateId: string;
  assigneeId: string | null;
  projectId: string | null;
  parentId: string | null;
  labelIds: string[];
  createdAt: string;
  updatedAt: string;
}

export interface LinearFakeComment {
  id: string;
  issueId: string;
  body: string;
  userId: string;
  createdAt: string;
}

/** Deterministic v4-shaped UUIDs so tests can name seeded records. */
export function linearFakeId(kind: number, n: number): string {
  return `00000000-0000-4000-8${kind.toString(16).padStart(3, '0')}-${n.toString(16).padStart(12, '0')}`;
}

const PRIORITY_LABELS = ['No priority', 'Urgent', 'High', 'Medium', 'Low'];

function linearError(message: string, code: string, type: string, userPresentableMessage?: string): GraphQLError {
  return new GraphQLError(message, { extensions: { type, code, statusCode: 400, userError: true, ...(userPresentableMessage ? { userPresentableMessage } : {}) } });
}

const notFound = (entity: string) => linearError(`Entity not found: ${entity}`, 'INPUT_ERROR', 'invalid input', `Could not find referenced ${entity}.`);
const argumentError = (detail: string) => linearError('Argument Validation Error', 'INVALID_INPUT', 'invalid input', detail);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Comparator = Record<string, unknown>;

/** Linear's StringComparator / IDComparator / BooleanComparator semantics for the operators the schema declares. */
function compare(value: unknown, comparator: Comparator | undefined): boolean {
  if (!comparator) return true;
  const text = typeof value === 'string' ? value : value === null || value === undefined ? null : String(value);
  for (const [op, expected] of Object.entries(comparator)) {
    const e = expected as string;
    const list = (expected as string[] | null) ?? [];
    const ok = (() => {
      switch (op) {
        case 'eq':
          return typeof value === 'boolean' ? value === expected : text === e;
        case 'neq':
          return typeof value === 'boolean' ? value !== expected : text !== e;
        case 'in':
          return text !== null && list.includes(text);
        case 'nin':
          return text === null || !list.includes(text);
        case 'eqIgnoreCase':
          return text !== null && text.toLowerCase() === e.toLowerCase();
        case 'neqIgnoreCase':
          return text === null || text.toLowerCase() !== e.toLowerCase();
        case 'contains':
          return text !== null && text.includes(e);
        case 'containsIgnoreCase':
          return text !== null && text.toLowerCase().includes(e.toLowerCase());
        case 'notContains':
          return text === null || !text.includes(e);
        case 'startsWith':
          return text !== null && text.startsWith(e);
        case 'endsWith':
          return text !== null && text.endsWith(e);
        default:
          return false;
      }
    })();
    if (!ok) return false;
  }
  return true;
}

/** `first`/`after` over a list already in the connection's order; the cursor is the last node's ID. */
function paginate<T extends { id: string }>(items: T[], args: { first?: number | null; after?: string | null }) {
  const first = args.first ?? 50;
  if (first < 1 || first > 250) throw argumentError('first must be between 1 and 250.');
  let start = 0;
  if (args.after) {
    const at = items.findIndex((i) => i.id === args.after);
    if (at < 0) throw argumentError('after must be a cursor returned by an earlier page.');
    start = at + 1;
  }
  const nodes = items.slice(start, start + first);
  const last = nodes.at(-1);
  return {
    nodes,
    pageInfo: { hasNextPage: start + first < items.length, hasPreviousPage: start > 0, startCursor: nodes[0]?.id ?? null, endCursor: last?.id ?? null },
  };
}

/**
 * A fake of Linear's GraphQL API (POST /graphql): the real schema's names for issues, teams and
 * comments checked by graphql-js; `Authorization: <key>` or `Bearer <oauth token>`; a bad credential
 * as HTTP 400 with AUTHENTICATION_ERROR; unknown entities as HTTP 200 with "Entity not found"; rate
 * limits as RATELIMITED under HTTP 400 (with X-RateLimit-Requests-*) or 429 (with Retry-After);
 * forward cursor pagination with pageInfo.endCursor.
 */
export async function startFakeLinear(seed: { issues: number } = { issues: 5 }): Promise<
  FakeServer & { users: LinearFakeUser[]; teams: LinearFakeTeam[]; issues: LinearFakeIssue[]; comments: LinearFakeComment[]; labels: Array<{ id: string; name: string }> }
> {
  const users: LinearFakeUser[] = [
    { id: linearFakeId(1, 1), name: 'Ada Lovelace', email: 'ada@example.com' },
    { id: linearFakeId(1, 2), name: 'Linus Torvalds', email: 'linus@example.com' },
  ];
  const viewer = users[0]!;
  const stateSet = (team: number) =>
    [
      ['Backlog', 'backlog'],
      ['Todo', 'unstarted'],
      ['In Progress', 'started'],
      ['Done', 'completed'],
      ['Canceled', 'canceled'],
    ].map(([name, type], i) => ({ id: linearFakeId(3, team * 10 + i), name: name!, type: type!, position: i }));
  const teams: LinearFakeTeam[] = [
    { id: linearFakeId(2, 1), key: 'ENG', name: 'Engineering', description: 'Builds the product', states: stateSet(1) },
    { id: linearFakeId(2, 2), key: 'DES', name: 'Design', description: null, states: stateSet(2) },
  ];
  const labels = [
    { id: linearFakeId(4, 1), name: 'Bug' },
    { id: linearFakeId(4, 2), name: 'Feature' },
  ];
  const projects = [{ id: linearFakeId(5, 1), name: 'Launch' }];
  const eng = teams[0]!;
  const issues: LinearFakeIssue[] = Array.from({ length: seed.issues }, (_, i) => {
    const at = new Date(Date.UTC(2026, 0, 1, i)).toISOString();
    return {
      id: linearFakeId(6, i + 1),
      teamId: eng.id,
      number: i + 1,
      title: `Issue ${i + 1}`,
      description: `Description of issue ${i + 1}`,
      priority: i % 5,
      estimate: null,
      dueDate: null,
      stateId: eng.states[i % 3]!.id,
      assigneeId: i % 2 === 0 ? viewer.id : users[1]!.id,
      projectId: i === 0 ? projects[0]!.id : null,
      parentId: null,
      labelIds: i % 2 === 0 ? [labels[0]!.id] : [],
      createdAt: at,
      updatedAt: at,
    };
  });
  const comments: LinearFakeComment[] = [];
  let syncId = 1000;
  // The fake's clock moves one second per write, so "most recently updated first" is well defined.
  let clock = Date.UTC(2026, 1, 1);
  const now = () => new Date((clock += 1000)).toISOString();

  const teamOf = (id: string) => teams.find((t) => t.id === id);
  const userOf = (id: string | null) => (id ? users.find((u) => u.id === id) : undefined);
  const findIssue = (idOrKey: string) => {
    if (UUID.test(idOrKey)) return issues.find((i) => i.id === idOrKey);
    const match = /^([A-Za-z]+)-(\d+)$/.exec(idOrKey);
    if (!match) return undefined;
    const team = teams.find((t) => t.key === match[1]!.toUpperCase());
    return team ? issues.find((i) => i.teamId === team.id && i.number === Number(match[2])) : undefined;
  };

  const renderUser = (u: LinearFakeUser) => ({ ...u, displayName: u.name.split(' ')[0] });
  const renderTeam = (t: LinearFakeTeam) => ({ id: t.id, key: t.key, name: t.name, description: t.description });
  const renderComment = (c: LinearFakeComment): Record<string, unknown> => ({
    id: c.id,
    body: c.body,
    createdAt: c.createdAt,
    updatedAt: c.createdAt,
    url: `https://linear.app/fake/issue/${identifierOf(issues.find((i) => i.id === c.issueId)!)}#comment-${c.id.slice(-8)}`,
    user: renderUser(userOf(c.userId)!),
    issue: () => renderIssue(issues.find((i) => i.id === c.issueId)!),
  });
  const identifierOf = (issue: LinearFakeIssue) => `${teamOf(issue.teamId)!.key}-${issue.number}`;
  const renderIssue = (issue: LinearFakeIssue): Record<string, unknown> => {
    const team = teamOf(issue.teamId)!;
    const assignee = userOf(issue.assigneeId);
    const identifier = identifierOf(issue);
    return {
      id: issue.id,
      identifier,
      number: issue.number,
      title: issue.title,
      description: issue.description,
      url: `https://linear.app/fake/issue/${identifier}/${issue.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
      priority: issue.priority,
      priorityLabel: PRIORITY_LABELS[issue.priority] ?? 'No priority',
      estimate: issue.estimate,
      dueDate: issue.dueDate,
      createdAt: issue.createdAt,
      updatedAt: issue.updatedAt,
      state: team.states.find((s) => s.id === issue.stateId),
      team: renderTeam(team),
      assignee: assignee ? renderUser(assignee) : null,
      project: projects.find((p) => p.id === issue.projectId) ?? null,
      parent: () => (issue.parentId ? renderIssue(issues.find((i) => i.id === issue.parentId)!) : null),
      labels: (args: { first?: number; after?: string }) => paginate(labels.filter((l) => issue.labelIds.includes(l.id)), args),
      comments: (args: { first?: number; after?: string }) => {
        const page = paginate(comments.filter((c) => c.issueId === issue.id).sort((a, b) => b.createdAt.localeCompare(a.createdAt)), args);
        return { ...page, nodes: page.nodes.map(renderComment) };
      },
    };
  };

  const matchesUser = (userId: string | null, f: Record<string, unknown> | undefined): boolean => {
    if (!f) return true;
    if (f.null !== undefined && (userId === null) !== f.null) return false;
    const user = userOf(userId);
    if ((f.id || f.name || f.email || f.isMe) && !user) return false;
    if (!user) return true;
    return compare(user.id, f.id as Comparator) && compare(user.name, f.name as Comparator) && compare(user.email, f.email as Comparator) && compare(user.id === viewer.id, f.isMe as Comparator);
  };
  const matchesTeam = (team: LinearFakeTeam, f: Record<string, unknown> | undefined): boolean => {
    if (!f) return true;
    const and = (f.and as Array<Record<string, unknown>> | undefined) ?? [];
    const or = f.or as Array<Record<string, unknown>> | undefined;
    return compare(team.id, f.id as Comparator) && compare(team.key, f.key as Comparator) && compare(team.name, f.name as Comparator) && and.every((g) => matchesTeam(team, g)) && (!or || or.some((g) => matchesTeam(team, g)));
  };
  const matchesIssue = (issue: LinearFakeIssue, f: Record<string, unknown> | undefined): boolean => {
    if (!f) return true;
    const team = teamOf(issue.teamId)!;
    const state = team.states.find((s) => s.id === issue.stateId)!;
    const sf = f.state as Record<string, unknown> | undefined;
    const and = (f.and as Array<Record<string, unknown>> | undefined) ?? [];
    const or = f.or as Array<Record<string, unknown>> | undefined;
    return (
      compare(issue.id, f.id as Comparator) &&
      compare(issue.title, f.title as Comparator) &&
      matchesTeam(team, f.team as Record<string, unknown> | undefined) &&
      (!sf || (compare(state.id, sf.id as Comparator) && compare(state.name, sf.name as Comparator) && compare(state.type, sf.type as Comparator))) &&
      matchesUser(issue.assigneeId, f.assignee as Record<string, unknown> | undefined) &&
      and.every((g) => matchesIssue(issue, g)) &&
      (!or || or.some((g) => matchesIssue(issue, g)))
    );
  };

  interface WriteInput {
    title?: string | null;
    description?: string | null;
    priority?: number | null;
    estimate?: number | null;
    assigneeId?: string | null;
    stateId?: string | null;
    labelIds?: string[] | null;
    projectId?: string | null;
    parentId?: string | null;
    dueDate?: string | null;
  }
  /** Checks references the way Linear does: malformed IDs are argument errors, unknown ones "Entity not found". */
  const applyWrite = (issue: LinearFakeIssue, input: WriteInput) => {
    const uuid = (field: string, value: string) => {
      if (!UUID.test(value)) throw argumentError(`${field} must be a UUID.`);
    };
    if (input.title !== undefined) {
      if (!input.title?.trim()) throw argumentError('title should not be empty.');
      issue.title = input.title;
    }
    if (input.description !== undefined) issue.description = input.description;
    if (input.priority !== undefined && input.priority !== null) {
      if (input.priority < 0 || input.priority > 4) throw argumentError('priority must not be greater than 4.');
      issue.priority = input.priority;
    }
    if (input.estimate !== undefined) issue.estimate = input.estimate;
    if (input.assigneeId !== undefined) {
      if (input.assigneeId !== null) {
        uuid('assigneeId', input.assigneeId);
        if (!userOf(input.assigneeId)) throw notFound('User');
      }
      issue.assigneeId = input.assigneeId;
    }
    if (input.stateId) {
      uuid('stateId', input.stateId);
      if (!teamOf(issue.teamId)!.states.some((s) => s.id === input.stateId)) throw notFound('WorkflowState');
      issue.stateId = input.stateId;
    }
    if (input.labelIds) {
      for (const id of input.labelIds) {
        uuid('labelIds', id);
        if (!labels.some((l) => l.id === id)) throw notFound('IssueLabel');
      }
      issue.labelIds = [...input.labelIds];
    }
    if (input.projectId !== undefined) {
      if (input.projectId !== null) {
        uuid('projectId', input.projectId);
        if (!projects.some((p) => p.id === input.projectId)) throw notFound('Project');
      }
      issue.projectId = input.projectId;
    }
    if (input.parentId !== undefined) {
      if (input.parentId !== null && !findIssue(input.parentId)) throw notFound('Issue');
      issue.parentId = input.parentId === null ? null : findIssue(input.parentId)!.id;
    }
    if (input.dueDate !== undefined) {
      if (input.dueDate !== null && !/^\d{4}-\d{2}-\d{2}$/.test(input.dueDate)) throw argumentError('dueDate must be a date (YYYY-MM-DD).');
      issue.dueDate = input.dueDate;
    }
  };

  const root = {
    viewer: () => renderUser(viewer),
    issue: ({ id }: { id: string }) => {
      const issue = findIssue(id);
      if (!issue) throw notFound('Issue');
      return renderIssue(issue);
    },
    issues: (args: { first?: number; after?: string; filter?: Record<string, unknown>; orderBy?: 'createdAt' | 'updatedAt' }) => {
      const key = args.orderBy ?? 'createdAt';
      const matching = issues.filter((i) => matchesIssue(i, args.filter)).sort((a, b) => b[key].localeCompare(a[key]) || b.number - a.number);
      const page = paginate(matching, args);
      return { ...page, nodes: page.nodes.map(renderIssue) };
    },
    teams: (args: { first?: number; after?: string; filter?: Record<string, unknown> }) => {
      const page = paginate(teams.filter((t) => matchesTeam(t, args.filter)), args);
      return { ...page, nodes: page.nodes.map(renderTeam) };
    },
    issueCreate: ({ input }: { input: WriteInput & { teamId: string; id?: string } }) => {
      if (!UUID.test(input.teamId)) throw argumentError('teamId must be a UUID.');
      const team = teamOf(input.teamId);
      if (!team) throw notFound('Team');
      const at = now();
      const issue: LinearFakeIssue = {
        id: input.id ?? linearFakeId(6, issues.length + 1),
        teamId: team.id,
        number: Math.max(0, ...issues.filter((i) => i.teamId === team.id).map((i) => i.number)) + 1,
        title: '',
        description: null,
        priority: 0,
        estimate: null,
        dueDate: null,
        stateId: team.states[1]!.id,
        assigneeId: null,
        projectId: null,
        parentId: null,
        labelIds: [],
        createdAt: at,
        updatedAt: at,
      };
      applyWrite(issue, { title: input.title ?? '', ...input });
      issues.push(issue);
      return { lastSyncId: ++syncId, success: true, issue: renderIssue(issue) };
    },
    issueUpdate: ({ id, input }: { id: string; input: WriteInput }) => {
      const found = findIssue(id);
      if (!found) throw notFound('Issue');
      // Validate on a copy so a refused update changes nothing.
      const next = { ...found, labelIds: [...found.labelIds] };
      applyWrite(next, input);
      Object.assign(found, next, { updatedAt: now() });
      return { lastSyncId: ++syncId, success: true, issue: renderIssue(found) };
    },
    commentCreate: ({ input }: { input: { issueId?: string; body?: string; id?: string } }) => {
      if (!input.issueId) throw argumentError('issueId should not be empty.');
      const issue = findIssue(input.issueId);
      if (!issue) throw notFound('Issue');
      if (!input.body?.trim()) throw argumentError('body should not be empty.');
      const comment: LinearFakeComment = { id: input.id ?? linearFakeId(7, comments.length + 1), issueId: issue.id, body: input.body, userId: viewer.id, createdAt: now() };
      comments.push(comment);
      return { lastSyncId: ++syncId, success: true, comment: renderComment(comment) };
    },
  };

  const routes = new FakeRoutes().route('POST', '/graphql', async (req) => {
    const body = req.json as { query?: unknown; variables?: unknown; operationName?: unknown } | undefined;
    if (!body || typeof body.query !== 'string') {
      return { status: 400, body: { errors: [{ message: 'Must provide query string.', extensions: { code: 'BAD_REQUEST', type: 'graphql error', userError: true } }] } };
    }
    let document: DocumentNode;
    try {
      document = parse(body.query);
    } catch (err) {
      const e = err as GraphQLError;
      return { status: 400, body: { errors: [{ message: e.message, locations: e.locations, extensions: { code: 'GRAPHQL_PARSE_FAILED', type: 'graphql error', userError: true } }] } };
    }
    const invalid = validate(SCHEMA, document);
    if (invalid.length > 0) {
      return { status: 400, body: { errors: invalid.map((e) => ({ message: e.message, locations: e.locations, extensions: { code: 'GRAPHQL_VALIDATION_FAILED', type: 'graphql error', userError: true } })) } };
    }
    const result = await execute({
      schema: SCHEMA,
      document,
      rootValue: root,
      variableValues: (body.variables ?? {}) as Record<string, unknown>,
      operationName: typeof body.operationName === 'string' ? body.operationName : undefined,
    });
    // Variables that do not fit their declared types fail before execution: no data at all.
    if (!('data' in result) || result.data === undefined) {
      return { status: 400, body: { errors: (result.errors ?? []).map((e) => ({ message: e.message, locations: e.locations, extensions: { code: 'BAD_USER_INPUT', type: 'invalid input', userError: true } })) } };
    }
    return { body: { data: result.data, ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}) } };
  });

  const server = await startFakeServer({
    routes,
    notFound: { status: 404, body: 'Cannot find that route; the Linear API is POST /graphql.' },
    before: (req): FakeReply | undefined => {
      const header = req.headers.authorization ?? '';
      const bearer = /^Bearer (.+)$/.exec(header)?.[1];
      const known = bearer ? bearer === LINEAR_FAKE_TOKENS.oauth : Object.values(LINEAR_FAKE_TOKENS).some((t) => t === header && t !== LINEAR_FAKE_TOKENS.oauth);
      if (!known) {
        return {
          status: 400,
          body: {
            errors: [
              {
                message: 'Authentication required, not authenticated',
                extensions: { type: 'authentication error', code: 'AUTHENTICATION_ERROR', statusCode: 401, userError: true, userPresentableMessage: 'You need to authenticate to access this operation.' },
              },
            ],
          },
        };
      }
      const limited = { type: 'ratelimited', code: 'RATELIMITED', statusCode: 429, userError: true, userPresentableMessage: 'Rate limit exceeded. Please wait a while before retrying.' };
      if (header === LINEAR_FAKE_TOKENS.rateLimited) {
        return {
          status: 400,
          headers: { 'x-ratelimit-requests-limit': '5000', 'x-ratelimit-requests-remaining': '0', 'x-ratelimit-requests-reset': String(Date.now() + 60_000) },
          body: { errors: [{ message: 'Rate limit exceeded', extensions: limited }] },
        };
      }
      if (header === LINEAR_FAKE_TOKENS.throttled) return { status: 429, headers: { 'retry-after': '30' }, body: { errors: [{ message: 'Rate limit exceeded', extensions: limited }] } };
      if (header === LINEAR_FAKE_TOKENS.failing) return { status: 500, body: { errors: [{ message: 'Internal server error', extensions: { type: 'internal error', code: 'INTERNAL_ERROR', userError: false } }] } };
      return undefined;
    },
  });
  return Object.assign(server, { users, teams, issues, comments, labels });
}
