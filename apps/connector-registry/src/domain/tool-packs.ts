import { assertToolPackInScope, toolPackIdFilter, type KeyPrincipal } from '@patchbay/auth';
import { NotFoundError, ValidationError, type FieldError } from '@patchbay/errors';
import type { PageParams } from '@patchbay/pagination';
import type { Db, Tx } from '../db';
import type { AuthScope, ToolPack, ToolPackConnector } from '../generated/prisma/client';
import { emitAudit } from './audit';
import { recordOf, resolveConnectorById, toolNamesOf, type ResolvedConnector } from './connectors';
import { isUuid } from './ids';

export const TOOL_PACK_NAME_MAX = 255;
/**
 * Updates of one pack queue behind its row lock, each holding a pool connection while it waits, so a
 * burst of them can keep the pool busy for a while: tool-pack writes (those updates, and a create or
 * delete arriving meanwhile) wait for a connection up to 10 s (Prisma's default is 2 s) rather than
 * fail. Past that the answer is a 503 with Retry-After.
 */
const PACK_WRITE_TRANSACTION = { maxWait: 10_000 };
const AUTH_SCOPES: AuthScope[] = ['INDIVIDUAL', 'SHARED', 'ORGANIZATION'];

export interface ToolPackConnectorInput {
  /** The connector's `id` (GET /api/v1/connectors/), in either letter case. Each connector at most once per pack: a second entry for it is a 400 naming it. */
  connector_id: string;
  /** INDIVIDUAL (one registered user), SHARED (one company) or ORGANIZATION (the whole organization). Default INDIVIDUAL. */
  auth_scope?: string;
  /** Tools of that connector to expose; an empty list or none exposes every tool, including tools it gains later. */
  tool_names?: string[];
}

export interface ToolPackInput {
  name?: string;
  description?: string;
  connectors?: ToolPackConnectorInput[];
}

/** A connector as a tool pack shows it (spec: connector summary), with what the pack selected. */
export interface ToolPackConnectorSummary {
  connector_id: string;
  name: string;
  slug: string;
  source_url: string;
  logo_url: string;
  categories: string[];
  auth_scope: AuthScope;
  /** The selection as stored: empty means all tools. */
  tool_names: string[];
  /** The tools the pack exposes, with descriptions. */
  tools: Array<{ name: string; description: string }>;
}

export interface ToolPackRecord {
  id: string;
  name: string;
  description: string;
  connectors: ToolPackConnectorSummary[];
  created_at: string;
  updated_at: string;
}

type PackRow = ToolPack & { connectors: ToolPackConnector[] };

interface ResolvedEntry {
  connector: ResolvedConnector;
  authScope: AuthScope;
  toolNames: string[];
}

/**
 * Resolves and checks the connector entries of a request. A connector is known by its canonical
 * (lowercase) id: PostgreSQL compares uuids regardless of case, so `connector_id` in capitals names
 * the same connector, and listing one connector twice in any spelling is the caller's mistake, told
 * here rather than met as the pack's unique (tool_pack_id, connector_id) constraint.
 */
