import { PERMISSIONS, PERMISSION_CODENAMES } from './catalog';

/**
 * The built-in roles, after the product the spec describes (research: console-facts.md §2). They cannot
 * be changed or deleted; an organization adds custom roles made of any permissions.
 */
export interface BuiltInRole {
  /** Stable id, used in APIs and the CLI (`--role developer`). */
  id: 'admin' | 'developer' | 'security' | 'read_only';
  name: string;
  description: string;
  permissions: readonly string[];
}

const VIEWS = PERMISSIONS.filter((p) => p.kind === 'view').map((p) => p.codename);

/** What a Developer may not do: people, roles, organization-wide settings, money, sign-in and access keys. */
const DEVELOPER_EXCLUDED = new Set(['manage_members', 'manage_roles', 'manage_org_settings', 'manage_billing', 'manage_sso', 'manage_access_keys']);

/** What Security may change beyond reading everything: the rules that scan tool calls and model traffic. */
const SECURITY_MANAGES = new Set(['manage_security_rules', 'manage_guardrails']);

export const BUILT_IN_ROLES: readonly BuiltInRole[] = Object.freeze([
  {
    id: 'admin',
    name: 'Admin',
    description: 'Every permission: members, roles, billing, keys, single sign-on and every resource.',
    permissions: PERMISSION_CODENAMES,
  },
  {
    id: 'developer',
    name: 'Developer',
    description: 'Builds with Patchbay: tool packs, connectors, registered users, security rules, gateway keys, routing and linked accounts; sees access keys, logs and usage; no members, roles, billing, organization settings, single sign-on or access keys.',
    permissions: PERMISSION_CODENAMES.filter((c) => !DEVELOPER_EXCLUDED.has(c)),
  },
  {
    id: 'security',
    name: 'Security',
    description: 'Sees everything and manages security rules and gateway guardrails; reads the audit log.',
    permissions: PERMISSION_CODENAMES.filter((c) => VIEWS.includes(c) || SECURITY_MANAGES.has(c)),
  },
  {
    id: 'read_only',
    name: 'Read-only',
    description: 'Every view_ permission; changes nothing.',
    permissions: VIEWS,
  },
]);

export function builtInRole(id: string): BuiltInRole | undefined {
  return BUILT_IN_ROLES.find((r) => r.id === id);
}
