import { NotFoundError, NotInScopeError, PermissionDeniedError } from '@patchbay/errors';
import type { Environment, KeyPrincipal, Scope } from './principal';

export function requireScope(principal: KeyPrincipal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    const what = scope === 'runtime:all' ? 'MCP tool calls' : 'resource management';
    throw new PermissionDeniedError(`This access key lacks the ${scope} scope needed for ${what}.`);
  }
}

/** 404 `Resource not in API key scope.` when the tool pack is outside the key's list. */
export function assertToolPackInScope(principal: KeyPrincipal, toolPackId: string): void {
  if (principal.toolPackIds !== null && !principal.toolPackIds.includes(toolPackId)) throw new NotInScopeError();
}

/** 404 `Resource not in API key scope.` when the registered user is outside the key's list. */
export function assertRegisteredUserInScope(principal: KeyPrincipal, registeredUserId: string): void {
  if (principal.registeredUserIds !== null && !principal.registeredUserIds.includes(registeredUserId)) throw new NotInScopeError();
}

/** For list queries: null means every tool pack; otherwise only these ids may appear. */
export function toolPackIdFilter(principal: KeyPrincipal): string[] | null {
  return principal.toolPackIds;
}

/** For list queries: null means every registered user; otherwise only these ids may appear. */
export function registeredUserIdFilter(principal: KeyPrincipal): string[] | null {
  return principal.registeredUserIds;
}

/** Production and test never see each other's resources: a record of the other environment is a 404. */
export function assertSameEnvironment(principal: KeyPrincipal, resourceEnvironment: Environment, notFoundMessage = 'Not found.'): void {
  if (principal.environment !== resourceEnvironment) throw new NotFoundError(notFoundMessage);
}

/** Whether the key is unrestricted on both restriction dimensions. */
export function isUnrestricted(principal: Pick<KeyPrincipal, 'toolPackIds' | 'registeredUserIds'>): boolean {
  return principal.toolPackIds === null && principal.registeredUserIds === null;
}
