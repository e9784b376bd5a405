import { FakeRoutes, startFakeServer, type FakeHandler, type FakeReply, type FakeRequest, type FakeServer } from './fake-server';

/** Credentials the fake Jira understands. API tokens go with JIRA_FAKE_CREDENTIALS.email in HTTP Basic. */
export const JIRA_FAKE_CREDENTIALS = {
  email: 'agent@example.com',
  apiToken: 'jira-fake-valid-token',
  /** Authenticated, but every call answers 429 with Retry-After: 17. */
  rateLimitedToken: 'jira-fake-rate-limited',
  /** Authenticated, but every call answers 500. */
  failingToken: 'jira-fake-failing',
  /** An OAuth 2.0 (3LO) access token, accepted only under /ex/jira/{cloudId}. */
  oauthAccessToken: 'jira-fake-oauth-access-token',
  cloudId: '11223344-a1b2-3b33-c444-def123456789',
} as const;

export const JIRA_FAKE_USERS = {
  me: { accountId: '5b10ac8d82e05b22cc7d4ef5', displayName: 'Agent Smith' },
  alana: { accountId: '5b10a2844c20165700ede21g', displayName: 'Alana Grant' },
} as const;

type StatusName = 'To Do' | 'In Progress' | 'Done';
const STATUSES: Record<StatusName, { id: string; name: StatusName; statusCategory: { key: string; name: string } }> = {
  'To Do': { id: '10000', name: 'To Do', statusCategory: { key: 'new', name: 'To Do' } },
  'In Progress': { id: '3', name: 'In Progress', statusCategory: { key: 'indeterminate', name: 'In Progress' } },
  Done: { id: '10001', name: 'Done', statusCategory: { key: 'done', name: 'Done' } },
};
/** The workflow: which transitions leave each status. */
const WORKFLOW: Record<StatusName, Array<{ id: string; name: string; to: StatusName }>> = {
  'To Do': [
    { id: '11', name: 'Start Progress', to: 'In Progress' },
    { id: '31', name: 'Done', to: 'Done' },
  ],
  'In Progress': [
    { id: '21', name: 'Stop Progress', to: 'To Do' },
    { id: '31', name: 'Done', to: 'Done' },
  ],
  Done: [{ id: '41', name: 'Reopen', to: 'To Do' }],
};
const ISSUE_TYPES = ['Task', 'Bug', 'Story', 'Epic', 'Subtask'];
const PRIORITIES = ['Highest', 'High', 'Medium', 'Low', 'Lowest'];

interface Project {
  id: string;
  key: string;
  name: string;
  projectTypeKey: string;
  style: string;
}

interface Comment {
  id: string;
  author: { accountId: string; displayName: string };
  body: unknown;
  created: string;
  updated: string;
}

export interface FakeJiraIssue {
  id: string;
  key: string;
  projectKey: string;
  summary: string;
  description: unknown;
  issuetype: string;
  status: StatusName;
  priority: string;
  labels: string[];
  assignee: { accountId: string; displayName: string } | null;
  parent: string | null;
  duedate: string | null;
  created: string;
  updated: string;
  comments: Comment[];
}

const errorBody = (errorMessages: string[], errors: Record<string, string> = {}) => ({ errorMessages, errors });
const issueNotFound: FakeReply = { status: 404, body: errorBody(['Issue does not exist or you do not have permission to see it.']) };

function adfParagraph(text: string) {
  return { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] };
}

function isAdfDoc(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'doc' && (value as { version?: unknown }).version === 1 && Array.isArray((value as { content?: unknown }).content);
}

function decodeBasic(header: string | undefined): { email: string; token: string } | undefined {
  const match = /^Basic (.+)$/.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { email: decoded.slice(0, colon), token: decoded.slice(colon + 1) };
}

