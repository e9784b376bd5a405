import { createGuardedRequest } from '@patchbay/outbound';
import { ZENDESK_FAKE, startFakeZendesk } from '@patchbay/provider-fakes';
import { createServer } from 'node:http';
import { findTool, getBuiltinConnector } from '../src/catalog';
import { DEFAULT_TOOL_LIMITS } from '../src/core/types';
import { expectOutputMatchesSchema } from './output-schema';
import { expectToolError, runTool } from './run-tool';

let fake: Awaited<ReturnType<typeof startFakeZendesk>>;
const cred = (apiToken: string = ZENDESK_FAKE.tokens.valid, siteUrl = fake.url) => ({ auth_type: 'api_key' as const, values: { site_url: siteUrl, email: ZENDESK_FAKE.email, api_token: apiToken } });
// The base URL argument is the deployment override; the credential's site_url wins, as in production.
const run = async (tool: string, input: unknown, credential = cred()) => {
  const output = await runTool('zendesk', tool, { input }, { credential, baseUrl: 'https://unused.invalid' });
  expectOutputMatchesSchema('zendesk', tool, output);
  return output as any;
};
const basic = (token: string = ZENDESK_FAKE.tokens.valid) => `Basic ${Buffer.from(`${ZENDESK_FAKE.email}/token:${token}`).toString('base64')}`;
const last = () => fake.requests.at(-1)!;

beforeAll(async () => {
  fake = await startFakeZendesk({ tickets: 30, commentsOnFirstTicket: 7 });
});
afterAll(async () => {
  await fake.close();
});

