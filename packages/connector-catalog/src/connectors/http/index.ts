import type { ConnectorDefinition } from '../../core/types';
import { httpGet, httpRequest } from './requests';

export const http: ConnectorDefinition = {
  slug: 'http',
  name: 'Generic HTTP/JSON',
  description:
    'Call any HTTPS JSON API: the user gives its base URL and, optionally, one auth header (e.g. Authorization: Bearer ...). Only public https:// addresses can be reached; private networks and http:// only with PATCHBAY_ALLOW_PRIVATE_NETWORK=true, for local development.',
  logo_url: 'https://developer.mozilla.org/favicon.ico',
  categories: ['developer-tools'],
  source: 'builtin',
  source_url: 'https://developer.mozilla.org/en-US/docs/Web/HTTP',
  // Never used: base_url is a required credential field and replaces it on every call.
  default_base_url: 'https://api.example.com',
  base_url_field: 'base_url',
  auth_options: [
    {
      type: 'api_key',
      credential_fields: [
        { name: 'base_url', label: 'Base URL', type: 'url', required: true, description: 'The API\'s base URL; tool paths are appended to it and cannot leave it.', placeholder: 'https://api.example.com/v1' },
        { name: 'auth_header_name', label: 'Auth header name', type: 'string', required: false, description: 'The header that carries the credential (Authorization when left empty).', placeholder: 'Authorization' },
        { name: 'auth_header_value', label: 'Auth header value', type: 'secret', required: false, description: 'Its value, sent on every call and never shown to the model.', placeholder: 'Bearer sk_live_...' },
      ],
    },
  ],
  tools: [httpGet, httpRequest],
};
