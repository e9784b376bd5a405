import { WRITE, inputSchema, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { gmailRequest } from './client';
import { composeProperties, composedMessage, sentSchema, type ComposeInput } from './messages';

export const createDraft: ToolDefinition<ComposeInput> = {
  name: 'create_draft',
  description: 'Save a plain-text email as a Gmail draft for the user to review and send. To draft a reply, give thread_id and in_reply_to (the original\'s message_id).',
  input_schema: inputSchema(composeProperties, ['to', 'subject', 'body']),
  output_schema: objectSchema({ draft_id: str('Draft ID'), message: sentSchema }, ['draft_id', 'message']),
  annotations: WRITE,
  async execute(ctx, input) {
    const res = await gmailRequest<{ id: string; message: { id: string; threadId: string; labelIds?: string[] } }>(ctx, {
      method: 'POST',
      path: '/users/me/drafts',
      json: { message: composedMessage(input) },
    });
    const m = res.data.message;
    return { draft_id: res.data.id, message: { id: m.id, thread_id: m.threadId, label_ids: m.labelIds ?? [] } };
  },
};
