import type { ConnectorDefinition } from '../../core/types';
import { addComment, createIssue, getIssue, listIssues, updateIssue } from './issues';
import { listTeams } from './teams';

export const linear: ConnectorDefinition = {
  slug: 'linear',
  name: 'Linear',
  description: 'Issues, comments and teams in Linear, through its GraphQL API.',
  logo_url: 'https://linear.app/favicon.ico',
  categories: ['project-management', 'ticketing', 'developer-tools'],
  source: 'builtin',
  source_url: 'https://linear.app/developers/graphql',
  default_base_url: 'https://api.linear.app',
  auth_options: [
    {
      type: 'oauth2',
      oauth2: {
        authorize_url: 'https://linear.app/oauth/authorize',
        token_url: 'https://api.linear.app/oauth/token',
        default_scopes: ['read', 'write'],
        // Linear's authorize endpoint takes a comma-separated scope list.
        scope_separator: ',',
        token_auth_method: 'client_secret_post',
      },
      credential_fields: [],
    },
    {
      type: 'api_key',
      credential_fields: [
        {
          name: 'api_key',
          label: 'Personal API key',
          type: 'secret',
          required: true,
          placeholder: 'lin_api_...',
          description: 'Create one under Settings > Security & access > Personal API keys in Linear.',
        },
      ],
    },
  ],
  tools: [listIssues, getIssue, createIssue, updateIssue, addComment, listTeams],
};
