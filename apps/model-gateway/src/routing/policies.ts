import type { PolicyDirectory, PolicyDraft, RoutingPolicy } from '@patchbay/model-routing';
import type { Prisma } from '../generated/prisma/client';

/** The columns a validated draft writes. */
export function policyColumns(draft: PolicyDraft): Omit<Prisma.RoutingPolicyUncheckedCreateInput, 'organizationId' | 'slug'> {
  return {
    name: draft.name,
    description: draft.description,
    scopeType: draft.scope.type,
    projectId: draft.scope.type === 'project' ? draft.scope.projectId : null,
    customerId: draft.scope.type === 'customer' ? draft.scope.customerId : null,
    strategy: draft.strategy,
    targets: draft.targets as unknown as Prisma.InputJsonValue,
    allowedVendors: draft.vendorRules.allow ?? [],
    allowedVendorsSet: draft.vendorRules.allow !== null,
    deniedVendors: draft.vendorRules.deny,
    allowedRegions: draft.vendorRules.regions ?? [],
    allowedRegionsSet: draft.vendorRules.regions !== null,
    zeroDataRetention: draft.vendorRules.zeroDataRetention,
    isDefault: draft.isDefault,
  };
}

const directories = new WeakMap<readonly RoutingPolicy[], PolicyDirectory>();

/**
 * Lookups over an organization's policies, built once per cached organization object (the cache
 * drops the object when a policy changes, on every replica), so resolution reads maps only.
 */
export function policyDirectory(policies: readonly RoutingPolicy[]): PolicyDirectory {
  const cached = directories.get(policies);
  if (cached) return cached;
  const byId = new Map<string, RoutingPolicy>();
  const bySlug = new Map<string, RoutingPolicy>();
  const customerDefaults = new Map<string, RoutingPolicy>();
  const projectDefaults = new Map<string, RoutingPolicy>();
  let organizationDefault: RoutingPolicy | undefined;
  for (const policy of policies) {
    byId.set(policy.id, policy);
    if (policy.slug !== null && policy.scope.type === 'organization') bySlug.set(policy.slug, policy);
    if (!policy.isDefault) continue;
    if (policy.scope.type === 'customer') customerDefaults.set(policy.scope.customerId, policy);
    else if (policy.scope.type === 'project') projectDefaults.set(policy.scope.projectId, policy);
    else organizationDefault = policy;
  }
  const directory: PolicyDirectory = {
    byId: (id) => byId.get(id),
    bySlug: (slug) => bySlug.get(slug),
    customerDefault: (id) => customerDefaults.get(id),
    projectDefault: (id) => projectDefaults.get(id),
    organizationDefault: () => organizationDefault,
  };
  directories.set(policies, directory);
  return directory;
}
