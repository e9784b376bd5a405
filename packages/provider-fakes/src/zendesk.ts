import { FakeRoutes, startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server';

/** The agent and API tokens the fake Zendesk accepts (API token auth: Basic `{email}/token:{api_token}`). */
export const ZENDESK_FAKE = {
  email: 'agent@example.com',
  /** The agent's user id. */
  agentId: 1001,
  tokens: {
    valid: 'zd_fake_valid_token',
    /** Authenticated, but over the account's rate limit: 429 with Retry-After. */
    rateLimited: 'zd_fake_rate_limited',
    /** Authenticated, but a 503 on every call. */
    failing: 'zd_fake_failing',
  },
} as const;

interface User {
  id: number;
  name: string;
  email: string;
}

interface Comment {
  id: number;
  type: 'Comment';
  author_id: number;
  body: string;
  public: boolean;
  created_at: string;
}

interface Ticket {
  id: number;
  subject: string;
  status: 'new' | 'open' | 'pending' | 'hold' | 'solved' | 'closed';
  priority: 'urgent' | 'high' | 'normal' | 'low' | null;
  type: 'problem' | 'incident' | 'question' | 'task' | null;
  requester_id: number;
  submitter_id: number;
  assignee_id: number | null;
  tags: string[];
  comments: Comment[];
  created_at: string;
  updated_at: string;
}

const STATUSES = ['new', 'open', 'pending', 'hold', 'solved', 'closed'];
const PRIORITIES = ['urgent', 'high', 'normal', 'low'];
const TYPES = ['problem', 'incident', 'question', 'task'];

/** Zendesk's validation error: 422 RecordInvalid with per-field details. */
function recordInvalid(field: string, description: string, error: string): FakeReply {
  return { status: 422, body: { error: 'RecordInvalid', description: 'Record validation errors', details: { [field]: [{ description, error }] } } };
}

const recordNotFound: FakeReply = { status: 404, body: { error: 'RecordNotFound', description: 'Not found' } };

/**
 * A fake of the Zendesk Support (Ticketing) API for the ticket tools: API-token Basic auth with
 * Zendesk's 401 `Couldn't authenticate you`, RecordNotFound 404s, RecordInvalid 422s with details,
 * 429 with Retry-After, offset pagination with next_page URLs on search, and cursor pagination
 * (`page[size]`, `page[after]`, `meta.has_more`, `meta.after_cursor`, `links.next`) on comments.
 */
export async function startFakeZendesk(seed: { tickets: number; commentsOnFirstTicket: number } = { tickets: 5, commentsOnFirstTicket: 3 }): Promise<FakeServer & { tickets: Ticket[]; users: User[] }> {
  const users: User[] = [
    { id: ZENDESK_FAKE.agentId, name: 'Ada Agent', email: ZENDESK_FAKE.email },
    { id: 2001, name: 'Carl Customer', email: 'carl@customer.test' },
  ];
  let nextUserId = 3000;
  let nextCommentId = 50_000;
  let nextAuditId = 90_000;
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().replace('.000Z', 'Z');
  const tickets: Ticket[] = Array.from({ length: seed.tickets }, (_, i) => ({
    id: i + 1,
    subject: `Printer ${i + 1} is on fire`,
    status: i % 3 === 2 ? 'solved' : 'open',
    priority: i % 2 === 0 ? 'high' : 'normal',
    type: 'incident',
    requester_id: 2001,
    submitter_id: 2001,
    assignee_id: i % 2 === 0 ? ZENDESK_FAKE.agentId : null,
    tags: i % 2 === 0 ? ['printer', 'fire'] : ['printer'],
    comments: [{ id: nextCommentId++, type: 'Comment', author_id: 2001, body: `Printer ${i + 1} started smoking.`, public: true, created_at: at(i) }],
    created_at: at(i),
    updated_at: at(i),
  }));
  const first = tickets[0];
  for (let c = 1; first && c < seed.commentsOnFirstTicket; c++) {
    first.comments.push({ id: nextCommentId++, type: 'Comment', author_id: c % 2 ? ZENDESK_FAKE.agentId : 2001, body: `Follow-up ${c}`, public: c % 3 !== 0, created_at: at(c + 1) });
  }
  let base = '';

  const render = (t: Ticket) => {
    const { comments, ...rest } = t;
    return { url: `${base}/api/v2/tickets/${t.id}.json`, ...rest, description: comments[0]?.body ?? '' };
  };
  const renderComment = (c: Comment) => ({ ...c, html_body: `<p>${c.body}</p>`, plain_body: c.body, attachments: [], via: { channel: 'api' } });
  const audit = (t: Ticket, events: unknown[]) => ({ id: nextAuditId++, ticket_id: t.id, created_at: new Date().toISOString(), author_id: ZENDESK_FAKE.agentId, events });

  function userFor(requester: { name?: string; email?: string } | undefined): User | undefined {
    if (!requester?.email) return undefined;
    let user = users.find((u) => u.email === requester.email);
    if (!user) {
      user = { id: nextUserId++, name: requester.name ?? requester.email, email: requester.email };
      users.push(user);
    }
    return user;
  }

  /** A small subset of Zendesk's search syntax: `key:value` filters and free words. */
  function matches(t: Ticket, query: string): boolean {
    for (const term of query.match(/"[^"]*"|\S+/g) ?? []) {
      const m = /^(\w+):(.+)$/.exec(term);
      if (!m) {
        const word = term.replace(/"/g, '').toLowerCase();
        if (!t.subject.toLowerCase().includes(word) && !t.comments.some((c) => c.body.toLowerCase().includes(word))) return false;
        continue;
      }
      const [, key, value] = m as unknown as [string, string, string];
      if (key === 'type' && value !== 'ticket') return false;
      if (key === 'status' && t.status !== value) return false;
      if (key === 'priority' && t.priority !== value) return false;
      if ((key === 'tags' || key === 'tag') && !t.tags.includes(value)) return false;
      if (key === 'requester' && users.find((u) => u.id === t.requester_id)?.email !== value) return false;
      if (key === 'assignee' && (value === 'none' ? t.assignee_id !== null : String(t.assignee_id) !== value && users.find((u) => u.id === t.assignee_id)?.email !== value)) return false;
    }
    return true;
  }

  function applyChanges(t: Ticket, body: Record<string, unknown>, events: unknown[]): FakeReply | undefined {
    if (body.status !== undefined) {
      if (!STATUSES.includes(String(body.status))) return recordInvalid('status', `Status: ${String(body.status)} is not valid`, 'InvalidValue');
      t.status = body.status as Ticket['status'];
      events.push({ type: 'Change', field_name: 'status', value: t.status });
    }
    if (body.priority !== undefined) {
      if (body.priority !== null && !PRIORITIES.includes(String(body.priority))) return recordInvalid('priority', `Priority: ${String(body.priority)} is not valid`, 'InvalidValue');
      t.priority = body.priority as Ticket['priority'];
      events.push({ type: 'Change', field_name: 'priority', value: t.priority });
    }
    if (body.type !== undefined) {
      if (body.type !== null && !TYPES.includes(String(body.type))) return recordInvalid('type', `Type: ${String(body.type)} is not valid`, 'InvalidValue');
      t.type = body.type as Ticket['type'];
    }
    if (body.assignee_id !== undefined) {
      if (body.assignee_id !== null && !users.some((u) => u.id === body.assignee_id)) return recordInvalid('assignee', 'Assignee: is invalid', 'InvalidValue');
      t.assignee_id = body.assignee_id as number | null;
      events.push({ type: 'Change', field_name: 'assignee_id', value: t.assignee_id });
    }
    if (Array.isArray(body.tags)) t.tags = body.tags as string[];
    const comment = body.comment as { body?: string; public?: boolean } | undefined;
    if (comment) {
      if (!comment.body?.trim()) return recordInvalid('base', 'Comment: cannot be blank', 'BlankValue');
      const c: Comment = { id: nextCommentId++, type: 'Comment', author_id: ZENDESK_FAKE.agentId, body: comment.body, public: comment.public ?? true, created_at: new Date().toISOString() };
      t.comments.push(c);
      events.push({ id: c.id, type: 'Comment', author_id: c.author_id, body: c.body, public: c.public });
    }
    t.updated_at = new Date().toISOString();
    return undefined;
  }

  const routes = new FakeRoutes()
    .route('GET', '/api/v2/search.json', (req) => {
      const query = req.query.get('query') ?? '';
      const perPage = Math.min(Number(req.query.get('per_page') ?? 100), 100);
      const page = Number(req.query.get('page') ?? 1);
      if (page * perPage > 1000) return { status: 422, body: { error: 'InvalidPaginationParameter', description: 'Invalid search: Requested response size was greater than Search Response Limits' } };
      const sortBy = req.query.get('sort_by');
      const desc = (req.query.get('sort_order') ?? 'desc') === 'desc';
      let found = tickets.filter((t) => matches(t, query));
      if (sortBy === 'created_at' || sortBy === 'updated_at') found = [...found].sort((a, b) => (desc ? b[sortBy].localeCompare(a[sortBy]) : a[sortBy].localeCompare(b[sortBy])));
      const slice = found.slice((page - 1) * perPage, page * perPage);
      const link = (p: number) => {
        const url = new URL(`${base}/api/v2/search.json`);
        req.query.forEach((v, k) => url.searchParams.set(k, v));
        url.searchParams.set('page', String(p));
        return url.toString();
      };
      return {
        body: {
          results: slice.map((t) => ({ ...render(t), result_type: 'ticket' })),
          facets: null,
          next_page: page * perPage < found.length ? link(page + 1) : null,
          previous_page: page > 1 ? link(page - 1) : null,
          count: found.length,
        },
      };
    })
    .route('GET', '/api/v2/tickets/:id.json', (req) => {
      const t = tickets.find((x) => x.id === Number(req.params.id));
      return t ? { body: { ticket: render(t) } } : recordNotFound;
    })
    .route('POST', '/api/v2/tickets.json', (req) => {
      const body = (req.json as { ticket?: Record<string, unknown> } | undefined)?.ticket;
      if (!body) return { status: 400, body: { error: 'InvalidEndpoint', description: 'Missing ticket parameter' } };
      const comment = body.comment as { body?: string } | undefined;
      if (!comment?.body?.trim()) return recordInvalid('base', 'Description: cannot be blank', 'BlankValue');
      const requester = userFor(body.requester as { name?: string; email?: string } | undefined);
      const t: Ticket = {
        id: tickets.length + 1,
        subject: typeof body.subject === 'string' && body.subject ? body.subject : comment.body.slice(0, 50),
        status: 'new',
        priority: null,
        type: null,
        requester_id: requester?.id ?? (typeof body.requester_id === 'number' ? body.requester_id : ZENDESK_FAKE.agentId),
        submitter_id: ZENDESK_FAKE.agentId,
        assignee_id: null,
        tags: [],
        comments: [],
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      };
      const events: unknown[] = [];
      const invalid = applyChanges(t, { ...body, status: body.status ?? (body.assignee_id ? 'open' : 'new') }, events);
      if (invalid) return invalid;
      tickets.push(t);
      return { status: 201, headers: { location: `${base}/api/v2/tickets/${t.id}.json` }, body: { ticket: render(t), audit: audit(t, events) } };
    })
    .route('PUT', '/api/v2/tickets/:id.json', (req) => {
      const t = tickets.find((x) => x.id === Number(req.params.id));
      if (!t) return recordNotFound;
      const body = (req.json as { ticket?: Record<string, unknown> } | undefined)?.ticket;
      if (!body) return { status: 400, body: { error: 'InvalidEndpoint', description: 'Missing ticket parameter' } };
      if (t.status === 'closed') return recordInvalid('status', 'Status: closed prevents ticket update', 'ClosedPreventsUpdate');
      const events: unknown[] = [];
      const invalid = applyChanges(t, body, events);
      if (invalid) return invalid;
      return { body: { ticket: render(t), audit: audit(t, events) } };
    })
    .route('GET', '/api/v2/tickets/:id/comments.json', (req) => {
      const t = tickets.find((x) => x.id === Number(req.params.id));
      if (!t) return recordNotFound;
      const ordered = (req.query.get('sort_order') ?? 'asc') === 'desc' ? [...t.comments].reverse() : t.comments;
      const size = req.query.get('page[size]');
      if (size === null) return { body: { comments: ordered.map(renderComment), next_page: null, previous_page: null, count: ordered.length } };
      const pageSize = Number(size);
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) return { status: 400, body: { error: 'InvalidPaginationParameter', description: 'page[size] must be an integer between 1 and 100' } };
      const after = req.query.get('page[after]');
      const start = after ? Number(Buffer.from(after, 'base64url').toString()) : 0;
      if (!Number.isInteger(start)) return { status: 400, body: { error: 'InvalidPaginationParameter', description: 'page[after] is not a valid cursor' } };
      const slice = ordered.slice(start, start + pageSize);
      const hasMore = start + pageSize < ordered.length;
      const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
      const afterCursor = slice.length ? cursor(start + slice.length) : null;
      const link = (param: string, value: string | null) => {
        if (value === null) return null;
        const url = new URL(`${base}${req.path}`);
        url.searchParams.set('page[size]', String(pageSize));
        url.searchParams.set(param, value);
        return url.toString();
      };
      return {
        body: {
          comments: slice.map(renderComment),
          meta: { has_more: hasMore, after_cursor: afterCursor, before_cursor: slice.length ? cursor(start) : null },
          links: { next: hasMore ? link('page[after]', afterCursor) : null, prev: start > 0 ? link('page[before]', cursor(start)) : null },
        },
      };
    });

  function authenticate(req: FakeRequest): FakeReply | undefined {
    const match = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
    const [user, token] = [decoded.slice(0, decoded.indexOf(':')), decoded.slice(decoded.indexOf(':') + 1)];
    const tokens: readonly string[] = Object.values(ZENDESK_FAKE.tokens);
    if (user !== `${ZENDESK_FAKE.email}/token` || !tokens.includes(token)) return { status: 401, headers: { 'www-authenticate': 'Basic realm="Web Password"' }, body: { error: "Couldn't authenticate you" } };
    if (token === ZENDESK_FAKE.tokens.rateLimited) return { status: 429, headers: { 'retry-after': '45' }, body: { error: 'APIRateLimitExceeded', description: 'Number of allowed API requests per minute exceeded' } };
    if (token === ZENDESK_FAKE.tokens.failing) return { status: 503, body: 'Service Unavailable' };
    return undefined;
  }

  const server = await startFakeServer({ routes, before: authenticate, notFound: { status: 404, body: { error: 'InvalidEndpoint', description: 'Not found' } } });
  base = server.url;
  return Object.assign(server, { tickets, users });
}
