import { effectiveRules } from './effective-rules';
import type { SecurityRule } from './types';

const org: SecurityRule[] = [
  { id: 'r1', name: 'Emails', detector: 'EMAIL_ADDRESS', direction: 'outbound', action: 'redact', enabled: true },
  { id: 'r2', name: 'Keys', detector: 'SECRET', direction: 'both', action: 'block', enabled: true },
  { id: 'r3', name: 'IPs', detector: 'IP_ADDRESS', direction: 'outbound', action: 'redact', enabled: false },
];

describe('effectiveRules', () => {
  it('without overrides is the organization rules', () => {
    expect(effectiveRules(org, [])).toEqual(org);
  });

  it('applies a pack override of the action, the enabled flag, or both', () => {
    const rules = effectiveRules(org, [
      { rule_id: 'r1', action: 'allow' },
      { rule_id: 'r2', enabled: false },
      { rule_id: 'r3', enabled: true, action: 'block' },
    ]);
    expect(rules.map((r) => [r.id, r.action, r.enabled])).toEqual([
      ['r1', 'allow', true],
      ['r2', 'block', false],
      ['r3', 'block', true],
    ]);
  });

  it('keeps the organization order and every other field', () => {
    const [first] = effectiveRules(org, [{ rule_id: 'r1', action: 'block' }]);
    expect(first).toEqual({ ...org[0], action: 'block' });
  });

  it('ignores overrides of rules the organization no longer has', () => {
    expect(effectiveRules(org, [{ rule_id: 'gone', action: 'allow' }])).toEqual(org);
  });

  it('lets later overrides of the same rule win field by field', () => {
    const [first] = effectiveRules(org, [{ rule_id: 'r1', action: 'allow', enabled: false }, { rule_id: 'r1', action: 'block' }]);
    expect(first).toMatchObject({ action: 'block', enabled: false });
  });

  it('modifies neither input', () => {
    const overrides = [{ rule_id: 'r1', action: 'allow' as const }];
    const before = JSON.stringify([org, overrides]);
    const rules = effectiveRules(org, overrides);
    expect(JSON.stringify([org, overrides])).toBe(before);
    expect(rules[0]).not.toBe(org[0]);
  });
});
