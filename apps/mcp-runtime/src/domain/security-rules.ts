import { assertToolPackInScope, isUnrestricted, type KeyPrincipal } from '@patchbay/auth';
import { ConflictError, NotFoundError, PermissionDeniedError, ValidationError, type FieldError } from '@patchbay/errors';
import type { PageParams } from '@patchbay/pagination';
import { emitAuditEvent } from '@patchbay/queues';
import { effectiveRules, validateRule, type RuleAction, type RuleOverride, type SecurityRule } from '@patchbay/security-scanner';
import { isUuid } from '@patchbay/service-kit';
import { SERVICE_NAME } from '../config';
import type { Db, Tx } from '../db';
import type { Prisma, SecurityRule as RuleRow, SecurityRuleOverride as OverrideRow } from '../generated/prisma/client';
import { draftRule, samplesOf, testRules, type RuleTestResult, type RuleTestSamples } from './security-rule-tester';

/** Body of POST /api/v1/security-rules/test: samples, and optionally a pack's view of the rules and a draft rule. */
export interface RuleTestBody extends RuleTestSamples {
  /** Run the rules as this tool pack runs them (its overrides applied); default: the organization's rules. */
  tool_pack_id?: string | null;
  /** An unsaved rule (the fields of a create) tried with the others, answered as rule_id `draft`. */
  rule?: Record<string, unknown> | null;
}

/** Rules per organization and environment: each enabled rule is one more pass over every tool call's traffic. */
export const MAX_RULES_PER_ENVIRONMENT = 100;

