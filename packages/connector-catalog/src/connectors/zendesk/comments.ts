import { encodePath } from '../../core/provider-http';
import { READ_ONLY, WRITE, arr, bool, inputSchema, int, limit, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { zendeskRequest } from './client';
import { commentIdOf, type ZendeskTicket } from './tickets';

interface ZendeskComment {
  id: number;
  author_id: number;
  body: string;
  plain_body?: string;
  public: boolean;
  created_at: string;
  attachments?: Array<{ file_name: string; content_url: string }>;
}

const commentSchema = objectSchema(
  {
    id: int('Comment id'),
    author_id: int('User id of the author'),
    body: str('Comment text'),
    public: bool('False for internal notes'),
    created_at: str('ISO 8601'),
    attachments: arr(objectSchema({ file_name: str('File name'), url: str('Download URL') }), 'Attachments'),
  },
  ['id', 'author_id', 'body', 'public', 'created_at'],
);

export const listTicketComments: ToolDefinition<{ ticket_id: number; page_size?: number; cursor?: string; sort_order?: string }> = {
  name: 'list_ticket_comments',
  description: 'List the conversation of a Zendesk ticket: public replies and internal notes, oldest first by default. Page through with next_cursor.',
  input_schema: inputSchema(
    {
      ticket_id: int('Ticket id', { minimum: 1 }),
      page_size: limit(100, 50),
      cursor: str('next_cursor from an earlier call', { minLength: 1 }),
      sort_order: str('asc (oldest first, default) or desc', { enum: ['asc', 'desc'] }),
    },
    ['ticket_id'],
  ),
  output_schema: objectSchema({ comments: arr(commentSchema, 'Comments'), next_cursor: { type: ['string', 'null'] } }, ['comments', 'next_cursor']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await zendeskRequest<{ comments: ZendeskComment[]; meta?: { has_more: boolean; after_cursor: string | null } }>(ctx, {
      path: encodePath('/api/v2/tickets/{ticket_id}/comments.json', input),
      query: { 'page[size]': input.page_size ?? 50, 'page[after]': input.cursor, sort_order: input.sort_order },
    });
    return {
      comments: res.data.comments.map((c) => ({
        id: c.id,
        author_id: c.author_id,
        body: c.plain_body ?? c.body,
        public: c.public,
        created_at: c.created_at,
        attachments: (c.attachments ?? []).map((a) => ({ file_name: a.file_name, url: a.content_url })),
      })),
      next_cursor: res.data.meta?.has_more ? (res.data.meta.after_cursor ?? null) : null,
    };
  },
};

export const addTicketComment: ToolDefinition<{ ticket_id: number; body: string; public?: boolean }> = {
  name: 'add_ticket_comment',
  description: 'Add a comment to a Zendesk ticket: a public reply the requester receives by email, or an internal note for agents with public: false.',
  input_schema: inputSchema(
    {
      ticket_id: int('Ticket id', { minimum: 1 }),
      body: str('Comment text', { minLength: 1 }),
      public: bool('true for a public reply (default), false for an internal note', { default: true }),
    },
    ['ticket_id', 'body'],
  ),
  output_schema: objectSchema({ ticket_id: int('Ticket id'), comment_id: { type: ['integer', 'null'] }, public: bool('Whether the comment is public'), ticket_status: str('Ticket status after the comment') }, ['ticket_id', 'comment_id', 'public', 'ticket_status']),
  annotations: WRITE,
  async execute(ctx, input) {
    const res = await zendeskRequest<{ ticket: ZendeskTicket; audit?: { id: number; events?: Array<{ id?: number; type: string; public?: boolean }> } }>(ctx, {
      method: 'PUT',
      path: encodePath('/api/v2/tickets/{ticket_id}.json', input),
      json: { ticket: { comment: { body: input.body, public: input.public ?? true } } },
    });
    return { ticket_id: res.data.ticket.id, comment_id: commentIdOf(res.data.audit), public: input.public ?? true, ticket_status: res.data.ticket.status };
  },
};
