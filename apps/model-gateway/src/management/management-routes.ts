import type { SecretBox } from '@patchbay/secrets';
import { checkUrl, type OutboundPolicy } from '@patchbay/outbound';
import express, { Router, type Request } from 'express';
import { z } from 'zod';
import type { Catalog } from '../catalog/catalog';
import type { Db } from '../db';
import { ManagementError } from '../http/errors';
import { vendorKeyContext, type Invalidator } from '../keys/principals';
import type { Environment, SpendControl } from '../spend/spend-control';
import { readUsage } from '../usage/usage-api';
import { readUsageDaily } from '../usage/usage-daily';
import { parsePaging, requireUuid } from '../http/params';
import { KeyService, createKeySchema, customerKeySchema, parseBody, parseKeyQuery } from './keys';
import { callerSettings, managementCaller, type ManagementAuth } from '../keys/management-auth';

export interface ManagementDeps {
  db: Db;
  /** Where the usage reads go: a read replica (DATABASE_READ_URL) or, without one, `db`. */
  readDb?: Db;
  auth: ManagementAuth;
  invalidate: Invalidator;
  spend: SpendControl;
  secrets: SecretBox;
  catalog: Catalog;
  outboundPolicy: OutboundPolicy;
}

const budget = z.number().min(0).max(1e9).nullable().optional();
const projectSchema = z.object({ name: z.string().min(1).max(255), budget }).strict();
const projectUpdateSchema = z.object({ name: z.string().min(1).max(255).optional(), budget }).strict();
const customerSchema = z.object({ id: z.string().uuid(), name: z.string().max(255).nullable().optional(), budget, active: z.boolean().optional() }).strict();
const customerUpdateSchema = z.object({ name: z.string().max(255).nullable().optional(), budget, active: z.boolean().optional() }).strict();
const vendorKeySchema = z.object({ api_key: z.string().min(1).max(4096), base_url: z.string().url().nullable().optional() }).strict();
const tagSchema = z.object({ key: z.string().min(1).max(100), value: z.string().min(1).max(200) }).strict();
const blocklistSchema = z.object({ models: z.array(z.string().min(1).max(200)).max(1000) }).strict();

const usd = (micros: bigint | null): number | null => (micros === null ? null : Number(micros) / 1e6);
const toMicros = (value: number | null | undefined): bigint | null | undefined => (value === undefined ? undefined : value === null ? null : BigInt(Math.round(value * 1e6)));

type ProjectRow = { id: string; name: string; environment: Environment; budgetMicros: bigint | null; createdAt: Date; updatedAt: Date };
type CustomerRow = { id: string; name: string | null; budgetMicros: bigint | null; active: boolean; createdAt: Date; updatedAt: Date };

/** `spent`: what the budget's counter holds (micros), read from the spend counters with the row. */
function renderProject(p: ProjectRow, spentMicros: number) {
  return { id: p.id, name: p.name, budget: usd(p.budgetMicros), spent: spentMicros / 1e6, created_at: p.createdAt.toISOString(), updated_at: p.updatedAt.toISOString() };
}

function renderCustomer(c: CustomerRow, spentMicros: number) {
  return { id: c.id, name: c.name, budget: usd(c.budgetMicros), spent: spentMicros / 1e6, active: c.active, created_at: c.createdAt.toISOString(), updated_at: c.updatedAt.toISOString() };
}

/** Projects with what they drew on their budgets, in one read of the spend counters (each project's own environment). */
async function projectsWithSpend(spend: SpendControl, organizationId: string, rows: ProjectRow[]) {
  const spent = await spend.budgetSpend(organizationId, rows.map((p) => ({ kind: 'project', id: p.id, environment: p.environment })));
  return rows.map((p, i) => renderProject(p, spent[i] ?? 0));
}

/** Customers likewise; they have no environment of their own, and the management API makes production keys only. */
async function customersWithSpend(spend: SpendControl, organizationId: string, rows: CustomerRow[]) {
  const spent = await spend.budgetSpend(organizationId, rows.map((c) => ({ kind: 'customer', id: c.id, environment: 'production' })));
  return rows.map((c, i) => renderCustomer(c, spent[i] ?? 0));
}

function renderTag(t: { id: string; organizationId: string; key: string; value: string; createdAt: Date; updatedAt: Date }) {
  return { id: t.id, object: 'tag', tag_key: t.key, tag_value: t.value, org_id: t.organizationId, is_global: false, created_at: t.createdAt.toISOString(), updated_at: t.updatedAt.toISOString() };
}

function param(req: Request, name: string): string {
  return String(req.params[name]);
}

/**
 * The management API under /v1 (errors `{detail}`): gateway keys, the calling key, projects,
 * customers and their keys, BYOK vendor keys, tags, the organization blocklist and usage.
 */
