import type { ConnectorDefinition } from '../../core/types';
import { createContact, getContact, searchContacts, updateContact } from './contacts';
import { listDeals } from './deals';
import { createNote } from './notes';

export const hubspot: ConnectorDefinition = {
  slug: 'hubspot',
  name: 'HubSpot',
  description: 'Contacts, deals and notes in the HubSpot CRM.',
  logo_url: 'https://www.hubspot.com/favicon.ico',
  categories: ['crm', 'sales', 'marketing'],
  source: 'builtin',
  source_url: 'https://developers.hubspot.com/docs/api/overview',
  default_base_url: 'https://api.hubapi.com',
  auth_options: [
    {
      type: 'oauth2',
      oauth2: {
        authorize_url: 'https://app.hubspot.com/oauth/authorize',
        token_url: 'https://api.hubapi.com/oauth/v1/token',
        // Notes on contacts need the contact scopes; list_deals needs the deal read scope.
        default_scopes: ['crm.objects.contacts.read', 'crm.objects.contacts.write', 'crm.objects.deals.read', 'oauth'],
        token_auth_method: 'client_secret_post',
      },
      credential_fields: [],
    },
    {
      type: 'bearer_token',
      credential_fields: [
        {
          name: 'token',
          label: 'Private app access token',
          type: 'secret',
          required: true,
          placeholder: 'pat-na1-...',
          description: 'From a HubSpot private app with the crm.objects.contacts.read/write and crm.objects.deals.read scopes.',
        },
      ],
    },
  ],
  tools: [searchContacts, getContact, createContact, updateContact, listDeals, createNote],
};