/** A tiny JQL: `field = value`, `field != value`, `field in (a, b)` joined by AND, then an optional ORDER BY. */
function compileJql(jql: string, projects: Project[]): { ok: true; filter: (i: FakeJiraIssue) => boolean; descending: boolean } | { ok: false; message: string } {
  const [where = '', order = ''] = jql.split(/\border\s+by\b/i);
  if (where.trim() === '') return { ok: false, message: 'Unbounded JQL queries are not allowed here. Please add a search restriction to your query.' };
  const tests: Array<(i: FakeJiraIssue) => boolean> = [];
  for (const clause of where.split(/\s+AND\s+/i)) {
    const m = /^\s*(\w+)\s*(=|!=|\bin\b)\s*(.+?)\s*$/i.exec(clause);
    if (!m) return { ok: false, message: `Error in the JQL Query: Expecting operator but got '${clause.trim()}'.` };
    const field = m[1]!.toLowerCase();
    const op = m[2]!.toLowerCase();
    const unquote = (v: string) => v.trim().replace(/^["'](.*)["']$/, '$1');
    const values = op === 'in' ? m[3]!.replace(/^\(|\)$/g, '').split(',').map(unquote) : [unquote(m[3]!)];
    const get: Record<string, (i: FakeJiraIssue) => string[]> = {
      project: (i) => [i.projectKey],
      status: (i) => [i.status],
      statuscategory: (i) => [STATUSES[i.status].statusCategory.name],
      issuetype: (i) => [i.issuetype],
      type: (i) => [i.issuetype],
      labels: (i) => i.labels,
      key: (i) => [i.key],
      priority: (i) => [i.priority],
      assignee: (i) => (i.assignee ? [i.assignee.accountId] : []),
    };
    const getter = get[field];
    if (!getter) return { ok: false, message: `Field '${m[1]}' does not exist or you do not have permission to view it.` };
    if (field === 'project') {
      const unknown = values.find((v) => !projects.some((p) => p.key.toLowerCase() === v.toLowerCase()));
      if (unknown) return { ok: false, message: `The value '${unknown}' does not exist for the field 'project'.` };
    }
    const wanted = values.map((v) => (v.toLowerCase() === 'currentuser()' ? JIRA_FAKE_USERS.me.accountId : v).toLowerCase());
    const matches = (i: FakeJiraIssue) => getter(i).some((v) => wanted.includes(v.toLowerCase()));
    tests.push(op === '!=' ? (i) => !matches(i) : matches);
  }
  return { ok: true, filter: (i) => tests.every((t) => t(i)), descending: /\bdesc\b/i.test(order) };
}

/**
 * A fake of the Jira Cloud REST API v3 (issues, search, comments, transitions, projects): Basic
 * email:token auth on the site, or OAuth bearer tokens under /ex/jira/{cloudId} as api.atlassian.com
 * serves them; `{"errorMessages", "errors"}` bodies; enhanced JQL search with nextPageToken;
 * startAt/isLast project pages; 429 with Retry-After.
 */
export async function startFakeJira(seed: { issues: number } = { issues: 7 }): Promise<FakeServer & { issues: FakeJiraIssue[]; projects: Project[] }> {
  const projects: Project[] = [
    { id: '10000', key: 'ENG', name: 'Engineering', projectTypeKey: 'software', style: 'next-gen' },
    { id: '10001', key: 'MKT', name: 'Marketing', projectTypeKey: 'business', style: 'classic' },
    { id: '10002', key: 'OPS', name: 'Operations', projectTypeKey: 'service_desk', style: 'classic' },
  ];
  const statusCycle: StatusName[] = ['To Do', 'In Progress', 'Done'];
  const issues: FakeJiraIssue[] = Array.from({ length: seed.issues }, (_, i) => ({
    id: String(10100 + i),
    key: `ENG-${i + 1}`,
    projectKey: 'ENG',
    summary: `Issue ${i + 1}`,
    description: adfParagraph(`Description of ENG-${i + 1}`),
    issuetype: i % 3 === 0 ? 'Bug' : 'Task',
    status: statusCycle[i % 3]!,
    priority: 'Medium',
    labels: i % 2 === 0 ? ['backend'] : [],
    assignee: i % 2 === 0 ? { ...JIRA_FAKE_USERS.me } : null,
    parent: null,
    duedate: null,
    created: new Date(Date.UTC(2026, 0, i + 1)).toISOString().replace('Z', '+0000'),
    updated: new Date(Date.UTC(2026, 0, i + 1)).toISOString().replace('Z', '+0000'),
    comments: [],
  }));
  let base = '';
  let nextComment = 10000;
  const now = () => new Date().toISOString().replace('Z', '+0000');
  const apiBase = (req: FakeRequest) => `${base}${req.params.cloudId ? `/ex/jira/${req.params.cloudId}` : ''}`;
  const find = (idOrKey: string) => issues.find((i) => i.key.toLowerCase() === idOrKey.toLowerCase() || i.id === idOrKey);
  const users = Object.values(JIRA_FAKE_USERS);

  const render = (req: FakeRequest, issue: FakeJiraIssue, fields: string[] | null) => {
    const all: Record<string, unknown> = {
      summary: issue.summary,
      description: issue.description,
      status: STATUSES[issue.status],
      issuetype: { name: issue.issuetype, subtask: issue.issuetype === 'Subtask' },
      project: projects.find((p) => p.key === issue.projectKey),
      priority: { name: issue.priority },
      labels: issue.labels,
      assignee: issue.assignee,
      reporter: JIRA_FAKE_USERS.me,
      parent: issue.parent ? { key: issue.parent } : null,
      duedate: issue.duedate,
      created: issue.created,
      updated: issue.updated,
      comment: { comments: issue.comments, maxResults: issue.comments.length, total: issue.comments.length, startAt: 0 },
    };
    const wanted = fields === null || fields.includes('*all') ? Object.keys(all) : fields;
    const out: Record<string, unknown> = {};
    for (const f of wanted) if (f in all) out[f] = all[f];
    return { expand: 'renderedFields,names,schema,operations,editmeta,changelog', id: issue.id, key: issue.key, self: `${apiBase(req)}/rest/api/3/issue/${issue.id}`, fields: out };
  };

  /** Checks the fields of a create or edit the way Jira does, collecting every problem per field. */
  const checkFields = (fields: Record<string, unknown>, creating: boolean): Record<string, string> => {
    const errors: Record<string, string> = {};
    if (creating) {
      const key = (fields.project as { key?: string } | undefined)?.key;
      if (!key || !projects.some((p) => p.key === key)) errors.project = 'valid project is required';
      const type = (fields.issuetype as { name?: string } | undefined)?.name;
      if (!type || !ISSUE_TYPES.includes(type)) errors.issuetype = 'Specify a valid issue type';
      if (typeof fields.summary !== 'string' || fields.summary.trim() === '') errors.summary = 'You must specify a summary of the issue.';
    } else if ('summary' in fields && (typeof fields.summary !== 'string' || fields.summary.trim() === '')) {
      errors.summary = 'You must specify a summary of the issue.';
    }
    if ('description' in fields && fields.description !== null && !isAdfDoc(fields.description)) errors.description = 'Operation value must be an Atlassian Document (see the Atlassian Document Format)';
    if ('labels' in fields) {
      const bad = (fields.labels as unknown[]).find((l) => typeof l !== 'string' || /\s/.test(l));
      if (bad !== undefined) errors.labels = `The label '${String(bad)}' contains spaces which is invalid.`;
    }
    if ('assignee' in fields) {
      const id = (fields.assignee as { accountId?: string | null } | null)?.accountId;
      if (id !== null && id !== undefined && !users.some((u) => u.accountId === id)) errors.assignee = `User '${id}' cannot be assigned issues.`;
    }
    if ('priority' in fields && !PRIORITIES.includes((fields.priority as { name?: string }).name ?? '')) errors.priority = 'The priority selected is invalid.';
    if ('parent' in fields && !find((fields.parent as { key?: string }).key ?? '')) errors.parent = 'Could not find issue by id or key.';
    if ('duedate' in fields && fields.duedate !== null && !/^\d{4}-\d{2}-\d{2}$/.test(String(fields.duedate))) errors.duedate = 'Error parsing date string: ' + String(fields.duedate);
    return errors;
  };

  const apply = (issue: FakeJiraIssue, fields: Record<string, unknown>) => {
    if ('summary' in fields) issue.summary = fields.summary as string;
    if ('description' in fields) issue.description = fields.description;
    if ('labels' in fields) issue.labels = fields.labels as string[];
    if ('assignee' in fields) {
      const id = (fields.assignee as { accountId?: string | null } | null)?.accountId;
      issue.assignee = users.find((u) => u.accountId === id) ?? null;
    }
    if ('priority' in fields) issue.priority = (fields.priority as { name: string }).name;
    if ('parent' in fields) issue.parent = find((fields.parent as { key: string }).key)!.key;
    if ('duedate' in fields) issue.duedate = fields.duedate as string | null;
    issue.updated = now();
  };

  const addComment = (issue: FakeJiraIssue, body: unknown): Comment => {
    const comment: Comment = { id: String(nextComment++), author: { ...JIRA_FAKE_USERS.me }, body, created: now(), updated: now() };
    issue.comments.push(comment);
    return comment;
  };

  const transitionsOf = (issue: FakeJiraIssue) =>
    WORKFLOW[issue.status].map((t) => ({ id: t.id, name: t.name, to: STATUSES[t.to], hasScreen: false, isGlobal: false, isInitial: false, isAvailable: true, isConditional: false, isLooped: false }));

  const routes = new FakeRoutes();
  // Every route answers both on the site (/rest/...) and through the OAuth gateway (/ex/jira/{cloudId}/rest/...).
  const route = (method: string, path: string, handler: FakeHandler) => {
    routes.route(method, path, handler);
    routes.route(method, `/ex/jira/:cloudId${path}`, handler);
  };

  route('POST', '/rest/api/3/search/jql', (req) => {
    const body = req.json as { jql?: unknown; maxResults?: unknown; nextPageToken?: unknown; fields?: unknown } | undefined;
    if (!body || typeof body.jql !== 'string' || (body.maxResults !== undefined && typeof body.maxResults !== 'number')) {
      return { status: 400, body: errorBody(['Invalid request payload. Refer to the REST API documentation and try again.']) };
    }
    const compiled = compileJql(body.jql, projects);
    if (!compiled.ok) return { status: 400, body: { ...errorBody([compiled.message]), warningMessages: [] } };
    let offset = 0;
    if (body.nextPageToken !== undefined) {
      const decoded = /^offset:(\d+)$/.exec(Buffer.from(String(body.nextPageToken), 'base64url').toString('utf8'));
      if (!decoded) return { status: 400, body: errorBody(['The provided next page token is invalid or expired.']) };
      offset = Number(decoded[1]);
    }
    const max = Math.min(Number(body.maxResults ?? 50), 5000);
    const matching = issues.filter(compiled.filter).sort((a, b) => Number(a.id) - Number(b.id));
    if (compiled.descending) matching.reverse();
    const page = matching.slice(offset, offset + max);
    const isLast = offset + max >= matching.length;
    // The enhanced search returns only issue ids unless fields are asked for.
    const fields = Array.isArray(body.fields) ? (body.fields as string[]) : ['id'];
    const out: Record<string, unknown> = { issues: page.map((i) => render(req, i, fields)), isLast };
    if (!isLast) out.nextPageToken = Buffer.from(`offset:${offset + max}`).toString('base64url');
    return { body: out };
  });

  route('GET', '/rest/api/3/issue/:issueIdOrKey', (req) => {
    const issue = find(req.params.issueIdOrKey!);
    if (!issue) return issueNotFound;
    const fields = req.query.get('fields');
    return { body: render(req, issue, fields ? fields.split(',') : null) };
  });

  route('POST', '/rest/api/3/issue', (req) => {
    const fields = (req.json as { fields?: Record<string, unknown> } | undefined)?.fields;
    if (!fields) return { status: 400, body: errorBody(['Invalid request payload. Refer to the REST API documentation and try again.']) };
    const errors = checkFields(fields, true);
    if (Object.keys(errors).length > 0) return { status: 400, body: errorBody([], errors) };
    const project = (fields.project as { key: string }).key;
    const number = issues.filter((i) => i.projectKey === project).length + 1;
    const issue: FakeJiraIssue = {
      id: String(10100 + issues.length),
      key: `${project}-${number}`,
      projectKey: project,
      summary: '',
      description: null,
      issuetype: (fields.issuetype as { name: string }).name,
      status: 'To Do',
      priority: 'Medium',
      labels: [],
      assignee: null,
      parent: null,
      duedate: null,
      created: now(),
      updated: now(),
      comments: [],
    };
    apply(issue, fields);
    issues.push(issue);
    return { status: 201, body: { id: issue.id, key: issue.key, self: `${apiBase(req)}/rest/api/3/issue/${issue.id}` } };
  });

  route('PUT', '/rest/api/3/issue/:issueIdOrKey', (req) => {
    const issue = find(req.params.issueIdOrKey!);
    if (!issue) return issueNotFound;
    // Turning notifications off is reserved to administrators; the fake's user is not one.
    if (req.query.get('notifyUsers') === 'false') return { status: 403, body: errorBody(['To discard the user notification either admin or project admin permissions are required.']) };
    const fields = (req.json as { fields?: Record<string, unknown> } | undefined)?.fields ?? {};
    const errors = checkFields(fields, false);
    if (Object.keys(errors).length > 0) return { status: 400, body: errorBody([], errors) };
    apply(issue, fields);
    return { status: 204 };
  });

  route('POST', '/rest/api/3/issue/:issueIdOrKey/comment', (req) => {
    const issue = find(req.params.issueIdOrKey!);
    if (!issue) return issueNotFound;
    const body = (req.json as { body?: unknown } | undefined)?.body;
    if (!isAdfDoc(body)) return { status: 400, body: errorBody([], { comment: 'Comment body can not be empty!' }) };
    const comment = addComment(issue, body);
    return { status: 201, body: { self: `${apiBase(req)}/rest/api/3/issue/${issue.id}/comment/${comment.id}`, ...comment, jsdPublic: true } };
  });

  route('GET', '/rest/api/3/issue/:issueIdOrKey/transitions', (req) => {
    const issue = find(req.params.issueIdOrKey!);
    return issue ? { body: { expand: 'transitions', transitions: transitionsOf(issue) } } : issueNotFound;
  });

  route('POST', '/rest/api/3/issue/:issueIdOrKey/transitions', (req) => {
    const issue = find(req.params.issueIdOrKey!);
    if (!issue) return issueNotFound;
    const body = req.json as { transition?: { id?: string }; update?: { comment?: Array<{ add?: { body?: unknown } }> } } | undefined;
    const id = body?.transition?.id;
    const transition = WORKFLOW[issue.status].find((t) => t.id === id);
    if (!transition) return { status: 400, body: errorBody([`Transition id '${String(id)}' is not valid for this issue.`]) };
    for (const op of body?.update?.comment ?? []) {
      if (!isAdfDoc(op.add?.body)) return { status: 400, body: errorBody([], { comment: 'Comment body can not be empty!' }) };
    }
    issue.status = transition.to;
    issue.updated = now();
    for (const op of body?.update?.comment ?? []) addComment(issue, op.add!.body);
    return { status: 204 };
  });

  route('GET', '/rest/api/3/project/search', (req) => {
    const startAt = Number(req.query.get('startAt') ?? 0);
    // Jira caps this page size at 50 whatever is asked.
    const maxResults = Math.min(Number(req.query.get('maxResults') ?? 50), 50);
    const query = (req.query.get('query') ?? '').toLowerCase();
    const matching = projects.filter((p) => !query || p.key.toLowerCase().includes(query) || p.name.toLowerCase().includes(query));
    const values = matching.slice(startAt, startAt + maxResults);
    const isLast = startAt + maxResults >= matching.length;
    const self = `${apiBase(req)}/rest/api/3/project/search?startAt=${startAt}&maxResults=${maxResults}`;
    const body: Record<string, unknown> = { self, maxResults, startAt, total: matching.length, isLast, values: values.map((p) => ({ ...p, self: `${apiBase(req)}/rest/api/3/project/${p.id}`, isPrivate: false })) };
    if (!isLast) body.nextPage = `${apiBase(req)}/rest/api/3/project/search?startAt=${startAt + maxResults}&maxResults=${maxResults}`;
    return { body };
  });

  const server = await startFakeServer({
    routes,
    notFound: { status: 404, body: errorBody(['No resource found for this path.']) },
    before: (req): FakeReply | undefined => {
      if (req.params.cloudId !== undefined || req.path.startsWith('/ex/jira/')) {
        // api.atlassian.com: only OAuth bearer tokens granted for this site's cloud id.
        if (req.headers.authorization !== `Bearer ${JIRA_FAKE_CREDENTIALS.oauthAccessToken}`) return { status: 401, body: { code: 401, message: 'Unauthorized' } };
        if (req.params.cloudId !== JIRA_FAKE_CREDENTIALS.cloudId) return { status: 401, body: { code: 401, message: 'Unauthorized; scope does not match' } };
        return undefined;
      }
      const basic = decodeBasic(req.headers.authorization);
      const known: string[] = [JIRA_FAKE_CREDENTIALS.apiToken, JIRA_FAKE_CREDENTIALS.rateLimitedToken, JIRA_FAKE_CREDENTIALS.failingToken];
      if (!basic || basic.email !== JIRA_FAKE_CREDENTIALS.email || !known.includes(basic.token)) {
        return { status: 401, headers: { 'www-authenticate': 'OAuth realm="https%3A%2F%2Fexample.atlassian.net"' }, body: errorBody(['Client must be authenticated to access this resource.']) };
      }
      if (basic.token === JIRA_FAKE_CREDENTIALS.rateLimitedToken) {
        return { status: 429, headers: { 'retry-after': '17', 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'ratelimit-reason': 'jira-burst-based' }, body: errorBody(['Rate limit exceeded.']) };
      }
      if (basic.token === JIRA_FAKE_CREDENTIALS.failingToken) return { status: 500, body: errorBody(['Internal server error']) };
      return undefined;
    },
  });
  base = server.url;
  return Object.assign(server, { issues, projects });
}
