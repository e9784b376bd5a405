import type { ConnectorDefinition } from '../../core/types';
import { appendBlockChildren } from './blocks';
import { queryDatabase } from './databases';
import { createPage, getPage, updatePageProperties } from './pages';
import { search } from './search';

export const notion: ConnectorDefinition = {
  slug: 'notion',
  name: 'Notion',
  description: 'Pages, databases and their content in a Notion workspace (the pages and databases shared with the integration).',
  logo_url: 'https://www.notion.so/images/favicon.ico',
  categories: ['knowledge-base', 'documents', 'productivity'],
  source: 'builtin',
  source_url: 'https://developers.notion.com/reference/intro',
  default_base_url: 'https://api.notion.com',
  auth_options: [
    {
      type: 'oauth2',
      oauth2: {
        authorize_url: 'https://api.notion.com/v1/oauth/authorize',
        token_url: 'https://api.notion.com/v1/oauth/token',
        // Notion has no scopes: the user picks the pages to share on its consent screen.
        default_scopes: [],
        authorize_params: { owner: 'user' },
        token_auth_method: 'client_secret_basic',
      },
      credential_fields: [],
    },
    {
      type: 'bearer_token',
      credential_fields: [
        {
          name: 'token',
          label: 'Internal integration secret',
          type: 'secret',
          required: true,
          placeholder: 'ntn_...',
          description: 'From https://www.notion.so/profile/integrations; share the pages and databases the agent should use with the integration.',
        },
      ],
    },
  ],
  tools: [search, getPage, createPage, updatePageProperties, queryDatabase, appendBlockChildren],
};