describe('zendesk connector', () => {
  it('search_tickets calls /api/v2/search.json with type:ticket and API-token Basic auth, and pages with next_page', async () => {
    const first = await run('search_tickets', { query: 'status:open printer', per_page: 10, sort_by: 'created_at', sort_order: 'asc' });
    const sent = last();
    expect(sent.method).toBe('GET');
    expect(sent.path).toBe('/api/v2/search.json');
    expect(sent.query.get('query')).toBe('type:ticket status:open printer');
    expect(sent.query.get('per_page')).toBe('10');
    expect(sent.query.get('sort_by')).toBe('created_at');
    expect(sent.headers.authorization).toBe(basic());
    expect(first.count).toBe(20);
    expect(first.tickets).toHaveLength(10);
    expect(first.tickets[0]).toMatchObject({ id: 1, url: `${fake.url}/agent/tickets/1`, subject: 'Printer 1 is on fire', status: 'open', priority: 'high', requester_id: 2001, tags: ['printer', 'fire'], description: 'Printer 1 started smoking.' });
    expect(first.next_page).toBe(2);

    const second = await run('search_tickets', { query: 'status:open printer', per_page: 10, sort_by: 'created_at', sort_order: 'asc', page: 2 });
    expect(last().query.get('page')).toBe('2');
    expect(second.next_page).toBeNull();
    const ids = [...first.tickets, ...second.tickets].map((t: { id: number }) => t.id);
    expect(new Set(ids).size).toBe(20);
  });

  it('search_tickets does not add type:ticket twice', async () => {
    await run('search_tickets', { query: 'type:ticket priority:high' });
    expect(last().query.get('query')).toBe('type:ticket priority:high');
  });

  it('get_ticket returns one ticket in the tool\'s shape', async () => {
    const ticket = await run('get_ticket', { ticket_id: 2 });
    expect(last().path).toBe('/api/v2/tickets/2.json');
    expect(ticket).toEqual({
      id: 2,
      url: `${fake.url}/agent/tickets/2`,
      subject: 'Printer 2 is on fire',
      description: 'Printer 2 started smoking.',
      status: 'open',
      priority: 'normal',
      type: 'incident',
      requester_id: 2001,
      assignee_id: null,
      group_id: null,
      tags: ['printer'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('create_ticket posts subject, first comment, requester and priority under "ticket"', async () => {
    const ticket = await run('create_ticket', { subject: 'Cannot log in', body: 'The login page spins forever.', requester_email: 'dana@customer.test', requester_name: 'Dana', priority: 'urgent', tags: ['login'] });
    const sent = last();
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/api/v2/tickets.json');
    expect(sent.json).toEqual({ ticket: { subject: 'Cannot log in', comment: { body: 'The login page spins forever.' }, requester: { email: 'dana@customer.test', name: 'Dana' }, priority: 'urgent', tags: ['login'] } });
    expect(ticket).toMatchObject({ subject: 'Cannot log in', description: 'The login page spins forever.', status: 'new', priority: 'urgent', tags: ['login'] });
    expect(fake.users.find((u) => u.email === 'dana@customer.test')?.id).toBe(ticket.requester_id);
  });

  it('update_ticket sets status, priority and assignee with an internal note in one PUT', async () => {
    const res = await run('update_ticket', { ticket_id: 3, status: 'pending', priority: 'low', assignee_id: ZENDESK_FAKE.agentId, comment: 'Waiting for the customer.', comment_public: false });
    const sent = last();
    expect(sent.method).toBe('PUT');
    expect(sent.path).toBe('/api/v2/tickets/3.json');
    expect(sent.json).toEqual({ ticket: { status: 'pending', priority: 'low', assignee_id: ZENDESK_FAKE.agentId, comment: { body: 'Waiting for the customer.', public: false } } });
    expect(res.ticket).toMatchObject({ id: 3, status: 'pending', priority: 'low', assignee_id: ZENDESK_FAKE.agentId });
    expect(res.comment_id).toEqual(expect.any(Number));
    expect(fake.tickets[2]?.comments.at(-1)).toMatchObject({ id: res.comment_id, public: false });
  });

  it('update_ticket unassigns with assignee_id null and needs at least one change', async () => {
    const res = await run('update_ticket', { ticket_id: 1, assignee_id: null });
    expect(last().json).toEqual({ ticket: { assignee_id: null } });
    expect(res).toMatchObject({ ticket: { assignee_id: null }, comment_id: null });
    const before = fake.requests.length;
    await expectToolError(run('update_ticket', { ticket_id: 1 }), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('add_ticket_comment adds a public reply by default', async () => {
    const res = await run('add_ticket_comment', { ticket_id: 4, body: 'We are on it.' });
    expect(last()).toMatchObject({ method: 'PUT', path: '/api/v2/tickets/4.json' });
    expect(last().json).toEqual({ ticket: { comment: { body: 'We are on it.', public: true } } });
    expect(res).toEqual({ ticket_id: 4, comment_id: expect.any(Number), public: true, ticket_status: 'open' });
  });

  it('list_ticket_comments pages with page[size] and page[after] cursors', async () => {
    const first = await run('list_ticket_comments', { ticket_id: 1, page_size: 3 });
    expect(last().path).toBe('/api/v2/tickets/1/comments.json');
    expect(last().query.get('page[size]')).toBe('3');
    expect(first.comments).toHaveLength(3);
    expect(first.comments[0]).toEqual({ id: expect.any(Number), author_id: 2001, body: 'Printer 1 started smoking.', public: true, created_at: expect.any(String), attachments: [] });
    expect(first.next_cursor).toEqual(expect.any(String));
    const bodies: string[] = first.comments.map((c: { body: string }) => c.body);
    let cursor: string | null = first.next_cursor;
    while (cursor) {
      const page = await run('list_ticket_comments', { ticket_id: 1, page_size: 3, cursor });
      expect(last().query.get('page[after]')).toBe(cursor);
      bodies.push(...page.comments.map((c: { body: string }) => c.body));
      cursor = page.next_cursor;
    }
    expect(bodies).toEqual(['Printer 1 started smoking.', ...Array.from({ length: 6 }, (_, i) => `Follow-up ${i + 1}`)]);
  });

  it('refuses input that fails the schema before calling Zendesk', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('update_ticket', { ticket_id: 'one', status: 'done' }), 'invalid_input');
    expect(err.message).toContain('input.ticket_id must be integer');
    expect(err.message).toContain('input.status: must be one of');
    await expectToolError(run('create_ticket', { subject: 'x' }), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('maps 401 Couldn\'t authenticate you to a rejected credential, without echoing the token', async () => {
    const err = await expectToolError(run('get_ticket', { ticket_id: 1 }, cred('zd_wrong_token')), 'credential_rejected');
    expect(err.message).toContain("Couldn't authenticate you");
    expect(err.message).toContain('reconnect Zendesk');
    expect(err.message).not.toContain('zd_wrong_token');
    expect(err.message).not.toContain(basic('zd_wrong_token').slice(6));
  });

  it('maps 404 RecordNotFound to not found', async () => {
    const err = await expectToolError(run('get_ticket', { ticket_id: 9999 }), 'not_found');
    expect(err.message).toContain('RecordNotFound');
  });

  it('maps 422 RecordInvalid to invalid input with Zendesk\'s details', async () => {
    fake.tickets[5]!.status = 'closed';
    const err = await expectToolError(run('update_ticket', { ticket_id: 6, status: 'open' }), 'invalid_input');
    expect(err.status).toBe(422);
    expect(err.message).toContain('RecordInvalid');
    expect(err.message).toContain('Status: closed prevents ticket update');
  });

  it('maps 429 to rate_limited with Retry-After, 5xx to a provider error, and silence to a timeout', async () => {
    const limited = await expectToolError(run('search_tickets', { query: 'printer' }, cred(ZENDESK_FAKE.tokens.rateLimited)), 'rate_limited');
    expect(limited.retryAfterSeconds).toBe(45);
    await expectToolError(run('get_ticket', { ticket_id: 1 }, cred(ZENDESK_FAKE.tokens.failing)), 'provider_error');
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      await expectToolError(runTool('zendesk', 'get_ticket', { input: { ticket_id: 1 } }, { credential: cred(ZENDESK_FAKE.tokens.valid, `http://127.0.0.1:${port}`), baseUrl: 'https://unused.invalid', limits: { timeoutMs: 200 } }), 'timeout');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('maps a site_url on a private address, refused by the runtime\'s guarded client, to blocked_destination', async () => {
    const tool = findTool(getBuiltinConnector('zendesk')!, 'get_ticket')!;
    const ctx = { credential: cred(), baseUrl: fake.url, signal: new AbortController().signal, limits: DEFAULT_TOOL_LIMITS };
    const before = fake.requests.length;
    const err = await expectToolError(tool.execute({ ...ctx, http: createGuardedRequest({ allowPrivateNetwork: false }, { requireHttps: false }) }, { ticket_id: 1 }), 'blocked_destination');
    expect(err.message).toContain('only public addresses');
    expect(fake.requests.length).toBe(before);
    await expect(tool.execute({ ...ctx, http: createGuardedRequest({ allowPrivateNetwork: true }) }, { ticket_id: 1 })).resolves.toMatchObject({ id: 1 });
  });
});
