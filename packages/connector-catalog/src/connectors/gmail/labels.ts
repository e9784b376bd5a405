import { READ_ONLY, arr, inputSchema, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { gmailRequest } from './client';

interface GmailLabel {
  id: string;
  name: string;
  type?: 'system' | 'user';
}

export const listLabels: ToolDefinition<Record<string, never>> = {
  name: 'list_labels',
  description: 'List the Gmail labels of the user\'s mailbox: system labels (INBOX, UNREAD, STARRED, SENT...) and their own, with the IDs search_messages and modify_labels take.',
  input_schema: inputSchema({}),
  output_schema: objectSchema({ labels: arr(objectSchema({ id: str('Label ID'), name: str('Name'), type: str('system or user') }, ['id', 'name', 'type']), 'Labels') }, ['labels']),
  annotations: READ_ONLY,
  async execute(ctx) {
    const res = await gmailRequest<{ labels?: GmailLabel[] }>(ctx, { path: '/users/me/labels' });
    return { labels: (res.data.labels ?? []).map((l) => ({ id: l.id, name: l.name, type: l.type ?? 'user' })) };
  },
};
