import { randomUUID } from 'node:crypto';
import type { KeyPrincipal } from '@patchbay/auth';
import { BUILTIN_CONNECTORS } from '@patchbay/connector-catalog';
import { AppError, ConflictError, isUniqueViolation, NotFoundError, ValidationError, type FieldError } from '@patchbay/errors';
import type { Db, Tx } from '../db';
import { Prisma, type CustomConnector, type CustomConnectorTool } from '../generated/prisma/client';
import { afterCommit, registryChange, type AppServices } from '../services';
import { emitAudit } from './audit';
import { customRecord, type ConnectorRecord } from './connectors';
import { DiscoveryError, discoverTools, type DiscoveredServer } from './mcp-discovery';
import { diffTools, hasChanges, type ToolChanges, type ToolDefinition } from './tool-definitions';

/** Sealing context of a custom server's secret: bound to its connector so it cannot be moved to another. */
export const customConnectorSecretContext = (id: string) => `custom-connector:${id}`;

/** The body of POST /api/v1/connectors/ after validation. */
export interface CustomConnectorRegistration {
  name: string;
  url: string;
  description: string;
  slug: string;
  auth: { type: 'none' } | { type: 'secret'; secret: string };
}

export const NAME_MAX = 255;
export const DESCRIPTION_MAX = 2000;
export const URL_MAX = 2048;
export const SLUG_MAX = 64;
export const SECRET_MAX = 8192;
const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** What an HTTP header value may carry; no spaces either, since the secret is one bearer token. */
const SECRET_PATTERN = /^[\x21-\x7e]+$/;

const OAUTH_UNSUPPORTED =
  'OAuth is not supported for custom MCP servers. Use {"type": "secret", "secret": "<token>"} with a token the server accepts as "Authorization: Bearer <token>" (for example a personal or service token issued by that server), or {"type": "none"} for a server without authentication.';

const BUILTIN_SLUGS = new Set(BUILTIN_CONNECTORS.map((c) => c.slug));

/** A slug from a display name: lowercase ASCII letters and digits, other runs become one hyphen. */
export function slugFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, SLUG_MAX)
    .replace(/^-+|-+$/g, '');
}

/**
 * Validates the registration body and reports every bad field at once. Checks only the shape here;
 * whether the URL may be called (scheme, credentials, resolved addresses) is the outbound guard's job.
 */
export function parseRegistration(body: { name?: unknown; url?: unknown; description?: unknown; slug?: unknown; auth?: unknown }): CustomConnectorRegistration {
  const errors: FieldError[] = [];
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  if (typeof body.name !== 'string') errors.push({ field: 'body.name', message: 'is required' });
  else if (name.length === 0 || name.length > NAME_MAX) errors.push({ field: 'body.name', message: `must be 1 to ${NAME_MAX} characters` });

  let url = '';
  if (typeof body.url !== 'string' || body.url.trim() === '') {
    errors.push({ field: 'body.url', message: 'is required: the https:// URL of the MCP server (Streamable HTTP endpoint)' });
  } else if (body.url.length > URL_MAX) {
    errors.push({ field: 'body.url', message: `must be at most ${URL_MAX} characters` });
  } else {
    try {
      const parsed = new URL(body.url.trim());
      // The fragment never reaches the server; dropping it keeps "same URL" meaning the same server.
      parsed.hash = '';
      url = parsed.href;
    } catch {
      errors.push({ field: 'body.url', message: 'must be an absolute URL such as https://mcp.example.com/mcp' });
    }
  }

  let description = '';
  if (body.description !== undefined && body.description !== null) {
    if (typeof body.description !== 'string') errors.push({ field: 'body.description', message: 'must be a string' });
    else if (body.description.length > DESCRIPTION_MAX) errors.push({ field: 'body.description', message: `must be at most ${DESCRIPTION_MAX} characters` });
    else description = body.description.trim();
  }

  let slug = '';
  if (body.slug !== undefined && body.slug !== null) {
    if (typeof body.slug !== 'string' || !SLUG_PATTERN.test(body.slug) || body.slug.length > SLUG_MAX) {
      errors.push({ field: 'body.slug', message: `must be 1 to ${SLUG_MAX} lowercase letters, digits and hyphens, starting and ending with a letter or digit` });
    } else if (BUILTIN_SLUGS.has(body.slug)) {
      errors.push({ field: 'body.slug', message: `"${body.slug}" is the slug of a built-in connector; choose another` });
    } else {
      slug = body.slug;
    }
  } else if (name.length > 0 && name.length <= NAME_MAX) {
    slug = slugFromName(name);
    if (slug === '') errors.push({ field: 'body.slug', message: 'could not be derived from the name (no letters or digits); give a slug' });
    else if (BUILTIN_SLUGS.has(slug)) errors.push({ field: 'body.slug', message: `"${slug}", derived from the name, is the slug of a built-in connector; give another slug` });
  }

  const auth = parseAuth(body.auth, errors);
  if (errors.length > 0 || auth === undefined) throw new ValidationError(errors);
  return { name, url, description, slug, auth };
}

