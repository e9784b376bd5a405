import type { ConnectorDefinition } from '../../core/types';
import { googleAuthOptions } from '../google-common/google-api';
import { createDraft } from './drafts';
import { listLabels } from './labels';
import { getMessage, modifyLabels, searchMessages, sendMessage } from './messages';

export const gmail: ConnectorDefinition = {
  slug: 'gmail',
  name: 'Gmail',
  description: 'Search and read the user\'s Gmail, send mail and replies, save drafts, and label, archive or mark messages read.',
  logo_url: 'https://ssl.gstatic.com/ui/v1/icons/mail/rfr/gmail.ico',
  categories: ['email', 'communication', 'productivity'],
  source: 'builtin',
  source_url: 'https://developers.google.com/workspace/gmail/api/reference/rest',
  default_base_url: 'https://gmail.googleapis.com/gmail/v1',
  auth_options: googleAuthOptions([
    'https://www.googleapis.com/auth/gmail.readonly',
    'https://www.googleapis.com/auth/gmail.send',
    'https://www.googleapis.com/auth/gmail.modify',
  ]),
  tools: [searchMessages, getMessage, sendMessage, createDraft, listLabels, modifyLabels],
};
