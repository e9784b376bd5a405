import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { api, unwrap } from '../api/api';
import { sessionQueryKey, type Session } from '../api/session';
import { ErrorText } from './error-text';
import { modelGatewayNavigation } from '../pages/model-gateway/routes';
import { toolConnectorNavigation } from '../pages/tool-connectors/routes';
import { unifiedDataNavigation } from '../pages/unified-data/routes';

/** The console's pages, in the navigation's order; each shaped like the API it shows. */
const NAVIGATION = [
  { to: '/', label: 'Home' },
  { to: '/members', label: 'Members' },
  { to: '/roles', label: 'Roles' },
  { to: '/organization', label: 'Organization' },
  { to: '/access-keys', label: 'Access keys' },
  { to: '/management-keys', label: 'Management keys' },
  { to: '/audit-log', label: 'Audit log' },
  { to: '/sso', label: 'Single sign-on' },
  { to: '/account', label: 'Your account' },
] as const;

/** Each interface's pages, grouped under its name (pages/<area>/routes.ts). */
const AREAS = [
  { label: 'Tool connectors', items: toolConnectorNavigation },
  { label: 'Model gateway', items: modelGatewayNavigation },
  { label: 'Unified data', items: unifiedDataNavigation },
] as const;

/**
 * The signed-in frame: the organization, the environment switch (production or test: everything shown
 * belongs to the one chosen, as a key of that environment would see), navigation and sign-out.
 */
export function AppShell({ session, onSignOut, children }: { session: Session; onSignOut: () => void; children: ReactNode }) {
  const queryClient = useQueryClient();
  const switchEnvironment = useMutation({
    mutationFn: (environment: 'production' | 'test') => unwrap(api.POST('/api/v1/session/environment', { body: { environment } })),
    onSuccess: async (view) => {
      // Everything cached belongs to the other environment now.
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== sessionQueryKey[0] && q.queryKey[0] !== 'permissions' });
      queryClient.setQueryData(sessionQueryKey, view as unknown as Session);
      await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
    },
  });
  return (
    <div className="layout">
      <header>
        <Link to="/" className="brand">
          Patchbay
        </Link>
        <span className="org">{session.organization.name}</span>
        <label className="environment">
          Environment
          <select value={session.environment} disabled={switchEnvironment.isPending} onChange={(e) => switchEnvironment.mutate(e.target.value as 'production' | 'test')}>
            <option value="production">Production</option>
            <option value="test">Test</option>
          </select>
        </label>
        <span className="who">{session.member.name || session.member.email}</span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      {session.environment === 'test' && (
        <p className="test-banner" role="note">
          You are in the test environment: keys and logs here are the test ones.
        </p>
      )}
      <ErrorText error={switchEnvironment.error} />
      <div className="frame">
        <nav aria-label="Console">
          <ul>
            {NAVIGATION.map((item) => (
              <li key={item.to}>
                <Link to={item.to} activeOptions={{ exact: item.to === '/' }} activeProps={{ 'aria-current': 'page' }}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
          {AREAS.filter((area) => area.items.length > 0).map((area) => (
            <section key={area.label} aria-label={area.label}>
              <h2 className="nav-heading">{area.label}</h2>
              <ul>
                {area.items.map((item) => (
                  <li key={item.to}>
                    <Link to={item.to} activeProps={{ 'aria-current': 'page' }}>
                      {item.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </nav>
        <main>{children}</main>
      </div>
    </div>
  );
}
