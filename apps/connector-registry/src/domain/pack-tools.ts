import { BUILTIN_CONNECTORS, type JsonSchema, type ToolAnnotations } from '@patchbay/connector-catalog';
import type { SecretBox } from '@patchbay/secrets';
import type { Db } from '../db';
import type { AuthScope, Environment } from '../generated/prisma/client';
import { customConnectorSecretContext } from './custom-connectors';

/** One tool as a (tool pack, registered user) pair sees it: what mcp-runtime lists, searches and calls. */
export interface PackTool {
  /** `<connector_slug>__<tool_name>` */
  fully_qualified_name: string;
  connector_slug: string;
  connector_name: string;
  connector_kind: 'builtin' | 'custom';
  name: string;
  description: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema | null;
  annotations: Partial<ToolAnnotations> | null;
  /** Whose credential a call uses (the pack's setting for the connector). */
  auth_scope: AuthScope;
}

/** Where to forward a custom connector's tool calls, with its secret (internal use only). */
export interface PackCustomServer {
  connector_id: string;
  url: string;
  auth_type: 'none' | 'secret';
  secret: string | null;
}

export interface PackTools {
  tool_pack: { id: string; name: string };
  registered_user: { id: string; origin_user_id: string; origin_company_id: string };
  tools: PackTool[];
  custom_servers: Record<string, PackCustomServer>;
}

/**
 * Every tool the pack shows this user, in pack order. Null when the pack or the user does not exist
 * in this organization and environment (the runtime answers 404 for both alike).
 */
export async function resolvePackTools(
  db: Db,
  box: SecretBox,
  key: { organizationId: string; environment: Environment; toolPackId: string; registeredUserId: string },
): Promise<PackTools | null> {
  const [pack, user] = await Promise.all([
    db.toolPack.findFirst({ where: { id: key.toolPackId, organizationId: key.organizationId, environment: key.environment }, include: { connectors: { orderBy: { position: 'asc' } } } }),
    db.registeredUser.findFirst({ where: { id: key.registeredUserId, organizationId: key.organizationId, environment: key.environment } }),
  ]);
  if (!pack || !user) return null;
  const customIds = pack.connectors.filter((c) => c.isCustom).map((c) => c.connectorId);
  const customs = customIds.length === 0 ? [] : await db.customConnector.findMany({ where: { id: { in: customIds }, organizationId: key.organizationId, environment: key.environment }, include: { tools: true } });
  const customById = new Map(customs.map((c) => [c.id, c]));

  const tools: PackTool[] = [];
  const customServers: Record<string, PackCustomServer> = {};
  for (const entry of pack.connectors) {
    const selected = new Set(entry.toolNames);
    const shows = (name: string) => selected.size === 0 || selected.has(name);
    if (!entry.isCustom) {
      const connector = BUILTIN_CONNECTORS.find((c) => c.slug === entry.connectorSlug);
      if (!connector) continue;
      for (const t of connector.tools) {
        if (!shows(t.name)) continue;
        tools.push({
          fully_qualified_name: `${connector.slug}__${t.name}`,
          connector_slug: connector.slug,
          connector_name: connector.name,
          connector_kind: 'builtin',
          name: t.name,
          description: t.description,
          input_schema: t.input_schema,
          output_schema: t.output_schema,
          annotations: { ...t.annotations },
          auth_scope: entry.authScope,
        });
      }
      continue;
    }
    const custom = customById.get(entry.connectorId);
    if (!custom) continue;
    customServers[custom.slug] = {
      connector_id: custom.id,
      url: custom.url,
      auth_type: custom.authType === 'secret' ? 'secret' : 'none',
      secret: custom.secretSealed ? box.open(custom.secretSealed, customConnectorSecretContext(custom.id)) : null,
    };
    for (const t of [...custom.tools].sort((a, b) => a.name.localeCompare(b.name))) {
      if (!shows(t.name)) continue;
      tools.push({
        fully_qualified_name: `${custom.slug}__${t.name}`,
        connector_slug: custom.slug,
        connector_name: custom.name,
        connector_kind: 'custom',
        name: t.name,
        description: t.description,
        input_schema: t.inputSchema as JsonSchema,
        output_schema: (t.outputSchema as JsonSchema | null) ?? null,
        annotations: (t.annotations as Partial<ToolAnnotations> | null) ?? null,
        auth_scope: entry.authScope,
      });
    }
  }
  return {
    tool_pack: { id: pack.id, name: pack.name },
    registered_user: { id: user.id, origin_user_id: user.originUserId, origin_company_id: user.originCompanyId },
    tools,
    custom_servers: customServers,
  };
}