function parseAuth(value: unknown, errors: FieldError[]): CustomConnectorRegistration['auth'] | undefined {
  if (value === undefined || value === null) {
    errors.push({ field: 'body.auth', message: 'is required: {"type": "none"} or {"type": "secret", "secret": "<token>"}' });
    return undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    errors.push({ field: 'body.auth', message: 'must be an object: {"type": "none"} or {"type": "secret", "secret": "<token>"}' });
    return undefined;
  }
  const auth = value as Record<string, unknown>;
  const extras = (allowed: string[]) => Object.keys(auth).filter((k) => !allowed.includes(k));
  if (auth.type === 'none') {
    for (const key of extras(['type'])) errors.push({ field: `body.auth.${key}`, message: 'is not allowed with type none' });
    return { type: 'none' };
  }
  if (auth.type === 'secret') {
    for (const key of extras(['type', 'secret'])) errors.push({ field: `body.auth.${key}`, message: 'is not allowed with type secret' });
    const secret = auth.secret;
    if (typeof secret !== 'string' || secret.length === 0) {
      errors.push({ field: 'body.auth.secret', message: 'is required with type secret: the token sent as "Authorization: Bearer <token>"' });
      return undefined;
    }
    if (secret.length > SECRET_MAX || !SECRET_PATTERN.test(secret)) {
      errors.push({ field: 'body.auth.secret', message: `must be one token of printable ASCII without spaces, at most ${SECRET_MAX} characters (it is sent as "Authorization: Bearer <token>")` });
      return undefined;
    }
    return { type: 'secret', secret };
  }
  if (typeof auth.type === 'string' && /oauth/i.test(auth.type)) {
    errors.push({ field: 'body.auth.type', message: OAUTH_UNSUPPORTED });
  } else {
    errors.push({ field: 'body.auth.type', message: `must be "none" or "secret". ${OAUTH_UNSUPPORTED}` });
  }
  return undefined;
}

type ConnectorWithTools = CustomConnector & { tools: CustomConnectorTool[] };

const scopeOf = (principal: KeyPrincipal) => ({ organizationId: principal.organizationId, environment: principal.environment });

/** The 409 of a slug or URL already registered in the organization and environment. */
async function conflictFor(db: Db | Tx, principal: KeyPrincipal, registration: Pick<CustomConnectorRegistration, 'slug' | 'url'>): Promise<ConflictError | undefined> {
  const bySlug = await db.customConnector.findFirst({ where: { ...scopeOf(principal), slug: registration.slug }, select: { id: true, slug: true } });
  if (bySlug) {
    return new ConflictError(`A connector with the slug "${registration.slug}" is already registered; choose another slug or delete that connector first.`, {
      conflicting: { field: 'slug', connector: bySlug },
    });
  }
  const byUrl = await db.customConnector.findFirst({ where: { ...scopeOf(principal), url: registration.url }, select: { id: true, slug: true } });
  if (byUrl) {
    return new ConflictError(`This MCP server URL is already registered as the connector "${byUrl.slug}"; refresh or delete that connector instead.`, {
      conflicting: { field: 'url', connector: byUrl },
    });
  }
  return undefined;
}

/**
 * The API error for a failed handshake. At registration, what the caller must change (the URL, the
 * secret) is a 400 naming the field; an unreachable or failing server is a 502, a timeout a 504.
 * At refresh the caller sent nothing to change, so every failure is the server's: 502 or 504.
 */
export function discoveryErrorToAppError(err: DiscoveryError, stage: 'register' | 'refresh'): AppError {
  const extra: Record<string, unknown> = { failure: err.failure };
  if (err.reason !== undefined) extra.reason = err.reason;
  if (stage === 'register' && (err.failure === 'blocked_destination' || err.failure === 'auth_refused')) {
    const field = err.failure === 'blocked_destination' ? 'body.url' : 'body.auth';
    return new AppError('validation_error', err.message, { fieldErrors: [{ field, message: err.message }], extra });
  }
  const prefix = stage === 'register' ? 'Registration failed, nothing was saved' : 'Refresh failed, the stored tools are unchanged';
  return new AppError(err.failure === 'timeout' ? 'gateway_timeout' : 'bad_gateway', `${prefix}: ${err.message}`, { extra });
}