export function managementRouter(deps: ManagementDeps): Router {
  const { db, auth, invalidate } = deps;
  const keys = new KeyService(db, invalidate, deps.spend);
  const router = Router();
  router.use(['/v1/keys', '/v1/key', '/v1/projects', '/v1/customers', '/v1/vendor-keys', '/v1/tags', '/v1/blocklist', '/v1/usage'], express.json({ limit: '1mb' }));

  // Gateway API keys.
  router.post('/v1/keys', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_api_keys');
    if (caller.kind === 'gateway_key') throw new ManagementError(401, 'Management key required.');
    const input = parseBody(createKeySchema, req.body);
    const settings = callerSettings(caller);
    const gateway = settings.gateway;
    res.status(201).json(await keys.create(caller.organizationId, { plan: settings.plan, paymentMethodOnFile: gateway?.paymentMethodOnFile ?? true }, input));
  });
  router.get('/v1/keys', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_api_keys', { permission: 'view_api_keys' });
    const query = parseKeyQuery(req.query);
    const { data, total } = await keys.search(caller.organizationId, query);
    res.json({ data, offset: query.offset, limit: query.limit, total });
  });
  router.get('/v1/keys/:hash', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_api_keys', { permission: 'view_api_keys' });
    res.json({ data: await keys.get(caller.organizationId, param(req, 'hash')) });
  });
  router.patch('/v1/keys/:hash', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_api_keys');
    res.json({ data: await keys.update(caller.organizationId, param(req, 'hash'), req.body) });
  });
  router.delete('/v1/keys/:hash', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_api_keys');
    await keys.delete(caller.organizationId, param(req, 'hash'));
    res.json({ deleted: true });
  });
  router.post('/v1/keys/:hash/rotate', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_api_keys');
    res.json(await keys.rotate(caller.organizationId, param(req, 'hash')));
  });
  // The calling gateway key itself.
  router.get('/v1/key', async (req, res) => {
    const caller = await managementCaller(req, auth, null, { allowGatewayKeys: true });
    if (caller.kind !== 'gateway_key') throw new ManagementError(400, 'GET /v1/key describes the calling gateway key; a management key is not one. Use GET /v1/keys.');
    res.json({ data: await keys.get(caller.organizationId, caller.key.hash) });
  });

  // Projects.
  router.post('/v1/projects', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_projects');
    const input = parseBody(projectSchema, req.body);
    const project = await invalidate.organizationChange(caller.organizationId, (tx) => tx.project.create({ data: { organizationId: caller.organizationId, name: input.name, budgetMicros: toMicros(input.budget) ?? null } }));
    res.status(201).json((await projectsWithSpend(deps.spend, caller.organizationId, [project]))[0]);
  });
  router.get('/v1/projects', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_projects', { permission: 'view_projects' });
    const { offset, limit } = parsePaging(req.query);
    const rows = await db.project.findMany({ where: { organizationId: caller.organizationId }, orderBy: { createdAt: 'desc' }, skip: offset, take: limit });
    res.json({ data: await projectsWithSpend(deps.spend, caller.organizationId, rows), offset, limit });
  });
  const projectRow = async (organizationId: string, id: string) => {
    const row = await db.project.findFirst({ where: { id: requireUuid(id, 'project'), organizationId } });
    if (!row) throw new ManagementError(404, `No project ${id} in this organization.`);
    return row;
  };
  router.get('/v1/projects/:id', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_projects', { permission: 'view_projects' });
    res.json((await projectsWithSpend(deps.spend, caller.organizationId, [await projectRow(caller.organizationId, param(req, 'id'))]))[0]);
  });
  router.patch('/v1/projects/:id', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_projects');
    const input = parseBody(projectUpdateSchema, req.body);
    await projectRow(caller.organizationId, param(req, 'id'));
    const row = await invalidate.organizationChange(caller.organizationId, (tx) =>
      tx.project.update({ where: { id: param(req, 'id') }, data: { ...(input.name !== undefined ? { name: input.name } : {}), ...(input.budget !== undefined ? { budgetMicros: toMicros(input.budget) } : {}) } }),
    );
    res.json((await projectsWithSpend(deps.spend, caller.organizationId, [row]))[0]);
  });
  router.delete('/v1/projects/:id', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_projects');
    await projectRow(caller.organizationId, param(req, 'id'));
    if ((await db.apiKey.count({ where: { projectId: param(req, 'id') } })) > 0) throw new ManagementError(409, 'The project still has API keys; delete them first.');
    await invalidate.organizationChange(caller.organizationId, (tx) => tx.project.delete({ where: { id: param(req, 'id') } }));
    res.json({ deleted: true });
  });

  // Customers and their keys.
  const customerRow = async (organizationId: string, id: string) => {
    const row = await db.customer.findUnique({ where: { organizationId_id: { organizationId, id: requireUuid(id, 'customer') } } });
    if (!row) throw new ManagementError(404, `No customer ${id} in this organization.`);
    return row;
  };
  router.post('/v1/customers', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_customers');
    const input = parseBody(customerSchema, req.body);
    if (await db.customer.findUnique({ where: { organizationId_id: { organizationId: caller.organizationId, id: input.id } } })) throw new ManagementError(409, `Customer ${input.id} already exists.`);
    const row = await invalidate.organizationChange(caller.organizationId, (tx) =>
      tx.customer.create({ data: { organizationId: caller.organizationId, id: input.id, name: input.name ?? null, budgetMicros: toMicros(input.budget) ?? null, active: input.active ?? true } }),
    );
    res.status(201).json((await customersWithSpend(deps.spend, caller.organizationId, [row]))[0]);
  });
  router.get('/v1/customers', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_customers', { permission: 'view_customers' });
    const { offset, limit } = parsePaging(req.query);
    const rows = await db.customer.findMany({ where: { organizationId: caller.organizationId }, orderBy: { createdAt: 'desc' }, skip: offset, take: limit });
    res.json({ data: await customersWithSpend(deps.spend, caller.organizationId, rows), offset, limit });
  });
  router.get('/v1/customers/:id', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_customers', { permission: 'view_customers' });
    res.json((await customersWithSpend(deps.spend, caller.organizationId, [await customerRow(caller.organizationId, param(req, 'id'))]))[0]);
  });
  router.patch('/v1/customers/:id', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_customers');
    const input = parseBody(customerUpdateSchema, req.body);
    await customerRow(caller.organizationId, param(req, 'id'));
    const row = await invalidate.organizationChange(caller.organizationId, (tx) =>
      tx.customer.update({
        where: { organizationId_id: { organizationId: caller.organizationId, id: param(req, 'id') } },
        data: { ...(input.name !== undefined ? { name: input.name } : {}), ...(input.budget !== undefined ? { budgetMicros: toMicros(input.budget) } : {}), ...(input.active !== undefined ? { active: input.active } : {}) },
      }),
    );
    res.json((await customersWithSpend(deps.spend, caller.organizationId, [row]))[0]);
  });
  router.delete('/v1/customers/:id', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_customers');
    await customerRow(caller.organizationId, param(req, 'id'));
    const customerKeys = await db.apiKey.findMany({ where: { organizationId: caller.organizationId, customerId: param(req, 'id') }, select: { hash: true } });
    await invalidate.organizationChange(
      caller.organizationId,
      async (tx) => {
        await tx.apiKey.deleteMany({ where: { organizationId: caller.organizationId, customerId: param(req, 'id') } });
        await tx.customer.delete({ where: { organizationId_id: { organizationId: caller.organizationId, id: param(req, 'id') } } });
      },
      customerKeys.map((k) => k.hash),
    );
    res.json({ deleted: true });
  });
  // A management key (manage_customers) or an organization's gateway key; never a customer key.
  router.post('/v1/customers/:id/api-keys', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_customers', { allowGatewayKeys: true });
    const customer = await customerRow(caller.organizationId, param(req, 'id'));
    const input = parseBody(customerKeySchema, req.body);
    const settings = callerSettings(caller);
    res.status(201).json(await keys.create(caller.organizationId, { plan: settings.plan, paymentMethodOnFile: settings.gateway?.paymentMethodOnFile ?? true }, { ...input, customer_id: customer.id }));
  });
  router.get('/v1/customers/:id/api-keys', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_customers', { allowGatewayKeys: true, permission: 'view_customers' });
    await customerRow(caller.organizationId, param(req, 'id'));
    const { offset, limit } = parsePaging(req.query);
    const { data, total } = await keys.search(caller.organizationId, { customerId: param(req, 'id'), sort: '-created_at', offset, limit });
    res.json({ data, offset, limit, total });
  });

  // BYOK: the organization's own vendor credentials, sealed; never returned.
  router.put('/v1/vendor-keys/:vendor', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_vendor_keys');
    const vendor = param(req, 'vendor');
    const info = deps.catalog.vendors.get(vendor);
    if (!info?.supportsByok) throw new ManagementError(404, `No vendor ${vendor} accepts organization keys; vendors: ${[...deps.catalog.vendors.values()].filter((v) => v.supportsByok).map((v) => v.id).join(', ')}.`);
    const input = parseBody(vendorKeySchema, req.body);
    if (info.selfHosted && !input.base_url) throw new ManagementError(400, `base_url: ${vendor} is self-hosted; send the address of your own endpoint (for example https://llm.example.com/v1).`);
    if (input.base_url) {
      try {
        await checkUrl(input.base_url, deps.outboundPolicy, { requireHttps: !deps.outboundPolicy.allowPrivateNetwork });
      } catch (err) {
        throw new ManagementError(400, `base_url: ${(err as Error).message}`);
      }
    }
    const data = { sealedKey: deps.secrets.seal(input.api_key, vendorKeyContext(caller.organizationId, vendor)), baseUrl: input.base_url ?? null, last4: input.api_key.slice(-4) };
    const row = await invalidate.organizationChange(caller.organizationId, (tx) => tx.vendorKey.upsert({ where: { organizationId_vendor: { organizationId: caller.organizationId, vendor } }, create: { organizationId: caller.organizationId, vendor, ...data }, update: data }));
    res.json({ vendor, key_last4: row.last4, base_url: row.baseUrl, updated_at: row.updatedAt.toISOString() });
  });
  router.get('/v1/vendor-keys', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_vendor_keys', { permission: 'view_vendor_keys' });
    const rows = await db.vendorKey.findMany({ where: { organizationId: caller.organizationId }, orderBy: { vendor: 'asc' } });
    res.json({ data: rows.map((r) => ({ vendor: r.vendor, key_last4: r.last4, base_url: r.baseUrl, updated_at: r.updatedAt.toISOString() })) });
  });
  router.delete('/v1/vendor-keys/:vendor', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_vendor_keys');
    await invalidate.organizationChange(caller.organizationId, async (tx) => {
      const { count } = await tx.vendorKey.deleteMany({ where: { organizationId: caller.organizationId, vendor: param(req, 'vendor') } });
      if (count === 0) throw new ManagementError(404, `No key of your own for ${param(req, 'vendor')}.`);
    });
    res.json({ deleted: true });
  });

  // Tags: defined per organization; requests may carry only defined pairs.
  router.get('/v1/tags', async (req, res) => {
    const caller = await managementCaller(req, auth, null, { allowGatewayKeys: true, permission: 'view_policies' });
    const rows = await db.tag.findMany({ where: { organizationId: caller.organizationId }, orderBy: [{ key: 'asc' }, { value: 'asc' }] });
    res.json({ object: 'list', data: rows.map(renderTag), has_more: false, next_cursor: null });
  });
  router.post('/v1/tags', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_policies');
    const input = parseBody(tagSchema, req.body);
    const existing = await db.tag.findUnique({ where: { organizationId_key_value: { organizationId: caller.organizationId, key: input.key, value: input.value } } });
    if (existing) throw new ManagementError(409, `Tag ${input.key}=${input.value} is already defined.`);
    const row = await invalidate.organizationChange(caller.organizationId, (tx) => tx.tag.create({ data: { organizationId: caller.organizationId, key: input.key, value: input.value } }));
    res.status(201).json(renderTag(row));
  });
  router.delete('/v1/tags/:id', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_policies');
    await invalidate.organizationChange(caller.organizationId, async (tx) => {
      const { count } = await tx.tag.deleteMany({ where: { organizationId: caller.organizationId, id: requireUuid(param(req, 'id'), 'tag') } });
      if (count === 0) throw new ManagementError(404, `No tag ${param(req, 'id')} in this organization.`);
    });
    res.json({ deleted: true });
  });

  // The organization's blocklist: the whole list is replaced at once.
  router.get('/v1/blocklist', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_policies', { permission: 'view_policies' });
    const rows = await db.blockedModel.findMany({ where: { organizationId: caller.organizationId }, orderBy: { pattern: 'asc' } });
    res.json({ models: rows.map((r) => r.pattern) });
  });
  router.put('/v1/blocklist', async (req, res) => {
    const caller = await managementCaller(req, auth, 'manage_policies');
    const input = parseBody(blocklistSchema, req.body);
    const models = [...new Set(input.models)];
    await invalidate.organizationChange(caller.organizationId, async (tx) => {
      await tx.blockedModel.deleteMany({ where: { organizationId: caller.organizationId } });
      await tx.blockedModel.createMany({ data: models.map((pattern) => ({ organizationId: caller.organizationId, pattern })) });
    });
    res.json({ models: models.sort() });
  });

  // Usage: daily totals.
  router.get('/v1/usage', async (req, res) => {
    const caller = await managementCaller(req, auth, 'view_billing');
    res.json(await readUsage(deps.readDb ?? db, caller.organizationId, req.query));
  });
  // Usage per UTC day stacked by one dimension, with the server's totals (the console's chart and CSV, the overview).
  router.get('/v1/usage/daily', async (req, res) => {
    const caller = await managementCaller(req, auth, 'view_billing');
    res.json(await readUsageDaily(deps.readDb ?? db, caller.organizationId, req.query));
  });
  return router;
}
