import type { Environment, Scope } from '@patchbay/auth';

/** The dimensions on which one key can be narrower than another (spec, Authentication 9). */
export interface KeyDimensions {
  id: string;
  environment: Environment;
  scopes: Scope[];
  /** null = unrestricted */
  toolPackIds: string[] | null;
  registeredUserIds: string[] | null;
  /** null = never expires */
  expiresAt: Date | null;
}

function isSubset(inner: readonly string[], outer: readonly string[]): boolean {
  const set = new Set(outer);
  return inner.every((v) => set.has(v));
}

/** An unrestricted list covers everything; a restricted one covers only its own subsets. */
export function restrictionCovers(caller: string[] | null, target: string[] | null): boolean {
  if (caller === null) return true;
  if (target === null) return false;
  return isSubset(target, caller);
}

/** A key that never expires covers any expiry; otherwise the target must expire no later. */
export function expiryCovers(caller: Date | null, target: Date | null): boolean {
  if (caller === null) return true;
  if (target === null) return false;
  return target.getTime() <= caller.getTime();
}

/**
 * Whether `caller` may regenerate or revoke `target`: the target is the caller itself, or is
 * fully covered on environment, scopes, expiry, tool packs and registered users.
 */
export function covers(caller: KeyDimensions, target: KeyDimensions): boolean {
  if (caller.id === target.id) return true;
  return (
    caller.environment === target.environment &&
    isSubset(target.scopes, caller.scopes) &&
    expiryCovers(caller.expiresAt, target.expiresAt) &&
    restrictionCovers(caller.toolPackIds, target.toolPackIds) &&
    restrictionCovers(caller.registeredUserIds, target.registeredUserIds)
  );
}

/** Unrestricted: both scopes and no tool-pack or registered-user restriction. */
export function isUnrestrictedKey(key: Pick<KeyDimensions, 'scopes' | 'toolPackIds' | 'registeredUserIds'>): boolean {
  return key.toolPackIds === null && key.registeredUserIds === null && key.scopes.includes('runtime:all') && key.scopes.includes('management:all');
}