async function discover(services: AppServices, url: string, secret: string | null, stage: 'register' | 'refresh'): Promise<DiscoveredServer> {
  try {
    return await discoverTools(url, {
      policy: { allowPrivateNetwork: services.config.PATCHBAY_ALLOW_PRIVATE_NETWORK },
      secret,
      timeoutMs: services.config.MCP_HANDSHAKE_TIMEOUT_MS,
    });
  } catch (err) {
    if (err instanceof DiscoveryError) throw discoveryErrorToAppError(err, stage);
    throw err;
  }
}

function toolRows(connectorId: string, tools: DiscoveredServer['tools']) {
  return tools.map((t) => ({
    connectorId,
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as Prisma.InputJsonValue,
    outputSchema: t.outputSchema === null ? Prisma.DbNull : (t.outputSchema as Prisma.InputJsonValue),
    annotations: t.annotations === null ? Prisma.DbNull : (t.annotations as Prisma.InputJsonValue),
    definitionHash: t.definitionHash,
  }));
}

/**
 * Registers a remote MCP server: checks conflicts, runs the handshake (nothing is written before it
 * succeeds), then stores the connector, its tools with their definition hashes and the sealed secret
 * in one transaction with the audit event. Two concurrent registrations of the same slug or URL
 * meet at the unique constraints and the loser gets the same 409 as a sequential one.
 */
