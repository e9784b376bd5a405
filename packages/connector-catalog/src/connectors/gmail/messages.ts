import { encodePath } from '../../core/provider-http';
import { IDEMPOTENT_WRITE, READ_ONLY, WRITE, arr, bool, inputSchema, int, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { JsonSchema, ToolContext, ToolDefinition } from '../../core/types';
import { gmailRequest } from './client';
import { readBody, toRaw, type GmailPart } from './mime';

export interface GmailMessage {
  id: string;
  threadId: string;
  labelIds?: string[];
  snippet?: string;
  internalDate?: string;
  sizeEstimate?: number;
  payload?: GmailPart;
}

const HEADERS = ['Subject', 'From', 'To', 'Cc', 'Date', 'Message-ID'];
/** search_messages fetches each message's headers; this many at a time keeps under Gmail's per-user concurrency limit. */
const METADATA_CONCURRENCY = 5;
const MAX_BODY_CHARS = 50_000;

const nullable = (description: string): JsonSchema => ({ type: ['string', 'null'], description });

const summaryProperties = {
  id: str('Message ID'),
  thread_id: str('Thread ID (pass to send_message to reply in the thread)'),
  label_ids: arr(str('Label ID'), 'Labels, e.g. INBOX, UNREAD, SENT, or user label IDs'),
  subject: nullable('Subject'),
  from: nullable('From header'),
  to: nullable('To header'),
  cc: nullable('Cc header'),
  date: nullable('Date header'),
  message_id: nullable('Message-ID header (pass as in_reply_to when replying)'),
  snippet: nullable('Short extract of the body'),
};
const summarySchema = objectSchema(summaryProperties, ['id', 'thread_id', 'label_ids']);

const messageSchema = objectSchema(
  {
    ...summaryProperties,
    body_text: nullable('The plain-text body (HTML-only mail converted to text); null with format=metadata'),
    body_truncated: { type: 'boolean', description: `Whether body_text was cut at ${MAX_BODY_CHARS} characters` },
    attachments: arr(objectSchema({ filename: str('File name'), mime_type: str('MIME type'), size: int('Bytes'), attachment_id: nullable('Attachment ID') }, ['filename', 'mime_type', 'size']), 'Attachments'),
  },
  ['id', 'thread_id', 'label_ids', 'attachments'],
);

function headerOf(message: GmailMessage, name: string): string | null {
  return message.payload?.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value ?? null;
}

function toSummary(m: GmailMessage) {
  return {
    id: m.id,
    thread_id: m.threadId,
    label_ids: m.labelIds ?? [],
    subject: headerOf(m, 'Subject'),
    from: headerOf(m, 'From'),
    to: headerOf(m, 'To'),
    cc: headerOf(m, 'Cc'),
    date: headerOf(m, 'Date'),
    message_id: headerOf(m, 'Message-ID'),
    snippet: m.snippet ?? null,
  };
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function fetchMessage(ctx: ToolContext, id: string, format: 'full' | 'metadata') {
  return gmailRequest<GmailMessage>(ctx, {
    path: encodePath('/users/me/messages/{id}', { id }),
    query: { format, metadataHeaders: format === 'metadata' ? HEADERS : undefined },
  });
}

export const searchMessages: ToolDefinition<{ query?: string; label_ids?: string[]; include_spam_trash?: boolean; max_results?: number; page_token?: string }> = {
  name: 'search_messages',
  description:
    'Search the user\'s Gmail with Gmail search syntax (`from:ana@example.com is:unread`, `subject:invoice after:2026/01/01`, `has:attachment`), newest first. Returns subject, sender, recipients, date and snippet per message; use get_message for the body. Page through with next_page_token.',
  input_schema: inputSchema({
    query: str('Gmail search query, as typed in the Gmail search box', { minLength: 1 }),
    label_ids: arr(str('Label ID', { minLength: 1 }), 'Only messages with all of these labels (e.g. INBOX, UNREAD; see list_labels)'),
    include_spam_trash: bool('Include messages in Spam and Trash'),
    max_results: { type: 'integer', minimum: 1, maximum: 50, default: 20, description: 'How many messages to return (1 to 50, default 20).' },
    page_token: str('next_page_token from an earlier call with the same query', { minLength: 1 }),
  }),
  output_schema: objectSchema(
    { messages: arr(summarySchema, 'Messages'), next_page_token: nullable('Pass to get the next page; null on the last page'), result_size_estimate: { type: ['integer', 'null'] } },
    ['messages', 'next_page_token'],
  ),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const list = await gmailRequest<{ messages?: Array<{ id: string; threadId: string }>; nextPageToken?: string; resultSizeEstimate?: number }>(ctx, {
      path: '/users/me/messages',
      query: { q: input.query, labelIds: input.label_ids, includeSpamTrash: input.include_spam_trash, maxResults: input.max_results ?? 20, pageToken: input.page_token },
    });
    const found = await mapLimited(list.data.messages ?? [], METADATA_CONCURRENCY, async (m) => {
      try {
        return toSummary((await fetchMessage(ctx, m.id, 'metadata')).data);
      } catch (err) {
        // Deleted between the list and the fetch: leave it out rather than fail the search.
        if (err instanceof ToolError && err.kind === 'not_found') return null;
        throw err;
      }
    });
    return {
      messages: found.filter((m): m is ReturnType<typeof toSummary> => m !== null),
      next_page_token: list.data.nextPageToken ?? null,
      result_size_estimate: list.data.resultSizeEstimate ?? null,
    };
  },
};

export const getMessage: ToolDefinition<{ message_id: string; format?: 'full' | 'metadata' }> = {
  name: 'get_message',
  description: 'Read one Gmail message: headers (subject, from, to, cc, date, Message-ID), labels, the plain-text body (format=full, the default) and the list of attachments.',
  input_schema: inputSchema(
    {
      message_id: str('Message ID from search_messages', { minLength: 1 }),
      format: str('full (with body) or metadata (headers only)', { enum: ['full', 'metadata'], default: 'full' }),
    },
    ['message_id'],
  ),
  output_schema: messageSchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const format = input.format ?? 'full';
    const res = await fetchMessage(ctx, input.message_id, format);
    if (format === 'metadata') return { ...toSummary(res.data), body_text: null, body_truncated: false, attachments: [] };
    const { text, attachments } = readBody(res.data.payload);
    return { ...toSummary(res.data), body_text: text.slice(0, MAX_BODY_CHARS), body_truncated: text.length > MAX_BODY_CHARS, attachments };
  },
};

