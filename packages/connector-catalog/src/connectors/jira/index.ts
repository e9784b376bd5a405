import type { ConnectorDefinition } from '../../core/types';
import { addComment } from './comments';
import { createIssue, getIssue, searchIssues, updateIssue } from './issues';
import { listProjects } from './projects';
import { transitionIssue } from './transitions';

export const jira: ConnectorDefinition = {
  slug: 'jira',
  name: 'Jira',
  description:
    'Issues, comments, workflow transitions and projects in Jira Cloud (REST API v3). Connect with an API token on your site URL, or with OAuth 2.0 plus the site\'s cloud ID (OAuth calls go through https://api.atlassian.com/ex/jira/{cloud_id}). Jira Data Center/Server, which only serves REST API v2, is not supported.',
  logo_url: 'https://wac-cdn.atlassian.com/assets/img/favicons/atlassian/favicon.png',
  categories: ['ticketing', 'project-management', 'developer-tools'],
  source: 'builtin',
  source_url: 'https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/',
  // Only OAuth calls use it: API-token connections always carry their own site_url.
  default_base_url: 'https://api.atlassian.com/ex/jira',
  base_url_field: 'site_url',
  auth_options: [
    {
      type: 'api_key',
      credential_fields: [
        { name: 'site_url', label: 'Jira site URL', type: 'url', required: true, placeholder: 'https://your-team.atlassian.net', description: 'The address of your Jira Cloud site.' },
        { name: 'email', label: 'Atlassian account email', type: 'string', required: true, description: 'The email of the account the API token belongs to.' },
        { name: 'api_token', label: 'API token', type: 'secret', required: true, description: 'Create one at https://id.atlassian.com/manage-profile/security/api-tokens.' },
      ],
    },
    {
      type: 'oauth2',
      oauth2: {
        authorize_url: 'https://auth.atlassian.com/authorize',
        token_url: 'https://auth.atlassian.com/oauth/token',
        default_scopes: ['read:jira-work', 'write:jira-work', 'offline_access'],
        // Atlassian's 3LO flow requires the audience; prompt=consent shows the consent screen every time as its docs ask.
        authorize_params: { audience: 'api.atlassian.com', prompt: 'consent' },
        token_auth_method: 'client_secret_post',
      },
      credential_fields: [
        {
          name: 'cloud_id',
          label: 'Site cloud ID',
          type: 'string',
          required: true,
          description: 'OAuth tokens work only through api.atlassian.com with the site\'s cloud ID: open https://<your-site>.atlassian.net/_edge/tenant_info and copy "cloudId".',
        },
      ],
    },
  ],
  tools: [searchIssues, getIssue, createIssue, updateIssue, addComment, transitionIssue, listProjects],
};
