import { encodePath } from '../../core/provider-http';
import { READ_ONLY, WRITE, arr, bool, inputSchema, int, limit, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { ToolContext, ToolDefinition } from '../../core/types';
import { zendeskRequest } from './client';

export interface ZendeskTicket {
  id: number;
  subject: string | null;
  description: string | null;
  status: string;
  priority: string | null;
  type: string | null;
  requester_id: number | null;
  submitter_id: number | null;
  assignee_id: number | null;
  group_id?: number | null;
  tags: string[];
  created_at: string;
  updated_at: string;
}

interface ZendeskAudit {
  id: number;
  events?: Array<{ id?: number; type: string; public?: boolean }>;
}

export const ticketSchema = objectSchema(
  {
    id: int('Ticket id'),
    url: str('Agent web URL of the ticket'),
    subject: { type: ['string', 'null'] },
    description: { type: ['string', 'null'], description: 'The first comment' },
    status: str('new, open, pending, hold, solved or closed'),
    priority: { type: ['string', 'null'], description: 'urgent, high, normal, low or null' },
    type: { type: ['string', 'null'], description: 'problem, incident, question, task or null' },
    requester_id: { type: ['integer', 'null'] },
    assignee_id: { type: ['integer', 'null'] },
    group_id: { type: ['integer', 'null'] },
    tags: arr(str('Tag'), 'Tags'),
    created_at: str('ISO 8601'),
    updated_at: str('ISO 8601'),
  },
  ['id', 'url', 'subject', 'status'],
);

export function toTicket(ctx: ToolContext, t: ZendeskTicket) {
  return {
    id: t.id,
    url: `${ctx.baseUrl}/agent/tickets/${t.id}`,
    subject: t.subject,
    description: t.description,
    status: t.status,
    priority: t.priority,
    type: t.type,
    requester_id: t.requester_id,
    assignee_id: t.assignee_id,
    group_id: t.group_id ?? null,
    tags: t.tags ?? [],
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

const ticketId = int('Ticket id', { minimum: 1 });
const STATUSES = ['new', 'open', 'pending', 'hold', 'solved', 'closed'];
const PRIORITIES = ['urgent', 'high', 'normal', 'low'];

export const searchTickets: ToolDefinition<{ query: string; sort_by?: string; sort_order?: string; per_page?: number; page?: number }> = {
  name: 'search_tickets',
  description:
    'Search Zendesk tickets with Zendesk search syntax, e.g. "status:open priority:high printer" or "requester:jane@example.com created>2026-01-01" (type:ticket is added for you). Up to 1,000 results; page through with next_page.',
  input_schema: inputSchema(
    {
      query: str('Zendesk search query (keywords and property:value filters)', { minLength: 1, maxLength: 1000 }),
      sort_by: str('Sort field', { enum: ['updated_at', 'created_at', 'priority', 'status', 'ticket_type'] }),
      sort_order: str('asc or desc (default desc)', { enum: ['asc', 'desc'] }),
      per_page: limit(100, 25),
      page: int('Page to fetch, from next_page of an earlier call', { minimum: 1 }),
    },
    ['query'],
  ),
  output_schema: objectSchema({ tickets: arr(ticketSchema, 'Matching tickets'), count: int('Total matches (may exceed what can be paged through)'), next_page: { type: ['integer', 'null'] } }, ['tickets', 'count', 'next_page']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const query = /(^|\s)type:ticket(\s|$)/.test(input.query) ? input.query : `type:ticket ${input.query}`;
    const res = await zendeskRequest<{ results: Array<ZendeskTicket & { result_type?: string }>; next_page: string | null; count: number }>(ctx, {
      path: '/api/v2/search.json',
      query: { query, sort_by: input.sort_by, sort_order: input.sort_order, per_page: input.per_page ?? 25, page: input.page },
    });
    const next = res.data.next_page ? new URL(res.data.next_page).searchParams.get('page') : null;
    return {
      tickets: res.data.results.filter((r) => (r.result_type ?? 'ticket') === 'ticket').map((t) => toTicket(ctx, t)),
      count: res.data.count,
      next_page: next ? Number(next) : null,
    };
  },
};

export const getTicket: ToolDefinition<{ ticket_id: number }> = {
  name: 'get_ticket',
  description: 'Get one Zendesk ticket by id: subject, first comment, status, priority, requester, assignee and tags.',
  input_schema: inputSchema({ ticket_id: ticketId }, ['ticket_id']),
  output_schema: ticketSchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await zendeskRequest<{ ticket: ZendeskTicket }>(ctx, { path: encodePath('/api/v2/tickets/{ticket_id}.json', input) });
    return toTicket(ctx, res.data.ticket);
  },
};

export const createTicket: ToolDefinition<{ subject: string; body: string; requester_email?: string; requester_name?: string; priority?: string; type?: string; tags?: string[] }> = {
  name: 'create_ticket',
  description:
    'Create a Zendesk ticket with a subject and first comment. Give requester_email (and requester_name) to open it on behalf of a customer (the user is created if new); otherwise the connected agent is the requester.',
  input_schema: inputSchema(
    {
      subject: str('Ticket subject', { minLength: 1, maxLength: 255 }),
      body: str('The first comment (the ticket description)', { minLength: 1 }),
      requester_email: str('Email of the customer the ticket is for', { format: 'email' }),
      requester_name: str('Name of that customer, used when Zendesk creates the user'),
      priority: str('Priority', { enum: PRIORITIES }),
      type: str('Ticket type', { enum: ['problem', 'incident', 'question', 'task'] }),
      tags: arr(str('Tag'), 'Tags'),
    },
    ['subject', 'body'],
  ),
  output_schema: ticketSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    if (input.requester_name && !input.requester_email) throw new ToolError('invalid_input', 'input.requester_name needs input.requester_email.');
    const res = await zendeskRequest<{ ticket: ZendeskTicket }>(ctx, {
      method: 'POST',
      path: '/api/v2/tickets.json',
      json: {
        ticket: {
          subject: input.subject,
          comment: { body: input.body },
          requester: input.requester_email ? { email: input.requester_email, name: input.requester_name } : undefined,
          priority: input.priority,
          type: input.type,
          tags: input.tags,
        },
      },
    });
    return toTicket(ctx, res.data.ticket);
  },
};

export const updateTicket: ToolDefinition<{ ticket_id: number; status?: string; priority?: string; assignee_id?: number | null; comment?: string; comment_public?: boolean }> = {
  name: 'update_ticket',
  description:
    'Change a Zendesk ticket\'s status, priority or assignee, optionally adding a comment in the same update (public reply to the requester, or an internal note with comment_public: false).',
  input_schema: inputSchema(
    {
      ticket_id: ticketId,
      status: str('New status', { enum: STATUSES }),
      priority: str('New priority', { enum: PRIORITIES }),
      assignee_id: { type: ['integer', 'null'], description: 'Agent user id to assign, or null to unassign' },
      comment: str('Comment to add with the update', { minLength: 1 }),
      comment_public: bool('Whether the comment is a public reply (default) or an internal note', { default: true }),
    },
    ['ticket_id'],
  ),
  output_schema: objectSchema({ ticket: ticketSchema, comment_id: { type: ['integer', 'null'], description: 'Id of the added comment, if any' } }, ['ticket', 'comment_id']),
  annotations: WRITE,
  async execute(ctx, input) {
    if (input.status === undefined && input.priority === undefined && input.assignee_id === undefined && input.comment === undefined) {
      throw new ToolError('invalid_input', 'Give at least one of input.status, input.priority, input.assignee_id or input.comment.');
    }
    const res = await zendeskRequest<{ ticket: ZendeskTicket; audit?: ZendeskAudit }>(ctx, {
      method: 'PUT',
      path: encodePath('/api/v2/tickets/{ticket_id}.json', input),
      json: {
        ticket: {
          status: input.status,
          priority: input.priority,
          assignee_id: input.assignee_id,
          comment: input.comment !== undefined ? { body: input.comment, public: input.comment_public ?? true } : undefined,
        },
      },
    });
    return { ticket: toTicket(ctx, res.data.ticket), comment_id: commentIdOf(res.data.audit) };
  },
};

/** The id of the comment an update added, from the update's audit events. */
export function commentIdOf(audit: ZendeskAudit | undefined): number | null {
  return audit?.events?.find((e) => e.type === 'Comment')?.id ?? null;
}
