import { NotFoundError, NotInScopeError, PermissionDeniedError } from '@patchbay/errors';
import type { KeyPrincipal } from './principal';
import { assertRegisteredUserInScope, assertSameEnvironment, assertToolPackInScope, requireScope } from './scope';

const base = {
  keyId: 'k', organizationId: 'o', environment: 'production', scopes: ['management:all'], toolPackIds: ['tp1'], registeredUserIds: null,
  expiresAt: null, isMaster: false, serviceAccount: null,
  organization: { id: 'o', plan: 'free', monthlyCredits: 1, environmentMatching: false, mcpRateLimitPerMinute: 30, callbackOrigins: [] },
} as KeyPrincipal;

describe('scope and restriction checks', () => {
  it('a key without runtime:all cannot make MCP tool calls (403)', () => {
    expect(() => requireScope(base, 'runtime:all')).toThrow(PermissionDeniedError);
    expect(() => requireScope(base, 'management:all')).not.toThrow();
  });

  it('a tool pack outside the key\'s list is 404 Resource not in API key scope.', () => {
    expect(() => assertToolPackInScope(base, 'tp2')).toThrow(new NotInScopeError());
    expect(() => assertToolPackInScope(base, 'tp1')).not.toThrow();
  });

  it('an unrestricted dimension lets every id through', () => {
    expect(() => assertRegisteredUserInScope(base, 'anyone')).not.toThrow();
    expect(() => assertRegisteredUserInScope({ ...base, registeredUserIds: ['u1'] }, 'u2')).toThrow(NotInScopeError);
  });

  it('production and test resources are 404 to each other', () => {
    expect(() => assertSameEnvironment(base, 'test')).toThrow(NotFoundError);
  });
});
