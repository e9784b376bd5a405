import { MAX_ALIASES_PER_ORGANIZATION, policyView, slugFromName, uniqueSlug, validatePolicyInput, type PolicyDraft, type RoutingCatalog, type RoutingPolicy } from '@patchbay/model-routing';
import express, { Router, type Request } from 'express';
import type { Db } from '../db';
import { ManagementError } from '../http/errors';
import type { Invalidator } from '../keys/principals';
import { parsePaging, requireUuid } from '../http/params';
import { managementCaller, type ManagementAuth } from '../keys/management-auth';
import { dryRunPolicy, type DryRunDeps } from './dry-run';
import { toRoutingPolicy } from '../keys/routing-policy-row';
import { policyColumns } from './policies';

export interface RoutingPolicyDeps {
  db: Db;
  auth: ManagementAuth;
  invalidate: Invalidator;
  catalog: RoutingCatalog;
  /** For dry runs: the shared breakers and latencies (read only), and the vendors the platform has credentials for. */
  health: DryRunDeps['health'];
  platformVendors: DryRunDeps['platformVendors'];
}

function render(row: Parameters<typeof toRoutingPolicy>[0]): Record<string, unknown> {
  return { ...policyView(toRoutingPolicy(row)), created_at: row.createdAt.toISOString(), updated_at: row.updatedAt.toISOString() };
}

/**
 * Routing policy management (issue 10 §1, after Merge's /v1/routing-policies): create, list, get,
 * update, delete, and set a policy as its scope's default. Writes need a management key with
 * `manage_routing`; reads take `view_routing` (or `manage_routing`), or any organization gateway key
 * (as Merge's read endpoints do). Every query is scoped by the caller's organization; a change
 * reaches every replica's cache at once (organization invalidation over pub/sub).
 */
