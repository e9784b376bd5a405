import { BUILTIN_CONNECTORS, type AuthOption, type ConnectorDefinition, type CredentialField, type JsonSchema } from '@patchbay/connector-catalog';
import type { KeyPrincipal } from '@patchbay/auth';
import { NotFoundError } from '@patchbay/errors';
import type { Db } from '../db';
import type { CustomConnector, CustomConnectorTool } from '../generated/prisma/client';
import { builtinConnectorId } from './ids';

export interface ConnectorTool {
  name: string;
  description: string;
  input_schema?: JsonSchema;
  output_schema?: JsonSchema | null;
  annotations?: Record<string, unknown> | null;
}

/** The connector record of the API (spec, Connector); `auth_options` or `credential_fields` per auth_mode. */
export interface ConnectorRecord {
  id: string;
  name: string;
  slug: string;
  description: string;
  logo_url: string;
  /** `builtin` for the catalog, `custom_mcp` for a remote MCP server registered by URL. */
  source: 'builtin' | 'custom_mcp';
  source_url: string;
  categories: string[];
  auth_options?: Array<AuthOption | { type: 'none' } | { type: 'secret' }>;
  credential_fields?: CredentialField[];
  tools: ConnectorTool[];
  created_at?: string;
  tools_refreshed_at?: string;
}

/** One connector, built-in or custom, as services use it internally. */
export type ResolvedConnector =
  | { kind: 'builtin'; id: string; slug: string; definition: ConnectorDefinition }
  | { kind: 'custom'; id: string; slug: string; row: CustomConnector & { tools: CustomConnectorTool[] } };

const CUSTOM_LOGO = 'https://modelcontextprotocol.io/favicon.svg';

export function builtinRecord(c: ConnectorDefinition, options: { runtime: boolean; toolDetails: boolean }): ConnectorRecord {
  const base: ConnectorRecord = {
    id: builtinConnectorId(c.slug),
    name: c.name,
    slug: c.slug,
    description: c.description,
    logo_url: c.logo_url,
    source: 'builtin',
    source_url: c.source_url,
    categories: c.categories,
    tools: c.tools.map((t) =>
      options.toolDetails
        ? { name: t.name, description: t.description, input_schema: t.input_schema, output_schema: t.output_schema, annotations: { ...t.annotations } }
        : { name: t.name, description: t.description },
    ),
  };
  if (options.runtime) base.credential_fields = runtimeCredentialFields(c);
  else base.auth_options = c.auth_options;
  return base;
}

/**
 * What a user fills in at run time: the fields of the first form-based option, or those an OAuth
 * option needs besides the browser flow (a site URL). Empty means "Connect" with OAuth only.
 */
export function runtimeCredentialFields(c: ConnectorDefinition): CredentialField[] {
  const form = c.auth_options.find((o) => o.type !== 'oauth2');
  return (form ?? c.auth_options[0])?.credential_fields ?? [];
}

export function customRecord(row: CustomConnector & { tools: CustomConnectorTool[] }, options: { runtime: boolean; toolDetails: boolean }): ConnectorRecord {
  const record: ConnectorRecord = {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    logo_url: CUSTOM_LOGO,
    source: 'custom_mcp',
    source_url: row.url,
    categories: ['custom'],
    tools: [...row.tools]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) =>
        options.toolDetails
          ? { name: t.name, description: t.description, input_schema: t.inputSchema as JsonSchema, output_schema: (t.outputSchema as JsonSchema | null) ?? null, annotations: (t.annotations as Record<string, unknown> | null) ?? null }
          : { name: t.name, description: t.description },
      ),
    created_at: row.createdAt.toISOString(),
    tools_refreshed_at: row.toolsRefreshedAt.toISOString(),
  };
  // A custom server's secret is the organization's, given at registration: users fill in nothing.
  if (options.runtime) record.credential_fields = [];
  else record.auth_options = [{ type: row.authType === 'secret' ? 'secret' : 'none' }];
  return record;
}

function matches(search: string | undefined, name: string, slug: string): boolean {
  if (!search) return true;
  const s = search.toLowerCase();
  return name.toLowerCase().includes(s) || slug.toLowerCase().includes(s);
}

/** Built-in connectors (every organization) then the caller's custom ones (its organization and environment). */
export async function listConnectors(db: Db, principal: KeyPrincipal, options: { search?: string; offset: number; limit: number }): Promise<{ count: number; results: ConnectorRecord[] }> {
  const builtins = BUILTIN_CONNECTORS.filter((c) => matches(options.search, c.name, c.slug)).sort((a, b) => a.name.localeCompare(b.name));
  const search = options.search;
  const customWhere = {
    organizationId: principal.organizationId,
    environment: principal.environment,
    ...(search ? { OR: [{ name: { contains: search, mode: 'insensitive' as const } }, { slug: { contains: search, mode: 'insensitive' as const } }] } : {}),
  };
  const customCount = await db.customConnector.count({ where: customWhere });
  const page: ConnectorRecord[] = builtins.slice(options.offset, options.offset + options.limit).map((c) => builtinRecord(c, { runtime: false, toolDetails: false }));
  const remaining = options.limit - page.length;
  if (remaining > 0) {
    const customOffset = Math.max(0, options.offset - builtins.length);
    const rows = await db.customConnector.findMany({ where: customWhere, include: { tools: true }, orderBy: [{ name: 'asc' }, { id: 'asc' }], skip: customOffset, take: remaining });
    page.push(...rows.map((r) => customRecord(r, { runtime: false, toolDetails: false })));
  }
  return { count: builtins.length + customCount, results: page };
}

/** A connector the caller can see, by slug; another organization's or environment's custom connector is a 404. */
export async function resolveConnector(db: Db, principal: KeyPrincipal, slug: string): Promise<ResolvedConnector> {
  const builtin = BUILTIN_CONNECTORS.find((c) => c.slug === slug);
  if (builtin) return { kind: 'builtin', id: builtinConnectorId(slug), slug, definition: builtin };
  const row = await db.customConnector.findFirst({ where: { organizationId: principal.organizationId, environment: principal.environment, slug }, include: { tools: true } });
  if (!row) throw new NotFoundError(`No connector with slug "${slug}".`);
  return { kind: 'custom', id: row.id, slug, row };
}

/** A connector by id (tool packs name connectors by connector_id). */
export async function resolveConnectorById(db: Db, principal: KeyPrincipal, id: string): Promise<ResolvedConnector | null> {
  const builtin = BUILTIN_CONNECTORS.find((c) => builtinConnectorId(c.slug) === id);
  if (builtin) return { kind: 'builtin', id, slug: builtin.slug, definition: builtin };
  const row = await db.customConnector.findFirst({ where: { id, organizationId: principal.organizationId, environment: principal.environment }, include: { tools: true } });
  return row ? { kind: 'custom', id: row.id, slug: row.slug, row } : null;
}

export function toolNamesOf(connector: ResolvedConnector): string[] {
  return connector.kind === 'builtin' ? connector.definition.tools.map((t) => t.name) : connector.row.tools.map((t) => t.name);
}

export function recordOf(connector: ResolvedConnector, options: { runtime: boolean; toolDetails: boolean }): ConnectorRecord {
  return connector.kind === 'builtin' ? builtinRecord(connector.definition, options) : customRecord(connector.row, options);
}
