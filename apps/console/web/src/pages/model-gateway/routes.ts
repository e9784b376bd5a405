import { createRoute } from '@tanstack/react-router';
import type { SignedInRoute } from '../../app';
import { RequestTesterPage } from './request-tester';
import { RoutingPoliciesPage } from './routing-policies';
import { RoutingPolicyPage } from './routing-policies.$id';
import { UsagePage, validateUsageSearch } from './usage';
import { BatchesPage, validateBatchesSearch } from './batches';
import { BatchPage } from './batches.$id';
import { BlocklistPage } from './blocklist';
import { CustomerKeysPage } from './customers.$customerId.api-keys';
import { CustomersPage } from './customers';
import { GuardrailsPage } from './guardrails';
import { GatewayKeysPage } from './keys';
import { ModelsPage } from './models';
import { ProjectsPage } from './projects';
import { TagsPage } from './tags';
import { VendorKeysPage } from './vendor-keys';

/**
 * The model gateway pages, each shaped like the API path it shows, as children of the signed-in
 * frame; app.tsx adds them to the route tree and the navigation lists `modelGatewayNavigation` under "Model gateway".
 */
export function createModelGatewayRoutes(parent: SignedInRoute) {
  return [
    createRoute({ getParentRoute: () => parent, path: '/usage', component: UsagePage, validateSearch: validateUsageSearch }),
    createRoute({ getParentRoute: () => parent, path: '/routing-policies', component: RoutingPoliciesPage }),
    createRoute({ getParentRoute: () => parent, path: '/routing-policies/$id', component: RoutingPolicyPage }),
    createRoute({ getParentRoute: () => parent, path: '/request-tester', component: RequestTesterPage }),
    createRoute({ getParentRoute: () => parent, path: '/keys', component: GatewayKeysPage }),
    createRoute({ getParentRoute: () => parent, path: '/projects', component: ProjectsPage }),
    createRoute({ getParentRoute: () => parent, path: '/customers', component: CustomersPage }),
    createRoute({ getParentRoute: () => parent, path: '/customers/$customerId/api-keys', component: CustomerKeysPage }),
    createRoute({ getParentRoute: () => parent, path: '/vendor-keys', component: VendorKeysPage }),
    createRoute({ getParentRoute: () => parent, path: '/guardrails', component: GuardrailsPage }),
    createRoute({ getParentRoute: () => parent, path: '/tags', component: TagsPage }),
    createRoute({ getParentRoute: () => parent, path: '/blocklist', component: BlocklistPage }),
    createRoute({ getParentRoute: () => parent, path: '/models', component: ModelsPage }),
    createRoute({ getParentRoute: () => parent, path: '/batches', component: BatchesPage, validateSearch: validateBatchesSearch }),
    createRoute({ getParentRoute: () => parent, path: '/batches/$id', component: BatchPage }),
  ] as const;
}

/** The navigation entries of this area, in order. */
export const modelGatewayNavigation: ReadonlyArray<{ to: string; label: string }> = [
  { to: '/usage', label: 'Usage' },
  { to: '/routing-policies', label: 'Routing policies' },
  { to: '/request-tester', label: 'Request tester' },
  { to: '/keys', label: 'Gateway keys' },
  { to: '/projects', label: 'Projects' },
  { to: '/customers', label: 'Customers' },
  { to: '/vendor-keys', label: 'Vendor keys' },
  { to: '/guardrails', label: 'Guardrails' },
  { to: '/tags', label: 'Tags' },
  { to: '/blocklist', label: 'Blocklist' },
  { to: '/models', label: 'Models' },
  { to: '/batches', label: 'Batches' },
];
