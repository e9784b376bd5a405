import { createRoute } from '@tanstack/react-router';
import type { SignedInRoute } from '../../app';
import './tool-connectors.css';
import { ApplicationCredentialsPage } from './application-credentials';
import { ConnectionsPage, validateConnectionsSearch } from './connections';
import { ConnectorsPage } from './connectors';
import { ConnectorPage } from './connectors.$slug';
import { RegisteredUsersPage } from './registered-users';
import { RegisteredUserPage } from './registered-users.$id';
import { SecurityRulesPage } from './security-rules';
import { ToolPacksPage } from './tool-packs';
import { ToolPackEditorPage } from './tool-packs.$id';
import { CreditsPage } from './credits';
import { PlaygroundPage } from './playground';
import { ToolCallRecordsPage, validateToolCallRecordsSearch } from './tool-call-records';
import { ToolCallRecordPage } from './tool-call-records.$id';

/**
 * The tool connectors pages, each shaped like the API path it shows, as children of the signed-in
 * frame; app.tsx adds them to the route tree and the navigation lists `toolConnectorNavigation` under "Tool connectors".
 */
export function createToolConnectorRoutes(parent: SignedInRoute) {
  return [
    createRoute({ getParentRoute: () => parent, path: '/connectors', component: ConnectorsPage }),
    createRoute({ getParentRoute: () => parent, path: '/connectors/$slug', component: ConnectorPage }),
    createRoute({ getParentRoute: () => parent, path: '/application-credentials', component: ApplicationCredentialsPage }),
    createRoute({ getParentRoute: () => parent, path: '/tool-packs', component: ToolPacksPage }),
    // /tool-packs/new is the same editor with nothing loaded.
    createRoute({ getParentRoute: () => parent, path: '/tool-packs/$id', component: ToolPackEditorPage }),
    createRoute({ getParentRoute: () => parent, path: '/registered-users', component: RegisteredUsersPage }),
    createRoute({ getParentRoute: () => parent, path: '/registered-users/$id', component: RegisteredUserPage }),
    createRoute({ getParentRoute: () => parent, path: '/connections', component: ConnectionsPage, validateSearch: validateConnectionsSearch }),
    createRoute({ getParentRoute: () => parent, path: '/security-rules', component: SecurityRulesPage }),
    createRoute({ getParentRoute: () => parent, path: '/playground', component: PlaygroundPage }),
    createRoute({ getParentRoute: () => parent, path: '/tool-call-records', component: ToolCallRecordsPage, validateSearch: validateToolCallRecordsSearch }),
    createRoute({ getParentRoute: () => parent, path: '/tool-call-records/$id', component: ToolCallRecordPage }),
    // GET /api/v1/usage and /api/v1/usage/daily (credits); /usage is the model gateway's spend.
    createRoute({ getParentRoute: () => parent, path: '/credits', component: CreditsPage }),
  ] as const;
}

/** The navigation entries of this area, in order. */
export const toolConnectorNavigation: ReadonlyArray<{ to: string; label: string }> = [
  { to: '/connectors', label: 'Connectors' },
  { to: '/application-credentials', label: 'Application credentials' },
  { to: '/tool-packs', label: 'Tool packs' },
  { to: '/registered-users', label: 'Registered users' },
  { to: '/connections', label: 'Connections' },
  { to: '/security-rules', label: 'Security rules' },
  { to: '/playground', label: 'Playground' },
  { to: '/tool-call-records', label: 'Tool-call records' },
  { to: '/credits', label: 'Credits' },
];
