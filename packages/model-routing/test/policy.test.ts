import { ValidationError } from '@patchbay/errors';
import { policyView, slugFromName, uniqueSlug, validatePolicyInput, type RoutingPolicy } from '../src';
import { catalog, policy } from './support/catalog';

function fieldErrors(body: unknown, existing?: RoutingPolicy): Array<{ field: string; message: string }> {
  try {
    validatePolicyInput(body, catalog, existing);
  } catch (err) {
    if (err instanceof ValidationError) return err.fieldErrors ?? [];
    throw err;
  }
  throw new Error('expected a ValidationError');
}

const PROJECT = '5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

describe('routing policy validation', () => {
  test('a priority policy with its targets is accepted as sent', () => {
    const draft = validatePolicyInput({ name: ' Support agent ', strategy: 'priority', targets: [{ model: 'anthropic/claude-sonnet-4', vendors: ['anthropic'] }, { model: 'openai/gpt-4o' }] }, catalog);
    expect(draft).toMatchObject({ name: 'Support agent', strategy: 'priority', scope: { type: 'organization' }, isDefault: false, slug: null });
    expect(draft.targets).toEqual([
      { model: 'anthropic/claude-sonnet-4', vendors: ['anthropic'], weight: null },
      { model: 'openai/gpt-4o', vendors: null, weight: null },
    ]);
  });

  test('every field at fault is named with what to send instead', () => {
    const errors = fieldErrors({ strategy: 'fastest', targets: [{ model: 'openai/gpt-9' }, { model: 'openai/gpt-4o', vendors: ['anthropic'] }, { model: 'openai/text-embedding-3-small' }], colour: 'blue' });
    const fields = errors.map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['colour', 'name', 'strategy', 'targets[0].model', 'targets[1].vendors', 'targets[2].model']));
    expect(errors.find((e) => e.field === 'targets[1].vendors')!.message).toContain('does not serve openai/gpt-4o');
  });

  test('weighted needs a positive integer weight on every target; other strategies take none', () => {
    expect(fieldErrors({ name: 'w', strategy: 'weighted', targets: [{ model: 'openai/gpt-4o', weight: 2 }, { model: 'openai/gpt-4o-mini' }] }).map((e) => e.field)).toEqual(['targets[1].weight']);
    expect(fieldErrors({ name: 'p', strategy: 'priority', targets: [{ model: 'openai/gpt-4o', weight: 2 }] }).map((e) => e.field)).toEqual(['targets[0].weight']);
    expect(fieldErrors({ name: 'w', strategy: 'weighted', targets: [{ model: 'openai/gpt-4o', weight: 0.5 }] }).map((e) => e.field)).toEqual(['targets[0].weight']);
  });

  test('a project policy has no alias; a policy is scoped to a project or a customer, not both', () => {
    expect(fieldErrors({ name: 'p', strategy: 'priority', targets: [{ model: 'openai/gpt-4o' }], project_id: PROJECT, slug: 'p' }).map((e) => e.field)).toEqual(['slug']);
    expect(fieldErrors({ name: 'p', strategy: 'priority', targets: [{ model: 'openai/gpt-4o' }], project_id: PROJECT, customer_id: 'c' }).map((e) => e.field)).toEqual(['customer_id']);
    expect(validatePolicyInput({ name: 'p', strategy: 'lowest_cost', targets: [{ model: 'openai/gpt-4o' }], project_id: PROJECT }, catalog).scope).toEqual({ type: 'project', projectId: PROJECT });
  });

  test('vendor restrictions: an empty allow list and a vendor both allowed and denied are refused', () => {
    expect(fieldErrors({ name: 'v', strategy: 'priority', targets: [{ model: 'openai/gpt-4o' }], allowed_vendors: [] }).map((e) => e.field)).toEqual(['allowed_vendors']);
    expect(fieldErrors({ name: 'v', strategy: 'priority', targets: [{ model: 'openai/gpt-4o' }], allowed_vendors: ['openai'], denied_vendors: ['openai'] }).map((e) => e.field)).toEqual(['denied_vendors']);
  });

  test('an update keeps omitted fields and cannot change the scope', () => {
    const existing = policy({ name: 'Old', targets: [{ model: 'openai/gpt-4o', vendors: null, weight: null }], slug: 'old' });
    const draft = validatePolicyInput({ description: 'new text', zero_data_retention: true }, catalog, existing);
    expect(draft).toMatchObject({ name: 'Old', description: 'new text', targets: existing.targets, vendorRules: { zeroDataRetention: true }, slug: 'old' });
    expect(fieldErrors({ project_id: PROJECT }, existing).map((e) => e.field)).toEqual(['project_id']);
    expect(fieldErrors({ strategy: 'weighted' }, existing).map((e) => e.field)).toEqual(['targets[0].weight']);
  });

  test('aliases are minted from names and collisions are suffixed', () => {
    expect(slugFromName('Support agent')).toBe('support-agent');
    expect(slugFromName('  Café Crème!! ')).toBe('cafe-creme');
    expect(uniqueSlug('fast', new Set(['fast', 'fast-2']))).toBe('fast-3');
    expect(policyView(policy({ slug: 'fast', targets: [] })).model).toBe('@alias/fast');
    expect(policyView(policy({ slug: null, targets: [] })).model).toBeNull();
  });
});
