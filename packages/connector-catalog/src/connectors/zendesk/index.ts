import type { ConnectorDefinition } from '../../core/types';
import { addTicketComment, listTicketComments } from './comments';
import { createTicket, getTicket, searchTickets, updateTicket } from './tickets';

export const zendesk: ConnectorDefinition = {
  slug: 'zendesk',
  name: 'Zendesk',
  description:
    'Search, read, create and update Zendesk Support tickets and their comments. Connects with an agent\'s email and API token: Zendesk\'s OAuth authorize and token URLs live on each account\'s own subdomain (https://{subdomain}.zendesk.com/oauth/...), which a catalog entry with fixed OAuth URLs cannot express, so OAuth is not offered.',
  logo_url: 'https://www.zendesk.com/favicon.ico',
  categories: ['customer-support', 'ticketing'],
  source: 'builtin',
  source_url: 'https://developer.zendesk.com/api-reference/ticketing/introduction/',
  // Never used as is: every account has its own subdomain, given as the site_url credential field.
  default_base_url: 'https://subdomain.zendesk.com',
  base_url_field: 'site_url',
  auth_options: [
    {
      type: 'api_key',
      credential_fields: [
        { name: 'site_url', label: 'Zendesk URL', type: 'url', required: true, description: 'Your Zendesk address.', placeholder: 'https://yourcompany.zendesk.com' },
        { name: 'email', label: 'Agent email', type: 'string', required: true, description: 'Email of the agent the API token belongs to; actions are made as this agent.' },
        { name: 'api_token', label: 'API token', type: 'secret', required: true, description: 'Admin Center > Apps and integrations > APIs > Zendesk API > API token.' },
      ],
    },
  ],
  tools: [searchTickets, getTicket, createTicket, updateTicket, addTicketComment, listTicketComments],
};
