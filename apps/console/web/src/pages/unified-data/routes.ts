import { createRoute } from '@tanstack/react-router';
import type { SignedInRoute } from '../../app';
import { EventsPage } from './events';
import { EventPage } from './events.$id';
import { FieldMappingsPage } from './field-mappings';
import { LinkedAccountsPage } from './linked-accounts';
import { LinkedAccountPage } from './linked-accounts.$id';

/** The linked account a page of synced data shows (`?linked_account_id=`), as the API takes it for a console session. */
const linkedAccountSearch = (search: Record<string, unknown>): { linked_account_id?: string } => ({
  linked_account_id: typeof search.linked_account_id === 'string' && search.linked_account_id !== '' ? search.linked_account_id : undefined,
});

/**
 * The unified data pages, each shaped like the API path it shows, as children of the signed-in
 * frame; app.tsx adds them to the route tree and the navigation lists `unifiedDataNavigation` under "Unified data".
 */
export function createUnifiedDataRoutes(parent: SignedInRoute) {
  return [
    createRoute({ getParentRoute: () => parent, path: '/linked-accounts', component: LinkedAccountsPage }),
    createRoute({ getParentRoute: () => parent, path: '/linked-accounts/$id', component: LinkedAccountPage }),
    createRoute({ getParentRoute: () => parent, path: '/events', component: EventsPage, validateSearch: linkedAccountSearch }),
    createRoute({ getParentRoute: () => parent, path: '/events/$id', component: EventPage, validateSearch: linkedAccountSearch }),
    createRoute({ getParentRoute: () => parent, path: '/field-mappings', component: FieldMappingsPage, validateSearch: linkedAccountSearch }),
  ] as const;
}

/** The navigation entries of this area, in order. */
export const unifiedDataNavigation: ReadonlyArray<{ to: string; label: string }> = [
  { to: '/linked-accounts', label: 'Linked accounts' },
  { to: '/events', label: 'Events' },
  { to: '/field-mappings', label: 'Field mappings' },
];
