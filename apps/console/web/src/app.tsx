import { QueryClient, QueryClientProvider, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, RouterProvider, createRootRoute, createRoute, createRouter, useNavigate, useRouter } from '@tanstack/react-router';
import { useCallback, useEffect } from 'react';
import { ApiError, onSessionExpired } from './api/client';
import { fetchSession, sessionQueryKey, signOut } from './api/session';
import { consoleBasePath } from './config';
import { AppShell } from './components/app-shell';
import { AccessKeysPage } from './pages/access-keys';
import { AuditLogPage } from './pages/audit-log';
import { AccountPage } from './pages/account';
import { HomePage } from './pages/home';
import { ManagementKeysPage } from './pages/management-keys';
import { MembersPage } from './pages/members';
import { OrganizationPage } from './pages/organization';
import { RolesPage } from './pages/roles';
import { AcceptInvitationPage } from './pages/invitation';
import { SignInPage } from './pages/sign-in';
import { SsoPage } from './pages/sso';
import { createModelGatewayRoutes } from './pages/model-gateway/routes';
import { createToolConnectorRoutes } from './pages/tool-connectors/routes';
import { createUnifiedDataRoutes } from './pages/unified-data/routes';

/** Sends the member to /sign-in, remembering the page they were on, whenever an API call answers 401. */
/** Pages for people without a session: never sent to sign-in, never remembered as the page to return to. */
const PUBLIC_PAGES = ['/sign-in', '/invitation', '/setup'];

/**
 * The one way to sign-in when the session is missing or has ended: reads where the member is at that
 * moment (not a value captured by a render), and does nothing on a public page, so it can never loop.
 */
function useSendToSignIn(): () => void {
  const navigate = useNavigate();
  const router = useRouter();
  return useCallback(() => {
    const location = router.state.location;
    if (PUBLIC_PAGES.includes(location.pathname)) return;
    void navigate({ to: '/sign-in', search: { next: location.href }, replace: true });
  }, [navigate, router]);
}

function SessionExpiryWatcher() {
  const queryClient = useQueryClient();
  const sendToSignIn = useSendToSignIn();
  useEffect(
    () =>
      onSessionExpired(() => {
        queryClient.clear();
        sendToSignIn();
      }),
    [queryClient, sendToSignIn],
  );
  return null;
}

/** The pages behind sign-in: the session is loaded once and shared through the query cache. */
function SignedInLayout() {
  const session = useQuery({ queryKey: sessionQueryKey, queryFn: fetchSession, retry: false, staleTime: 60_000 });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const sendToSignIn = useSendToSignIn();
  const unauthenticated = session.error instanceof ApiError && session.error.status === 401;
  useEffect(() => {
    if (unauthenticated) sendToSignIn();
  }, [unauthenticated, sendToSignIn]);
  if (session.isPending || unauthenticated) return <p role="status">Loading…</p>;
  if (session.error) return <p role="alert">The console could not load your session: {session.error.message}</p>;
  return (
    <AppShell
      session={session.data}
      onSignOut={async () => {
        await signOut().catch(() => undefined);
        queryClient.clear();
        await navigate({ to: '/sign-in', search: { next: undefined } });
      }}
    >
      <Outlet />
    </AppShell>
  );
}

const rootRoute = createRootRoute({
  component: () => (
    <>
      <SessionExpiryWatcher />
      <Outlet />
    </>
  ),
  notFoundComponent: () => (
    <main>
      <h1>Page not found</h1>
      <Link to="/">Back to the console</Link>
    </main>
  ),
});
const signInRoute = createRoute({ getParentRoute: () => rootRoute, path: '/sign-in', component: SignInPage, validateSearch: (search: Record<string, unknown>): { next?: string; step?: string; sso_error?: string } => ({
    next: typeof search.next === 'string' ? search.next : undefined,
    // Single sign-on comes back with the two-factor step to show, or the reason it failed.
    step: search.step === 'two-factor' || search.step === 'two-factor-enrol' ? (search.step as string) : undefined,
    sso_error: typeof search.sso_error === 'string' ? search.sso_error : undefined,
  }) });
const invitationRoute = createRoute({ getParentRoute: () => rootRoute, path: '/invitation', component: () => <AcceptInvitationPage ownerSetup={false} /> });
const ownerSetupRoute = createRoute({ getParentRoute: () => rootRoute, path: '/setup', component: () => <AcceptInvitationPage ownerSetup /> });
const signedInRoute = createRoute({ getParentRoute: () => rootRoute, id: 'signed-in', component: SignedInLayout });
/** The parent of every signed-in page (each area's routes.ts takes it). */
export type SignedInRoute = typeof signedInRoute;
const homeRoute = createRoute({ getParentRoute: () => signedInRoute, path: '/', component: HomePage });
const accountRoute = createRoute({ getParentRoute: () => signedInRoute, path: '/account', component: AccountPage });
const ssoRoute = createRoute({ getParentRoute: () => signedInRoute, path: '/sso', component: SsoPage });
// Pages shaped like the APIs they show (GET /api/v1/members → /members, ...).
const consolePages = [
  createRoute({ getParentRoute: () => signedInRoute, path: '/members', component: MembersPage }),
  createRoute({ getParentRoute: () => signedInRoute, path: '/roles', component: RolesPage }),
  createRoute({ getParentRoute: () => signedInRoute, path: '/organization', component: OrganizationPage }),
  createRoute({ getParentRoute: () => signedInRoute, path: '/access-keys', component: AccessKeysPage }),
  createRoute({ getParentRoute: () => signedInRoute, path: '/management-keys', component: ManagementKeysPage }),
  createRoute({ getParentRoute: () => signedInRoute, path: '/audit-log', component: AuditLogPage }),
] as const;

const routeTree = rootRoute.addChildren([
  signInRoute,
  invitationRoute,
  ownerSetupRoute,
  signedInRoute.addChildren([
    homeRoute,
    accountRoute,
    ssoRoute,
    ...consolePages,
    ...createToolConnectorRoutes(signedInRoute),
    ...createModelGatewayRoutes(signedInRoute),
    ...createUnifiedDataRoutes(signedInRoute),
  ]),
]);

export const router = createRouter({ routeTree, basepath: consoleBasePath.replace(/\/$/, '') || '/' });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2 } } });

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
