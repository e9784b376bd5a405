import { QueryClient, QueryClientProvider, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, RouterProvider, createRootRoute, createRoute, createRouter, useNavigate, useRouterState } from '@tanstack/react-router';
import { useEffect } from 'react';
import { ApiError, onSessionExpired } from './api/client';
import { fetchSession, sessionQueryKey } from './api/session';
import { consoleBasePath } from './config';
import { HomePage } from './pages/home';
import { SignInPage } from './pages/sign-in';

/** Sends the member to /sign-in, remembering the page they were on, whenever an API call answers 401. */
function SessionExpiryWatcher() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const location = useRouterState({ select: (s) => s.location });
  useEffect(
    () =>
      onSessionExpired(() => {
        if (location.pathname === '/sign-in') return; // already there: no loop
        queryClient.clear();
        void navigate({ to: '/sign-in', search: { next: location.href } });
      }),
    [navigate, queryClient, location],
  );
  return null;
}

/** The pages behind sign-in: the session is loaded once and shared through the query cache. */
function SignedInLayout() {
  const session = useQuery({ queryKey: sessionQueryKey, queryFn: fetchSession, retry: false, staleTime: 60_000 });
  const navigate = useNavigate();
  const location = useRouterState({ select: (s) => s.location });
  const unauthenticated = session.error instanceof ApiError && session.error.status === 401;
  useEffect(() => {
    if (unauthenticated) void navigate({ to: '/sign-in', search: { next: location.href }, replace: true });
  }, [unauthenticated, navigate, location.href]);
  if (session.isPending || unauthenticated) return <p role="status">Loading…</p>;
  if (session.error) return <p role="alert">The console could not load your session: {session.error.message}</p>;
  return (
    <div className="layout">
      <header>
        <Link to="/" className="brand">
          Patchbay
        </Link>
        <span>
          {session.data.organization.name} · {session.data.environment}
        </span>
      </header>
      <main>
        <Outlet />
      </main>
    </div>
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
const signInRoute = createRoute({ getParentRoute: () => rootRoute, path: '/sign-in', component: SignInPage, validateSearch: (search: Record<string, unknown>) => ({ next: typeof search.next === 'string' ? search.next : undefined }) });
const signedInRoute = createRoute({ getParentRoute: () => rootRoute, id: 'signed-in', component: SignedInLayout });
const homeRoute = createRoute({ getParentRoute: () => signedInRoute, path: '/', component: HomePage });

const routeTree = rootRoute.addChildren([signInRoute, signedInRoute.addChildren([homeRoute])]);

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