/** A security rule as the API shows it. */
export interface SecurityRuleRecord {
  id: string;
  /** Shown in block errors. */
  name: string;
  /** EMAIL_ADDRESS, PHONE_NUMBER, CREDIT_CARD, US_SSN, IBAN, IP_ADDRESS, SECRET or CUSTOM. */
  detector: string;
  /** CUSTOM only: the regular expression (JavaScript syntax). */
  pattern: string | null;
  /** CUSTOM only: regular expression flags among i, m, s, u. */
  flags: string | null;
  /** CUSTOM only: the marker's label, [REDACTED:<label>]. */
  label: string | null;
  /** inbound (arguments sent to tools), outbound (results returned to the model) or both. */
  direction: 'inbound' | 'outbound' | 'both';
  /** allow (detection recorded), redact (replaced by [REDACTED:<KIND>]) or block (the call fails). */
  action: RuleAction;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

/** A tool pack's change to one rule; a null field keeps the organization's value. */
export interface RuleOverrideRecord {
  action: RuleAction | null;
  enabled: boolean | null;
}

/** A rule as one tool pack runs it: action and enabled after the pack's override. */
export interface PackSecurityRuleRecord extends SecurityRuleRecord {
  /** The pack's override of this rule, or null when the pack follows the organization. */
  override: RuleOverrideRecord | null;
}

export interface RuleOverrideInput {
  action?: RuleAction | null;
  enabled?: boolean | null;
}

const RULE_ACTIONS: readonly RuleAction[] = ['allow', 'redact', 'block'];

/** The change events rule writes announce to every runtime replica (see RuleSetCache). */
export type RulesChanged = (organizationId: string, environment: KeyPrincipal['environment']) => void;

export function toEngineRule(row: RuleRow): SecurityRule {
  return {
    id: row.id,
    name: row.name,
    detector: row.detector,
    ...(row.pattern !== null ? { pattern: row.pattern } : {}),
    ...(row.flags !== null ? { flags: row.flags } : {}),
    ...(row.label !== null ? { label: row.label } : {}),
    direction: row.direction,
    action: row.action,
    enabled: row.enabled,
  };
}

export function toEngineOverride(row: OverrideRow): RuleOverride {
  return { rule_id: row.ruleId, ...(row.action !== null ? { action: row.action } : {}), ...(row.enabled !== null ? { enabled: row.enabled } : {}) };
}

function recordOf(row: RuleRow): SecurityRuleRecord {
  return {
    id: row.id,
    name: row.name,
    detector: row.detector,
    pattern: row.pattern,
    flags: row.flags,
    label: row.label,
    direction: row.direction,
    action: row.action,
    enabled: row.enabled,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function overrideOf(row: OverrideRow | undefined): RuleOverrideRecord | null {
  return row ? { action: row.action, enabled: row.enabled } : null;
}

/** The rule a body describes, checked by the gateway's validateRule; errors name `body.<field>`. */
function checkedRule(input: unknown): Omit<SecurityRule, 'id'> {
  const validation = validateRule(input);
  if ('errors' in validation) throw new ValidationError(validation.errors.map((e) => ({ field: e.field === 'rule' ? 'body' : `body.${e.field}`, message: e.message })));
  return validation.rule;
}

function ruleColumns(rule: Omit<SecurityRule, 'id'>): Omit<Prisma.SecurityRuleUncheckedCreateInput, 'organizationId' | 'environment'> {
  return {
    name: rule.name,
    detector: rule.detector,
    pattern: rule.pattern ?? null,
    flags: rule.flags ?? null,
    label: rule.label ?? null,
    direction: rule.direction,
    action: rule.action,
    enabled: rule.enabled,
  };
}

/** Rules apply to every tool pack, so only a key without tool-pack or user restrictions may change them. */
function assertMayWriteOrganizationRules(principal: KeyPrincipal): void {
  if (!isUnrestricted(principal)) {
    throw new PermissionDeniedError('Security rules apply to every tool pack of the organization: change them with a key that has no tool-pack or registered-user restrictions. A restricted key may set overrides for its own tool packs.');
  }
}

/** Serializes rule writes of one organization and environment, so the rule cap holds under concurrency. */
async function lockRules(tx: Tx, principal: KeyPrincipal): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`security-rules:${principal.organizationId}:${principal.environment}`}, 0))`;
}

export interface SecurityRuleServiceDeps {
  db: Db;
  /** Answers whether a tool pack exists in the key's organization and environment (connector-registry). */
  toolPackExists: (principal: KeyPrincipal, toolPackId: string) => Promise<boolean>;
  /** Called after a change commits: replicas drop their compiled rules. */
  rulesChanged: RulesChanged;
}

/**
 * Security scanning's rules (organization level, per environment) and per-tool-pack overrides.
 * Every write is audit-logged in its transaction and announced to the runtime replicas after commit.
 */
export class SecurityRuleService {
  constructor(private readonly deps: SecurityRuleServiceDeps) {}

  private scope(principal: KeyPrincipal) {
    return { organizationId: principal.organizationId, environment: principal.environment };
  }

  async list(principal: KeyPrincipal, params: PageParams): Promise<{ count: number; results: SecurityRuleRecord[] }> {
    const where = this.scope(principal);
    const [count, rows] = await Promise.all([
      this.deps.db.securityRule.count({ where }),
      this.deps.db.securityRule.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: (params.page - 1) * params.pageSize, take: params.pageSize }),
    ]);
    return { count, results: rows.map(recordOf) };
  }

  private async find(db: Db | Tx, principal: KeyPrincipal, id: string): Promise<RuleRow> {
    const row = isUuid(id) ? await db.securityRule.findFirst({ where: { id, ...this.scope(principal) } }) : null;
    if (!row) throw new NotFoundError('No security rule with this id in the organization and environment of the key.');
    return row;
  }

  async get(principal: KeyPrincipal, id: string): Promise<SecurityRuleRecord> {
    return recordOf(await this.find(this.deps.db, principal, id));
  }

  async create(principal: KeyPrincipal, body: unknown): Promise<SecurityRuleRecord> {
    assertMayWriteOrganizationRules(principal);
    const rule = checkedRule(body);
    const row = await this.deps.db.$transaction(async (tx) => {
      await lockRules(tx, principal);
      const count = await tx.securityRule.count({ where: this.scope(principal) });
      if (count >= MAX_RULES_PER_ENVIRONMENT) {
        throw new ConflictError(`This environment already has ${MAX_RULES_PER_ENVIRONMENT} security rules, the most it may have. Delete or combine rules (a custom pattern can hold alternatives) before adding one.`);
      }
      const created = await tx.securityRule.create({ data: { ...this.scope(principal), ...ruleColumns(rule) } });
      await emitAuditEvent(tx, SERVICE_NAME, principal, { eventType: 'security_rule.created', resourceType: 'security_rule', resourceId: created.id, details: auditDetails(created) });
      return created;
    });
    this.deps.rulesChanged(principal.organizationId, principal.environment);
    return recordOf(row);
  }

  /** Merges the body over the stored rule (null clears pattern, flags or label), then validates the result. */
  async update(principal: KeyPrincipal, id: string, body: Record<string, unknown>): Promise<SecurityRuleRecord> {
    assertMayWriteOrganizationRules(principal);
    const row = await this.deps.db.$transaction(async (tx) => {
      await lockRules(tx, principal);
      const stored = await this.find(tx, principal, id);
      const merged: Record<string, unknown> = { ...toEngineRule(stored) };
      delete merged.id;
      for (const [field, value] of Object.entries(body)) {
        if (value === null && (field === 'pattern' || field === 'flags' || field === 'label')) delete merged[field];
        else merged[field] = value;
      }
      const rule = checkedRule(merged);
      const updated = await tx.securityRule.update({ where: { id: stored.id }, data: ruleColumns(rule) });
      await emitAuditEvent(tx, SERVICE_NAME, principal, {
        eventType: 'security_rule.updated',
        resourceType: 'security_rule',
        resourceId: updated.id,
        details: { ...auditDetails(updated), changed_fields: Object.keys(body).sort() },
      });
      return updated;
    });
    this.deps.rulesChanged(principal.organizationId, principal.environment);
    return recordOf(row);
  }

  /** Deletes the rule and every tool pack's override of it. */
  async delete(principal: KeyPrincipal, id: string): Promise<void> {
    assertMayWriteOrganizationRules(principal);
    await this.deps.db.$transaction(async (tx) => {
      const stored = await this.find(tx, principal, id);
      await tx.securityRule.delete({ where: { id: stored.id } });
      await emitAuditEvent(tx, SERVICE_NAME, principal, { eventType: 'security_rule.deleted', resourceType: 'security_rule', resourceId: stored.id, details: auditDetails(stored) });
    });
    this.deps.rulesChanged(principal.organizationId, principal.environment);
  }

  /** A tool pack in the key's scope that exists in its organization and environment; otherwise the spec's 404. */
  private async assertPack(principal: KeyPrincipal, toolPackId: string): Promise<void> {
    assertToolPackInScope(principal, toolPackId);
    if (!isUuid(toolPackId) || !(await this.deps.toolPackExists(principal, toolPackId))) {
      throw new NotFoundError('No tool pack with this id in the organization and environment of the key.');
    }
  }

  /** Every organization rule as this tool pack runs it, in the organization's order (not paginated: at most 100). */
  async listForPack(principal: KeyPrincipal, toolPackId: string): Promise<PackSecurityRuleRecord[]> {
    await this.assertPack(principal, toolPackId);
    const rows = await this.deps.db.securityRule.findMany({
      where: this.scope(principal),
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      include: { overrides: { where: { toolPackId } } },
    });
    return packRecords(rows);
  }

  /**
   * Runs the environment's rules (as `toolPackId` runs them, when given) and an optional draft over sample
   * input: what each would redact, record or block. Reads only; nothing is stored or recorded.
   */
  async test(principal: KeyPrincipal, body: RuleTestBody): Promise<RuleTestResult> {
    const samples = samplesOf(body);
    const draft = body.rule === undefined || body.rule === null ? null : draftRule(body.rule);
    let rules: SecurityRule[];
    if (body.tool_pack_id !== undefined && body.tool_pack_id !== null) {
      rules = (await this.listForPack(principal, body.tool_pack_id)).map((r) => ({ ...toEngineRecord(r), action: r.action, enabled: r.enabled }));
    } else {
      rules = (await this.deps.db.securityRule.findMany({ where: this.scope(principal), orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(toEngineRule);
    }
    return testRules(draft ? [...rules, draft] : rules, samples);
  }

  /** Sets (replaces) the pack's override of a rule: `{action?, enabled?}`, null or omitted keeps the organization's value. */
  async putOverride(principal: KeyPrincipal, toolPackId: string, ruleId: string, body: RuleOverrideInput): Promise<PackSecurityRuleRecord> {
    const errors: FieldError[] = [];
    if (body.action != null && !RULE_ACTIONS.includes(body.action)) errors.push({ field: 'body.action', message: `must be one of ${RULE_ACTIONS.join(', ')}, or null to keep the organization's action` });
    if (body.enabled != null && typeof body.enabled !== 'boolean') errors.push({ field: 'body.enabled', message: "must be true or false, or null to keep the organization's setting" });
    if (body.action == null && body.enabled == null) errors.push({ field: 'body', message: 'set action, enabled or both; to follow the organization rule again, DELETE the override' });
    if (errors.length > 0) throw new ValidationError(errors);
    await this.assertPack(principal, toolPackId);
    const row = await this.deps.db.$transaction(async (tx) => {
      const rule = await this.find(tx, principal, ruleId);
      const values = { action: body.action ?? null, enabled: body.enabled ?? null };
      const override = await tx.securityRuleOverride.upsert({
        where: { ruleId_toolPackId: { ruleId: rule.id, toolPackId } },
        create: { ruleId: rule.id, toolPackId, ...this.scope(principal), ...values },
        update: values,
      });
      await emitAuditEvent(tx, SERVICE_NAME, principal, {
        eventType: 'security_rule_override.set',
        resourceType: 'security_rule',
        resourceId: rule.id,
        details: { tool_pack_id: toolPackId, rule_name: rule.name, ...values },
      });
      return { ...rule, overrides: [override] };
    });
    this.deps.rulesChanged(principal.organizationId, principal.environment);
    const [record] = packRecords([row]);
    return record as PackSecurityRuleRecord;
  }

  async deleteOverride(principal: KeyPrincipal, toolPackId: string, ruleId: string): Promise<void> {
    await this.assertPack(principal, toolPackId);
    await this.deps.db.$transaction(async (tx) => {
      const rule = await this.find(tx, principal, ruleId);
      const { count } = await tx.securityRuleOverride.deleteMany({ where: { ruleId: rule.id, toolPackId } });
      if (count === 0) throw new NotFoundError('This tool pack has no override of this rule; it already follows the organization rule.');
      await emitAuditEvent(tx, SERVICE_NAME, principal, {
        eventType: 'security_rule_override.deleted',
        resourceType: 'security_rule',
        resourceId: rule.id,
        details: { tool_pack_id: toolPackId, rule_name: rule.name },
      });
    });
    this.deps.rulesChanged(principal.organizationId, principal.environment);
  }
}