export function routingPolicyRouter(deps: RoutingPolicyDeps): Router {
  const { db, auth, invalidate } = deps;
  const router = Router();
  router.use('/v1/routing-policies', express.json({ limit: '1mb' }));

  const reader = async (req: Request) => {
    try {
      return await managementCaller(req, auth, 'view_routing', { allowGatewayKeys: true });
    } catch (err) {
      if (err instanceof ManagementError && err.status === 403 && !(err.message.includes('Customer'))) return managementCaller(req, auth, 'manage_routing');
      throw err;
    }
  };
  const writer = async (req: Request) => {
    const caller = await managementCaller(req, auth, 'manage_routing');
    return caller.organizationId;
  };
  const policyRow = async (organizationId: string, id: string) => {
    const row = await db.routingPolicy.findFirst({ where: { id: requireUuid(id, 'routing policy'), organizationId } });
    if (!row) throw new ManagementError(404, `No routing policy ${id} in this organization.`);
    return row;
  };
  /** The scope a draft names must exist in the organization. */
  const checkScope = async (organizationId: string, draft: PolicyDraft) => {
    if (draft.scope.type === 'project' && !(await db.project.findFirst({ where: { id: draft.scope.projectId, organizationId }, select: { id: true } }))) {
      throw new ManagementError(400, `project_id: no project ${draft.scope.projectId} in this organization.`);
    }
    if (draft.scope.type === 'customer') {
      const id = requireUuid(draft.scope.customerId, 'customer');
      if (!(await db.customer.findUnique({ where: { organizationId_id: { organizationId, id } }, select: { id: true } }))) {
        throw new ManagementError(400, `customer_id: no customer ${id} in this organization.`);
      }
    }
  };
  const scopeWhere = (organizationId: string, policy: RoutingPolicy) => ({
    organizationId,
    scopeType: policy.scope.type,
    projectId: policy.scope.type === 'project' ? policy.scope.projectId : null,
    customerId: policy.scope.type === 'customer' ? policy.scope.customerId : null,
  });

  router.post('/v1/routing-policies', async (req, res) => {
    const organizationId = await writer(req);
    const draft = validatePolicyInput(req.body, deps.catalog);
    await checkScope(organizationId, draft);
    const row = await invalidate.organizationChange(organizationId, async (tx) => {
      let slug: string | null = null;
      if (draft.scope.type === 'organization') {
        const taken = new Set((await tx.routingPolicy.findMany({ where: { organizationId, slug: { not: null } }, select: { slug: true } })).map((r) => r.slug!));
        if (draft.slug !== null && taken.has(draft.slug)) throw new ManagementError(409, `The alias @alias/${draft.slug} is taken; choose another slug.`);
        // At the alias cap a policy is still made, without an alias (model: null), as Merge does.
        if (taken.size < MAX_ALIASES_PER_ORGANIZATION) slug = draft.slug ?? uniqueSlug(slugFromName(draft.name), taken);
      }
      const scope = { organizationId, scopeType: draft.scope.type, projectId: draft.scope.type === 'project' ? draft.scope.projectId : null, customerId: draft.scope.type === 'customer' ? draft.scope.customerId : null };
      // The scope's first policy becomes its default.
      const isDefault = draft.isDefault || (await tx.routingPolicy.count({ where: scope })) === 0;
      if (isDefault) await tx.routingPolicy.updateMany({ where: { ...scope, isDefault: true }, data: { isDefault: false } });
      return tx.routingPolicy.create({ data: { organizationId, slug, ...policyColumns({ ...draft, isDefault }) } });
    });
    res.status(201).json(render(row));
  });

  router.get('/v1/routing-policies', async (req, res) => {
    const caller = await reader(req);
    const { offset, limit } = parsePaging(req.query);
    const rows = await db.routingPolicy.findMany({ where: { organizationId: caller.organizationId }, orderBy: { createdAt: 'desc' }, skip: offset, take: limit });
    res.json({ object: 'list', data: rows.map(render), offset, limit });
  });

  router.get('/v1/routing-policies/:id', async (req, res) => {
    const caller = await reader(req);
    res.json(render(await policyRow(caller.organizationId, String(req.params.id))));
  });

  router.patch('/v1/routing-policies/:id', async (req, res) => {
    const organizationId = await writer(req);
    const existing = toRoutingPolicy(await policyRow(organizationId, String(req.params.id)));
    const draft = validatePolicyInput(req.body, deps.catalog, existing);
    const row = await invalidate.organizationChange(organizationId, async (tx) => {
      if (draft.slug !== existing.slug && draft.slug !== null) {
        if (await tx.routingPolicy.findFirst({ where: { organizationId, slug: draft.slug, id: { not: existing.id } }, select: { id: true } })) throw new ManagementError(409, `The alias @alias/${draft.slug} is taken; choose another slug.`);
      }
      if (draft.isDefault && !existing.isDefault) await tx.routingPolicy.updateMany({ where: { ...scopeWhere(organizationId, existing), isDefault: true }, data: { isDefault: false } });
      return tx.routingPolicy.update({ where: { id: existing.id }, data: { slug: draft.slug, ...policyColumns(draft) } });
    });
    res.json(render(row));
  });

  router.delete('/v1/routing-policies/:id', async (req, res) => {
    const organizationId = await writer(req);
    const existing = await policyRow(organizationId, String(req.params.id));
    const bound = await db.apiKey.count({ where: { organizationId, routingPolicyId: existing.id } });
    if (bound > 0) throw new ManagementError(409, `${bound} API key(s) are bound to this policy; unbind them first (PATCH /v1/keys/{hash} {"routing_policy_id": null}).`);
    await invalidate.organizationChange(organizationId, (tx) => tx.routingPolicy.delete({ where: { id: existing.id } }));
    res.json({ id: existing.id, deleted: true });
  });

  // Makes the policy its scope's default: the organization's (organization policies), the project's or the customer's.
  router.post('/v1/routing-policies/:id/set-default', async (req, res) => {
    const organizationId = await writer(req);
    const existing = toRoutingPolicy(await policyRow(organizationId, String(req.params.id)));
    const row = await invalidate.organizationChange(organizationId, async (tx) => {
      await tx.routingPolicy.updateMany({ where: { ...scopeWhere(organizationId, existing), isDefault: true }, data: { isDefault: false } });
      return tx.routingPolicy.update({ where: { id: existing.id }, data: { isDefault: true } });
    });
    res.json(render(row));
  });

  // Which routes a request would take under the policy and why: the real resolution, no vendor call (view_routing).
  router.post('/v1/routing-policies/:id/dry-run', async (req, res) => {
    const caller = await reader(req);
    const policy = toRoutingPolicy(await policyRow(caller.organizationId, String(req.params.id)));
    const org = caller.kind === 'gateway_key' ? caller.org : await auth.caches.organizations.lookup(caller.organizationId);
    if (!org) throw new ManagementError(404, 'The organization has no gateway data yet.');
    res.json(await dryRunPolicy(deps, org, policy, req.body));
  });

  return router;
}
