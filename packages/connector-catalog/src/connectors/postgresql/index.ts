import type { ConnectorDefinition } from '../../core/types';
import { explainQuery, runQuery } from './query-tools';
import { describeTable, listTables } from './schema-tools';

export const postgresql: ConnectorDefinition = {
  slug: 'postgresql',
  name: 'PostgreSQL',
  description:
    'Read-only access to a PostgreSQL database: list and describe tables, run SELECT queries (in a READ ONLY transaction that is always rolled back, with a statement timeout and a row cap) and explain plans. The database host must be publicly reachable; a database on a private network (or localhost) can only be used when Patchbay runs with PATCHBAY_ALLOW_PRIVATE_NETWORK=true, which is for local development only. Each call opens its own connection and closes it. TLS follows the connection string\'s sslmode (default prefer; require encrypts without verifying the certificate; verify-full verifies it). Give the connection a database role with only the privileges the agent should have.',
  logo_url: 'https://www.postgresql.org/favicon.ico',
  categories: ['database', 'developer-tools'],
  source: 'builtin',
  source_url: 'https://www.postgresql.org/docs/current/',
  // Not an HTTP API: every call connects to the host in the credential's connection string.
  default_base_url: 'postgresql://',
  auth_options: [
    {
      type: 'api_key',
      credential_fields: [
        {
          name: 'connection_string',
          label: 'Connection string',
          type: 'secret',
          required: true,
          description: 'A postgresql:// URL with user, password, host, port and database; add ?sslmode=require or verify-full for TLS.',
          placeholder: 'postgresql://user:password@db.example.com:5432/app?sslmode=require',
        },
      ],
    },
  ],
  tools: [listTables, describeTable, runQuery, explainQuery],
};