/** What an audit entry says about a rule: enough to follow changes, and a custom pattern is configuration, not a secret. */
function auditDetails(row: RuleRow): Record<string, unknown> {
  return { name: row.name, detector: row.detector, label: row.label, direction: row.direction, action: row.action, enabled: row.enabled };
}

/** A rule record back in the scanner's shape. */
function toEngineRecord(r: SecurityRuleRecord): SecurityRule {
  return {
    id: r.id,
    name: r.name,
    detector: r.detector as SecurityRule['detector'],
    ...(r.pattern !== null ? { pattern: r.pattern } : {}),
    ...(r.flags !== null ? { flags: r.flags } : {}),
    ...(r.label !== null ? { label: r.label } : {}),
    direction: r.direction,
    action: r.action,
    enabled: r.enabled,
  };
}

function packRecords(rows: Array<RuleRow & { overrides: OverrideRow[] }>): PackSecurityRuleRecord[] {
  const effective = effectiveRules(rows.map(toEngineRule), rows.flatMap((r) => r.overrides.map(toEngineOverride)));
  return rows.map((row, i) => {
    const rule = effective[i] as SecurityRule;
    return { ...recordOf(row), action: rule.action, enabled: rule.enabled, override: overrideOf(row.overrides[0]) };
  });
}
