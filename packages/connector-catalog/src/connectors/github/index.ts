import type { ConnectorDefinition } from '../../core/types';
import { addIssueComment } from './comments';
import { getFileContents } from './contents';
import { createIssue, getIssue, listIssues, searchIssues, updateIssue } from './issues';
import { getPullRequest, listPullRequests } from './pulls';
import { getRepository, listRepositories } from './repositories';

export const github: ConnectorDefinition = {
  slug: 'github',
  name: 'GitHub',
  description: 'Repositories, issues, pull requests and code on GitHub or GitHub Enterprise Server.',
  logo_url: 'https://github.githubassets.com/favicons/favicon.svg',
  categories: ['developer-tools', 'ticketing'],
  source: 'builtin',
  source_url: 'https://docs.github.com/en/rest',
  default_base_url: 'https://api.github.com',
  auth_options: [
    {
      type: 'oauth2',
      oauth2: {
        authorize_url: 'https://github.com/login/oauth/authorize',
        token_url: 'https://github.com/login/oauth/access_token',
        default_scopes: ['repo', 'read:user'],
        token_auth_method: 'client_secret_post',
      },
      credential_fields: [],
    },
    {
      type: 'bearer_token',
      credential_fields: [{ name: 'token', label: 'Personal access token', type: 'secret', required: true, description: 'A fine-grained or classic token with access to the repositories the agent should use.' }],
    },
  ],
  tools: [
    listRepositories,
    getRepository,
    listIssues,
    getIssue,
    searchIssues,
    createIssue,
    updateIssue,
    addIssueComment,
    listPullRequests,
    getPullRequest,
    getFileContents,
  ],
};
