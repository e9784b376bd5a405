import type { RuleOverride, SecurityRule } from './types';

/**
 * The rules a tool pack runs: the organization's rules, in their order, each with the pack's override of
 * its action and enabled flag applied. Overrides naming no organization rule are ignored (the rule was
 * deleted); when one rule has several overrides, later ones win field by field. Disabled rules stay in the list, so the
 * API can show them; the Scanner skips them. Neither input is modified.
 */
export function effectiveRules(orgRules: SecurityRule[], packOverrides: RuleOverride[]): SecurityRule[] {
  if (packOverrides.length === 0) return orgRules.map((rule) => ({ ...rule }));
  const byRule = new Map<string, RuleOverride>();
  for (const override of packOverrides) {
    const merged = { ...byRule.get(override.rule_id) };
    if (override.action !== undefined) merged.action = override.action;
    if (override.enabled !== undefined) merged.enabled = override.enabled;
    byRule.set(override.rule_id, { rule_id: override.rule_id, ...merged });
  }
  return orgRules.map((rule) => {
    const override = byRule.get(rule.id);
    if (!override) return { ...rule };
    return { ...rule, action: override.action ?? rule.action, enabled: override.enabled ?? rule.enabled };
  });
}