export async function registerCustomConnector(services: AppServices, principal: KeyPrincipal, registration: CustomConnectorRegistration): Promise<ConnectorRecord> {
  const { db, box } = services;
  const early = await conflictFor(db, principal, registration);
  if (early) throw early;
  const secret = registration.auth.type === 'secret' ? registration.auth.secret : null;
  const server = await discover(services, registration.url, secret, 'register');

  const id = randomUUID();
  // Bound to the connector's id: a sealed secret copied onto another row will not open.
  const secretSealed = secret === null ? null : box.seal(secret, customConnectorSecretContext(id));
  try {
    await db.$transaction(async (tx) => {
      await tx.customConnector.create({
        data: {
          id,
          ...scopeOf(principal),
          slug: registration.slug,
          name: registration.name,
          description: registration.description,
          url: registration.url,
          authType: registration.auth.type,
          secretSealed,
          serverName: server.serverName,
          serverVersion: server.serverVersion,
          protocolVersion: server.protocolVersion,
        },
      });
      if (server.tools.length > 0) await tx.customConnectorTool.createMany({ data: toolRows(id, server.tools) });
      await emitAudit(tx, principal, {
        eventType: 'connector.registered',
        resourceType: 'connector',
        resourceId: id,
        details: {
          slug: registration.slug,
          name: registration.name,
          url: registration.url,
          auth_type: registration.auth.type,
          server_name: server.serverName,
          server_version: server.serverVersion,
          tools: server.tools.map((t) => ({ name: t.name, definition_hash: t.definitionHash })),
        },
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw (await conflictFor(db, principal, registration)) ?? err;
    throw err;
  }
  // No tool pack can include it yet: nothing cached changes.
  await afterCommit(services);
  return customRecord(await loadConnector(db, principal, registration.slug), { runtime: false, toolDetails: true });
}

async function loadConnector(db: Db | Tx, principal: KeyPrincipal, slug: string): Promise<ConnectorWithTools> {
  const row = await db.customConnector.findFirst({ where: { ...scopeOf(principal), slug }, include: { tools: true } });
  if (!row) throw notFound(slug);
  return row;
}

function notFound(slug: string): NotFoundError {
  const builtin = BUILTIN_SLUGS.has(slug);
  return new NotFoundError(
    builtin
      ? `"${slug}" is a built-in connector; only custom connectors registered through POST /api/v1/connectors/ can be refreshed or deleted.`
      : `No custom connector with slug "${slug}".`,
  );
}

/** Locks the connector row for the rest of the transaction, so a refresh and a delete of it never interleave. */
async function lockConnector(tx: Tx, id: string): Promise<boolean> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM custom_connectors WHERE id = ${id}::uuid FOR UPDATE`;
  return rows.length > 0;
}

export interface RefreshResult {
  connector: ConnectorRecord;
  changes: ToolChanges;
}

/**
 * Re-discovers a custom connector's tools with its stored secret and stores what the server lists
 * now, reporting which definitions were added, removed or changed. Any change is audited as
 * connector.tools_changed: a tool whose description changed silently is how tool poisoning starts.
 */
export async function refreshCustomConnector(services: AppServices, principal: KeyPrincipal, slug: string): Promise<RefreshResult> {
  const { db, box } = services;
  const current = await loadConnector(db, principal, slug);
  const secret = current.secretSealed === null ? null : box.open(current.secretSealed, customConnectorSecretContext(current.id));
  const server = await discover(services, current.url, secret, 'refresh');

  const changes = await db.$transaction(async (tx) => {
    if (!(await lockConnector(tx, current.id))) throw notFound(slug);
    // Compared with the rows as they are under the lock, not as read before the handshake.
    const stored = await tx.customConnectorTool.findMany({ where: { connectorId: current.id } });
    const diff = diffTools(stored.map(asDefinition), server.tools);
    const discovered = new Map(server.tools.map((t) => [t.name, t]));
    if (diff.removed.length > 0) await tx.customConnectorTool.deleteMany({ where: { connectorId: current.id, name: { in: diff.removed } } });
    for (const { name } of diff.changed) {
      const [row] = toolRows(current.id, [discovered.get(name) as DiscoveredServer['tools'][number]]);
      if (row) await tx.customConnectorTool.update({ where: { connectorId_name: { connectorId: current.id, name } }, data: row });
    }
    const added = diff.added.map((name) => discovered.get(name) as DiscoveredServer['tools'][number]);
    if (added.length > 0) await tx.customConnectorTool.createMany({ data: toolRows(current.id, added) });
    await tx.customConnector.update({
      where: { id: current.id },
      data: { toolsRefreshedAt: new Date(), serverName: server.serverName, serverVersion: server.serverVersion, protocolVersion: server.protocolVersion },
    });
    if (hasChanges(diff)) {
      await emitAudit(tx, principal, {
        eventType: 'connector.tools_changed',
        resourceType: 'connector',
        resourceId: current.id,
        details: {
          slug,
          added: diff.added,
          removed: diff.removed,
          changed: diff.changed,
          tools: server.tools.map((t) => ({ name: t.name, definition_hash: t.definitionHash })),
        },
      });
    }
    return diff;
  });
  if (hasChanges(changes)) await afterCommit(services, registryChange(principal, 'connectors', { connector_slug: slug }));
  return { connector: customRecord(await loadConnector(db, principal, slug), { runtime: false, toolDetails: true }), changes };
}

function asDefinition(row: CustomConnectorTool): ToolDefinition & { definitionHash: string } {
  return {
    name: row.name,
    description: row.description,
    inputSchema: row.inputSchema as Record<string, unknown>,
    outputSchema: (row.outputSchema as Record<string, unknown> | null) ?? null,
    annotations: (row.annotations as Record<string, unknown> | null) ?? null,
    definitionHash: row.definitionHash,
  };
}

/**
 * Deletes a custom connector with the credentials stored for it (connections) and its pending link
 * tokens. Refused with a 409 while tool packs include it: removing it from under them would change
 * what their agents see without anyone deciding so. The dependents listed are those the key may
 * see; the message counts the others without naming them.
 */
export async function deleteCustomConnector(services: AppServices, principal: KeyPrincipal, slug: string): Promise<void> {
  const { db } = services;
  const current = await loadConnector(db, principal, slug);
  await db.$transaction(async (tx) => {
    if (!(await lockConnector(tx, current.id))) throw notFound(slug);
    const usages = await tx.toolPackConnector.findMany({
      where: { connectorId: current.id, toolPack: scopeOf(principal) },
      select: { toolPack: { select: { id: true, name: true } } },
      orderBy: { toolPack: { name: 'asc' } },
    });
    if (usages.length > 0) {
      const allowed = principal.toolPackIds === null ? null : new Set(principal.toolPackIds);
      const visible = usages.filter((u) => allowed === null || allowed.has(u.toolPack.id));
      const hidden = usages.length - visible.length;
      const names = visible.map((u) => `"${u.toolPack.name}"`).join(', ');
      const count = usages.length === 1 ? 'a tool pack includes' : `${usages.length} tool packs include`;
      const outside = hidden > 0 ? ` (${hidden} of them outside this key's scope)` : '';
      throw new ConflictError(
        `The connector "${slug}" cannot be deleted while ${count} it${outside}${names ? `: ${names}` : ''}. Remove the connector from those tool packs first (PATCH /api/v1/tool-packs/{id}/), then delete it.`,
        { dependents: visible.map((u) => ({ type: 'tool_pack', id: u.toolPack.id, name: u.toolPack.name })) },
      );
    }
    const credentials = await tx.connection.deleteMany({ where: { ...scopeOf(principal), connectorSlug: slug } });
    await tx.linkToken.deleteMany({ where: { ...scopeOf(principal), connectorSlug: slug } });
    await tx.customConnector.delete({ where: { id: current.id } });
    await emitAudit(tx, principal, {
      eventType: 'connector.deleted',
      resourceType: 'connector',
      resourceId: current.id,
      details: { slug, name: current.name, url: current.url, credentials_removed: credentials.count },
    });
  });
  await afterCommit(services, registryChange(principal, 'connectors', { connector_slug: slug }));
}