const address = str('Email address, optionally with a name: "Ana Lima <ana@example.com>"', { minLength: 3, pattern: '^[^\\r\\n]*@[^\\r\\n]*$' });
export const composeProperties = {
  to: arr(address, 'Recipients', { minItems: 1 }),
  cc: arr(address, 'Cc recipients'),
  bcc: arr(address, 'Bcc recipients'),
  subject: str('Subject (for a reply, usually "Re: " and the original subject)', { pattern: '^[^\\r\\n]*$' }),
  body: str('Plain-text body'),
  thread_id: str('Thread ID to reply in (from search_messages or get_message)', { minLength: 1 }),
  in_reply_to: str('Message-ID header of the message answered (get_message gives it as message_id)', { pattern: '^<[^\\r\\n<>]+>$' }),
};

export interface ComposeInput {
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  body: string;
  thread_id?: string;
  in_reply_to?: string;
}

/** Gmail's message resource for send and drafts: the whole MIME message as base64url, plus the thread. */
export function composedMessage(input: ComposeInput): { raw: string; threadId?: string } {
  const raw = toRaw({ to: input.to, cc: input.cc, bcc: input.bcc, subject: input.subject, body: input.body, inReplyTo: input.in_reply_to });
  return input.thread_id ? { raw, threadId: input.thread_id } : { raw };
}

export const sentSchema = objectSchema({ id: str('Message ID'), thread_id: str('Thread ID'), label_ids: arr(str('Label ID'), 'Labels') }, ['id', 'thread_id']);

export const sendMessage: ToolDefinition<ComposeInput> = {
  name: 'send_message',
  description:
    'Send a plain-text email from the user\'s Gmail account. To reply in a conversation, give thread_id and in_reply_to (the original\'s message_id) and a subject starting with "Re: ". The mail leaves at once and cannot be recalled; use create_draft to let the user review it first.',
  input_schema: inputSchema(composeProperties, ['to', 'subject', 'body']),
  output_schema: sentSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    const res = await gmailRequest<GmailMessage>(ctx, { method: 'POST', path: '/users/me/messages/send', json: composedMessage(input) });
    return { id: res.data.id, thread_id: res.data.threadId, label_ids: res.data.labelIds ?? [] };
  },
};

export const modifyLabels: ToolDefinition<{ message_id: string; add_label_ids?: string[]; remove_label_ids?: string[] }> = {
  name: 'modify_labels',
  description:
    'Add and remove labels on a Gmail message: archive (remove INBOX), mark read (remove UNREAD) or unread (add UNREAD), star (add STARRED), or file under a user label (IDs from list_labels).',
  input_schema: inputSchema(
    {
      message_id: str('Message ID', { minLength: 1 }),
      add_label_ids: arr(str('Label ID', { minLength: 1 }), 'Label IDs to add', { maxItems: 100 }),
      remove_label_ids: arr(str('Label ID', { minLength: 1 }), 'Label IDs to remove', { maxItems: 100 }),
    },
    ['message_id'],
  ),
  output_schema: objectSchema({ id: str('Message ID'), thread_id: str('Thread ID'), label_ids: arr(str('Label ID'), 'Labels after the change') }, ['id', 'thread_id', 'label_ids']),
  annotations: IDEMPOTENT_WRITE,
  async execute(ctx, input) {
    if (!input.add_label_ids?.length && !input.remove_label_ids?.length) throw new ToolError('invalid_input', 'Give add_label_ids, remove_label_ids or both.');
    const res = await gmailRequest<GmailMessage>(ctx, {
      method: 'POST',
      path: encodePath('/users/me/messages/{message_id}/modify', input),
      json: { addLabelIds: input.add_label_ids ?? [], removeLabelIds: input.remove_label_ids ?? [] },
    });
    return { id: res.data.id, thread_id: res.data.threadId, label_ids: res.data.labelIds ?? [] };
  },
};
