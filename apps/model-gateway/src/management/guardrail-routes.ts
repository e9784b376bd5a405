import { randomUUID } from 'node:crypto';
import { checkTexts, piOverrideToWire, piSettingsToWire, validateCheckRequest, validatePiOverride, validatePiSettings, type SettingsFieldError } from '@patchbay/prompt-injection';
import { validateRule, type SecurityRule } from '@patchbay/security-scanner';
import { isUuid } from '@patchbay/service-kit';
import express, { Router, type Request } from 'express';
import type { Db } from '../db';
import type { Prisma } from '../generated/prisma/client';
import { ManagementError } from '../http/errors';
import type { Invalidator } from '../keys/principals';
import { requireUuid } from '../http/params';
import { managementCaller, type ManagementAuth } from '../keys/management-auth';
import { loadGuardrails } from '../guardrails/guardrails';

export interface GuardrailDeps {
  db: Db;
  auth: ManagementAuth;
  invalidate: Invalidator;
}

/** At most this many DLP rules per organization (each one is a pass over every prompt and answer). */
export const MAX_DLP_RULES = 50;

function invalid(errors: SettingsFieldError[], prefix = 'body'): ManagementError {
  return new ManagementError(400, errors.map((e) => `${prefix}.${e.field}: ${e.message}`).join('; '));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Guardrail management (issue 10 §3, after Merge's prompt-injection protection): the organization's
 * prompt-injection settings, customer overrides, data-loss prevention rules, enabling the check
 * endpoint, and the check endpoint itself. Writes need `manage_guardrails`; reads `view_guardrails` (or
 * `manage_guardrails`). Every write invalidates the organization's cached data on every replica, so the
 * model path reads guardrails from memory only.
 */
export function guardrailRouter(deps: GuardrailDeps): Router {
  const { db, auth, invalidate } = deps;
  const router = Router();
  for (const path of ['/v1/organization/pi-settings', '/v1/organization/pi-check', '/v1/organization/dlp-rules', '/v1/customers/:id/pi-settings', '/v1/prompt-injection/check']) {
    router.use(path, express.json({ limit: '1mb' }));
  }

  const writer = async (req: Request) => (await managementCaller(req, auth, 'manage_guardrails')).organizationId;
  const reader = async (req: Request) => {
    try {
      return (await managementCaller(req, auth, 'view_guardrails')).organizationId;
    } catch (err) {
      if (err instanceof ManagementError && err.status === 403) return writer(req);
      throw err;
    }
  };
  const stored = async (organizationId: string) => loadGuardrails(await db.guardrailSettings.findUnique({ where: { organizationId } }), []);
  const requireCustomer = async (organizationId: string, id: string) => {
    requireUuid(id, 'customer');
    if (!(await db.customer.findUnique({ where: { organizationId_id: { organizationId, id } }, select: { id: true } }))) throw new ManagementError(404, `No customer ${id} in this organization.`);
    return id;
  };

  router.get('/v1/organization/pi-settings', async (req, res) => {
    res.json(piSettingsToWire((await stored(await reader(req))).piSettings));
  });

  router.put('/v1/organization/pi-settings', async (req, res) => {
    const organizationId = await writer(req);
    const checked = validatePiSettings(req.body);
    if ('errors' in checked) throw invalid(checked.errors);
    const wire = piSettingsToWire(checked.settings);
    await invalidate.organizationChange(organizationId, (tx) =>
      tx.guardrailSettings.upsert({ where: { organizationId }, create: { organizationId, piSettings: wire as unknown as Prisma.InputJsonValue }, update: { piSettings: wire as unknown as Prisma.InputJsonValue } }),
    );
    res.json(wire);
  });

  router.get('/v1/customers/:id/pi-settings', async (req, res) => {
    const organizationId = await reader(req);
    const customerId = await requireCustomer(organizationId, req.params.id as string);
    const row = await db.customerPiOverride.findUnique({ where: { organizationId_customerId: { organizationId, customerId } } });
    const org = (await stored(organizationId)).piSettings;
    const checked = row ? validatePiOverride(row.override, org) : null;
    res.json(piOverrideToWire(checked && 'override' in checked ? checked.override : {}));
  });

  router.put('/v1/customers/:id/pi-settings', async (req, res) => {
    const organizationId = await writer(req);
    const customerId = await requireCustomer(organizationId, req.params.id as string);
    const org = (await stored(organizationId)).piSettings;
    const checked = validatePiOverride(req.body, org);
    if ('errors' in checked) throw invalid(checked.errors);
    const wire = piOverrideToWire(checked.override);
    // Stored sparse (only the fields set): `{}` restores full inheritance.
    const sparse = Object.fromEntries(Object.entries(wire).filter(([, v]) => v !== null && v !== undefined));
    await invalidate.organizationChange(organizationId, (tx) =>
      tx.customerPiOverride.upsert({
        where: { organizationId_customerId: { organizationId, customerId } },
        create: { organizationId, customerId, override: sparse as Prisma.InputJsonValue },
        update: { override: sparse as Prisma.InputJsonValue },
      }),
    );
    res.json(wire);
  });

  router.get('/v1/organization/pi-check', async (req, res) => {
    res.json({ enabled: (await stored(await reader(req))).checkEnabled });
  });

  router.put('/v1/organization/pi-check', async (req, res) => {
    const organizationId = await writer(req);
    const body: unknown = req.body;
    if (!isRecord(body) || typeof body.enabled !== 'boolean' || Object.keys(body).length !== 1) throw new ManagementError(400, 'body: send {"enabled": true|false} and nothing else.');
    const enabled = body.enabled;
    await invalidate.organizationChange(organizationId, (tx) => tx.guardrailSettings.upsert({ where: { organizationId }, create: { organizationId, checkEnabled: enabled }, update: { checkEnabled: enabled } }));
    res.json({ enabled: body.enabled });
  });

  router.get('/v1/organization/dlp-rules', async (req, res) => {
    res.json({ object: 'list', data: (await stored(await reader(req))).dlpRules });
  });

  /** Replaces the whole rule list (order is precedence, as in security scanning). */
  router.put('/v1/organization/dlp-rules', async (req, res) => {
    const organizationId = await writer(req);
    const body: unknown = req.body;
    if (!isRecord(body) || !Array.isArray(body.rules) || Object.keys(body).length !== 1) throw new ManagementError(400, 'body: send {"rules": [...]} (the whole list, in order) and nothing else.');
    if (body.rules.length > MAX_DLP_RULES) throw new ManagementError(400, `body.rules: at most ${MAX_DLP_RULES} rules.`);
    const errors: SettingsFieldError[] = [];
    const rules: SecurityRule[] = [];
    body.rules.forEach((input: unknown, i: number) => {
      const { id: _ignored, ...rest } = isRecord(input) ? input : { id: undefined };
      const checked = validateRule(isRecord(input) ? rest : input);
      if ('errors' in checked) errors.push(...checked.errors.map((e) => ({ field: `rules[${i}].${e.field}`, message: e.message })));
      else rules.push({ id: randomUUID(), ...checked.rule });
    });
    if (errors.length) throw invalid(errors);
    await invalidate.organizationChange(organizationId, (tx) =>
      tx.guardrailSettings.upsert({ where: { organizationId }, create: { organizationId, dlpRules: rules as unknown as Prisma.InputJsonValue }, update: { dlpRules: rules as unknown as Prisma.InputJsonValue } }),
    );
    res.json({ object: 'list', data: rules });
  });

  /**
   * Screens texts as block mode would, with the organization's (or a customer's) settings, from the
   * cached organization data. Management keys with view_guardrails or the organization's gateway keys.
   */
  router.post('/v1/prompt-injection/check', async (req, res) => {
    let organizationId: string;
    try {
      organizationId = (await managementCaller(req, auth, 'view_guardrails', { allowGatewayKeys: true })).organizationId;
    } catch (err) {
      if (err instanceof ManagementError && err.status === 403 && !err.message.includes('Customer')) organizationId = await writer(req);
      else throw err;
    }
    const org = await auth.caches.organizations.lookup(organizationId);
    if (!org) throw new ManagementError(401, 'The key belongs to no organization.');
    if (!org.guardrails.checkEnabled) throw new ManagementError(403, 'The prompt-injection check endpoint is not enabled for this organization; enable it with PUT /v1/organization/pi-check {"enabled": true}.', 'pi_check_not_enabled');
    const checked = validateCheckRequest(req.body);
    if ('errors' in checked) throw invalid(checked.errors);
    if (checked.customer !== null && (!isUuid(checked.customer) || !org.customers.has(checked.customer))) {
      throw new ManagementError(400, `body.customer: no customer ${checked.customer} in this organization.`);
    }
    res.json(checkTexts(checked.texts, org.guardrails.settingsFor(checked.customer)));
  });

  return router;
}
