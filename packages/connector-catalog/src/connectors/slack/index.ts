import type { ConnectorDefinition } from '../../core/types';
import { postMessage, updateMessage } from './chat';
import { getChannelHistory, listChannels } from './conversations';
import { addReaction } from './reactions';
import { getUser, listUsers } from './users';

export const slack: ConnectorDefinition = {
  slug: 'slack',
  name: 'Slack',
  description: 'Channels, messages, threads, reactions and people in a Slack workspace, as the workspace\'s bot.',
  logo_url: 'https://a.slack-edge.com/80588/marketing/img/meta/favicon-32.png',
  categories: ['communication', 'productivity'],
  source: 'builtin',
  source_url: 'https://docs.slack.dev/reference/methods',
  default_base_url: 'https://slack.com/api',
  auth_options: [
    {
      type: 'oauth2',
      oauth2: {
        authorize_url: 'https://slack.com/oauth/v2/authorize',
        token_url: 'https://slack.com/api/oauth.v2.access',
        // Bot scopes (the `scope` parameter of OAuth v2); Slack joins them with commas.
        default_scopes: ['channels:read', 'groups:read', 'channels:history', 'groups:history', 'chat:write', 'reactions:write', 'users:read', 'users:read.email'],
        scope_separator: ',',
      },
      credential_fields: [],
    },
    {
      type: 'bearer_token',
      credential_fields: [
        {
          name: 'bot_token',
          label: 'Bot User OAuth Token',
          type: 'secret',
          required: true,
          placeholder: 'xoxb-…',
          description: 'From your Slack app\'s OAuth & Permissions page, with the scopes channels:read, groups:read, channels:history, groups:history, chat:write, reactions:write, users:read (and users:read.email for emails).',
        },
      ],
    },
  ],
  tools: [listChannels, getChannelHistory, postMessage, updateMessage, addReaction, listUsers, getUser],
};