async function resolveEntries(db: Db, principal: KeyPrincipal, entries: ToolPackConnectorInput[]): Promise<ResolvedEntry[]> {
  const errors: FieldError[] = [];
  const resolved: ResolvedEntry[] = [];
  /** Canonical connector id → the index of the entry that first listed it. */
  const firstAt = new Map<string, number>();
  for (const [i, entry] of entries.entries()) {
    const field = `body.connectors[${i}]`;
    if (!isUuid(entry.connector_id)) {
      errors.push({ field: `${field}.connector_id`, message: 'must be the UUID of a connector (see GET /api/v1/connectors/)' });
      continue;
    }
    const authScope = (entry.auth_scope ?? 'INDIVIDUAL') as AuthScope;
    if (!AUTH_SCOPES.includes(authScope)) errors.push({ field: `${field}.auth_scope`, message: `must be one of ${AUTH_SCOPES.join(', ')}` });
    const connector = await resolveConnectorById(db, principal, entry.connector_id.toLowerCase());
    if (!connector) {
      errors.push({ field: `${field}.connector_id`, message: 'is not a connector of this organization and environment' });
      continue;
    }
    const first = firstAt.get(connector.id);
    if (first !== undefined) {
      errors.push({
        field: `${field}.connector_id`,
        message: `connector ${connector.slug} is already listed at body.connectors[${first}]; give each connector once (put all its tool_names in one entry)`,
      });
      continue;
    }
    firstAt.set(connector.id, i);
    const available = new Set(toolNamesOf(connector));
    const toolNames = [...new Set(entry.tool_names ?? [])];
    const unknown = toolNames.filter((t) => !available.has(t));
    if (unknown.length > 0) errors.push({ field: `${field}.tool_names`, message: `unknown tools of ${connector.slug}: ${unknown.join(', ')}` });
    resolved.push({ connector, authScope, toolNames });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return resolved;
}

function validateText(input: ToolPackInput, creating: boolean): void {
  const errors: FieldError[] = [];
  if (creating && input.name === undefined) errors.push({ field: 'body.name', message: 'is required' });
  if (input.name !== undefined && (input.name.trim() === '' || input.name.length > TOOL_PACK_NAME_MAX)) errors.push({ field: 'body.name', message: `must be 1 to ${TOOL_PACK_NAME_MAX} characters` });
  if (creating && input.description === undefined) errors.push({ field: 'body.description', message: 'is required' });
  if (errors.length > 0) throw new ValidationError(errors);
}

/**
 * Holds a share lock on each custom connector the pack will use, so a concurrent DELETE of that
 * connector (which locks it for update) waits, then sees the pack and answers 409.
 */
async function lockCustomConnectors(tx: Tx, entries: ResolvedEntry[]): Promise<void> {
  for (const entry of entries) {
    if (entry.connector.kind !== 'custom') continue;
    const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM custom_connectors WHERE id = ${entry.connector.id}::uuid FOR SHARE`;
    if (rows.length === 0) throw ValidationError.forField('body.connectors', `connector ${entry.connector.slug} was deleted meanwhile`);
  }
}

/**
 * Locks the pack's row for the rest of the transaction, so concurrent updates of one pack run one
 * after the other: each replaces the connector list it finds (committed by the one before it) whole,
 * instead of two delete-then-insert runs interleaving into a mix of both lists or colliding on the
 * (tool_pack_id, connector_id) constraint. The last to commit wins. A pack deleted meanwhile is a 404.
 */
async function lockPack(tx: Tx, principal: KeyPrincipal, id: string): Promise<void> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM tool_packs
    WHERE id = ${id}::uuid AND organization_id = ${principal.organizationId}::uuid AND environment = ${principal.environment}::"Environment"
    FOR UPDATE`;
  if (rows.length === 0) throw new NotFoundError('Tool pack not found.');
}

async function toRecord(db: Db, principal: KeyPrincipal, pack: PackRow): Promise<ToolPackRecord> {
  const connectors: ToolPackConnectorSummary[] = [];
  for (const entry of [...pack.connectors].sort((a, b) => a.position - b.position)) {
    const connector = await resolveConnectorById(db, principal, entry.connectorId);
    // A custom connector deleted since is not shown (deleting one a pack uses is refused, so this is rare).
    if (!connector) continue;
    const record = recordOf(connector, { runtime: false, toolDetails: false });
    const selected = new Set(entry.toolNames);
    connectors.push({
      connector_id: entry.connectorId,
      name: record.name,
      slug: record.slug,
      source_url: record.source_url,
      logo_url: record.logo_url,
      categories: record.categories,
      auth_scope: entry.authScope,
      tool_names: entry.toolNames,
      tools: record.tools.filter((t) => selected.size === 0 || selected.has(t.name)).map((t) => ({ name: t.name, description: t.description })),
    });
  }
  return { id: pack.id, name: pack.name, description: pack.description, connectors, created_at: pack.createdAt.toISOString(), updated_at: pack.updatedAt.toISOString() };
}

async function findPack(db: Db, principal: KeyPrincipal, id: string): Promise<PackRow> {
  if (!isUuid(id)) throw new NotFoundError('Tool pack not found.');
  assertToolPackInScope(principal, id);
  const pack = await db.toolPack.findFirst({ where: { id, organizationId: principal.organizationId, environment: principal.environment }, include: { connectors: true } });
  if (!pack) throw new NotFoundError('Tool pack not found.');
  return pack;
}

export class ToolPackService {
  constructor(private readonly db: Db) {}

  /** Newest first; `search` keeps packs whose name contains it, in either case. */
  async list(principal: KeyPrincipal, page: PageParams, search?: string): Promise<{ count: number; results: ToolPackRecord[] }> {
    const allowed = toolPackIdFilter(principal);
    const where = {
      organizationId: principal.organizationId,
      environment: principal.environment,
      ...(allowed ? { id: { in: allowed } } : {}),
      ...(search !== undefined ? { name: { contains: search, mode: 'insensitive' as const } } : {}),
    };
    const [count, rows] = await Promise.all([
      this.db.toolPack.count({ where }),
      this.db.toolPack.findMany({ where, include: { connectors: true }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.offset, take: page.pageSize }),
    ]);
    return { count, results: await Promise.all(rows.map((r) => toRecord(this.db, principal, r))) };
  }

  async get(principal: KeyPrincipal, id: string): Promise<ToolPackRecord> {
    return toRecord(this.db, principal, await findPack(this.db, principal, id));
  }

  async create(principal: KeyPrincipal, input: ToolPackInput): Promise<ToolPackRecord> {
    validateText(input, true);
    const entries = await resolveEntries(this.db, principal, input.connectors ?? []);
    const pack = await this.db.$transaction(async (tx) => {
      await lockCustomConnectors(tx, entries);
      const created = await tx.toolPack.create({
        data: {
          organizationId: principal.organizationId,
          environment: principal.environment,
          name: (input.name as string).trim(),
          description: input.description as string,
          connectors: { create: entries.map((e, position) => ({ connectorId: e.connector.id, connectorSlug: e.connector.slug, isCustom: e.connector.kind === 'custom', authScope: e.authScope, toolNames: e.toolNames, position })) },
        },
        include: { connectors: true },
      });
      await emitAudit(tx, principal, { eventType: 'tool_pack.created', resourceType: 'tool_pack', resourceId: created.id, details: { name: created.name, connectors: entries.map((e) => e.connector.slug) } });
      return created;
    }, PACK_WRITE_TRANSACTION);
    return toRecord(this.db, principal, pack);
  }

  /** All fields optional; `connectors`, when given, replaces the pack's whole connector list. */
  async update(principal: KeyPrincipal, id: string, input: ToolPackInput): Promise<ToolPackRecord> {
    await findPack(this.db, principal, id);
    validateText(input, false);
    const entries = input.connectors === undefined ? undefined : await resolveEntries(this.db, principal, input.connectors);
    const pack = await this.db.$transaction(async (tx) => {
      await lockPack(tx, principal, id);
      if (entries) {
        await lockCustomConnectors(tx, entries);
        await tx.toolPackConnector.deleteMany({ where: { toolPackId: id } });
        await tx.toolPackConnector.createMany({ data: entries.map((e, position) => ({ toolPackId: id, connectorId: e.connector.id, connectorSlug: e.connector.slug, isCustom: e.connector.kind === 'custom', authScope: e.authScope, toolNames: e.toolNames, position })) });
      }
      const updated = await tx.toolPack.update({
        where: { id },
        data: { ...(input.name !== undefined ? { name: input.name.trim() } : {}), ...(input.description !== undefined ? { description: input.description } : {}), updatedAt: new Date() },
        include: { connectors: true },
      });
      await emitAudit(tx, principal, { eventType: 'tool_pack.updated', resourceType: 'tool_pack', resourceId: id, details: { changed: Object.keys(input) } });
      return updated;
    }, PACK_WRITE_TRANSACTION);
    return toRecord(this.db, principal, pack);
  }

  async delete(principal: KeyPrincipal, id: string): Promise<void> {
    const pack = await findPack(this.db, principal, id);
    await this.db.$transaction(async (tx) => {
      await tx.toolPack.delete({ where: { id } });
      await emitAudit(tx, principal, { eventType: 'tool_pack.deleted', resourceType: 'tool_pack', resourceId: id, details: { name: pack.name } });
    }, PACK_WRITE_TRANSACTION);
  }
}

