import type { PolicyTarget, RoutingPolicy, RoutingStrategy } from '@patchbay/model-routing';
import type { RoutingPolicy as RoutingPolicyRow } from '../generated/prisma/client';

// The organization's cached data (principals.ts) reads its policies through this, so it sits with the keys
// rather than in routing/, which is above them.
/** A stored policy in @patchbay/model-routing's shape. */
export function toRoutingPolicy(row: RoutingPolicyRow): RoutingPolicy {
  return {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    description: row.description,
    slug: row.slug,
    scope: row.scopeType === 'project' ? { type: 'project', projectId: row.projectId! } : row.scopeType === 'customer' ? { type: 'customer', customerId: row.customerId! } : { type: 'organization' },
    strategy: row.strategy as RoutingStrategy,
    targets: row.targets as unknown as PolicyTarget[],
    vendorRules: {
      allow: row.allowedVendorsSet ? row.allowedVendors : null,
      deny: row.deniedVendors,
      zeroDataRetention: row.zeroDataRetention,
      regions: row.allowedRegionsSet ? row.allowedRegions : null,
    },
    isDefault: row.isDefault,
  };
}
