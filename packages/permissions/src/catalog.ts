/**
 * The one permission catalog of Patchbay, shared by the three interfaces, the console's roles and
 * management keys: a management key made in the console carries its creator's permission codenames as
 * its scopes (spec, model gateway Authentication 3), so a scope and a permission are the same name.
 *
 * Each resource has a view_/manage_ pair (a few are view-only, one is an action of its own); the
 * service that owns a resource checks the codename, the console only mirrors it as a disabled control.
 */

/** Which part of Patchbay a permission guards; the console groups its role matrix by it. */
export type PermissionArea = 'organization' | 'tool_connectors' | 'model_gateway' | 'unified_data';

export interface PermissionDefinition {
  codename: string;
  displayName: string;
  area: PermissionArea;
  /** The resource the pair belongs to, e.g. `members`; one row of the console's role matrix. */
  resource: string;
  /** view_ reads, manage_ writes; an action is a single write of its own (forcing a resync). */
  kind: 'view' | 'manage' | 'action';
  description: string;
}

/** A resource's view_ permission and, unless it is read-only, its manage_ one: [display name, description] each. */
function pair(area: PermissionArea, resource: string, view: [string, string], manage: [string, string] | null): PermissionDefinition[] {
  const defs: PermissionDefinition[] = [{ codename: `view_${resource}`, displayName: view[0], area, resource, kind: 'view', description: view[1] }];
  if (manage) defs.push({ codename: `manage_${resource}`, displayName: manage[0], area, resource, kind: 'manage', description: manage[1] });
  return defs;
}

export const PERMISSIONS: readonly PermissionDefinition[] = Object.freeze([
  // The organization itself: owned by access-keys-and-audit.
  ...pair('organization', 'members', ['View members', 'See members, their roles, status and last sign-in, and open invitations.'], ['Manage members', 'Invite, disable and remove members, change their roles and reset their two-factor sign-in.']),
  ...pair('organization', 'roles', ['View roles', 'See the built-in and custom roles and their permissions.'], ['Manage roles', 'Create, change and delete custom roles.']),
  ...pair('organization', 'org_settings', ['View organization settings', 'See callback origins, MCP allowed origins, environment matching, the MCP rate limit and sign-in rules.'], ['Manage organization settings', 'Change those settings, including requiring two-factor sign-in.']),
  ...pair('organization', 'billing', ['View usage and billing', 'See the plan, credits, gateway spend and usage.'], ['Manage billing', 'Change the plan, the credit allotment, the payment method and the gateway credit.']),
  ...pair('organization', 'sso', ['View single sign-on', 'See the organization\'s OpenID Connect settings (never the client secret).'], ['Manage single sign-on', 'Set up, change or turn off single sign-on and "require SSO".']),
  ...pair('organization', 'audit_log', ['View audit log', 'Read and export the audit log.'], null),
  // Tool connectors: access keys in access-keys-and-audit; the rest in connector-registry and mcp-runtime.
  ...pair('tool_connectors', 'access_keys', ['View organization API keys', 'List access keys (never their secrets).'], ['Manage organization API keys', 'Create, regenerate and revoke access keys, and create management keys.']),
  ...pair('tool_connectors', 'tool_packs', ['View tool packs', 'See tool packs, their connectors and tools.'], ['Manage tool packs', 'Create, change and delete tool packs.']),
  ...pair('tool_connectors', 'connectors', ['View connectors', 'See the connector catalog, custom MCP servers and application credentials (never secrets).'], ['Manage connectors', 'Register and delete custom MCP servers and manage application credentials.']),
  ...pair('tool_connectors', 'registered_users', ['View registered users', 'See registered users and their connections.'], ['Manage registered users', 'Create and delete registered users, create link tokens and delete stored credentials.']),
  ...pair('tool_connectors', 'security_rules', ['View security rules', 'See security rules and try them in the tester.'], ['Manage security rules', 'Create, change and delete security rules.']),
  ...pair('tool_connectors', 'tool_call_records', ['View tool-call records', 'Read tool-call records as stored (redacted where a rule redacted).'], null),
  // Model gateway: owned by model-gateway. The names it already had as management-key scopes are kept.
  ...pair('model_gateway', 'api_keys', ['View gateway API keys', 'List gateway keys and their spend (never the keys).'], ['Manage gateway API keys', 'Create, change, disable, rotate and delete gateway keys.']),
  ...pair('model_gateway', 'projects', ['View projects', 'See projects and their budgets.'], ['Manage projects', 'Create, change and delete projects.']),
  ...pair('model_gateway', 'customers', ['View customers', 'See customers, their budgets and keys.'], ['Manage customers', 'Create and change customers and their keys.']),
  ...pair('model_gateway', 'vendor_keys', ['View vendor keys', 'See which vendors have a key of your own (last four characters only).'], ['Manage vendor keys', 'Set and remove your own vendor keys.']),
  ...pair('model_gateway', 'routing', ['View routing', 'See routing policies and dry-run them.'], ['Manage routing', 'Create, change, delete and set default routing policies.']),
  ...pair('model_gateway', 'policies', ['View gateway policies', 'See tags and the model blocklist.'], ['Manage gateway policies', 'Define tags and change the model blocklist.']),
  ...pair('model_gateway', 'guardrails', ['View guardrails', 'See prompt-injection and data-loss settings.'], ['Manage guardrails', 'Change prompt-injection and data-loss settings.']),
  // Unified data: owned by unified-data.
  ...pair('unified_data', 'linked_accounts', ['View linked accounts', 'See linked accounts, their syncs and synced records.'], ['Manage linked accounts', 'Link, relink and delete accounts and change field mappings.']),
  { codename: 'force_resync', displayName: 'Force a resync on linked accounts', area: 'unified_data', resource: 'linked_accounts', kind: 'action', description: 'Start a full resync of a linked account.' },
]);

export type Permission = string;

const BY_CODENAME: ReadonlyMap<string, PermissionDefinition> = new Map(PERMISSIONS.map((p) => [p.codename, p]));

/** Every codename, in catalog order. */
export const PERMISSION_CODENAMES: readonly string[] = Object.freeze(PERMISSIONS.map((p) => p.codename));

/**
 * Names minted before the catalog, still accepted wherever a permission name is: management keys made
 * before it hold manage_keys and read_usage (spec: they "work as manage_api_keys and view_billing").
 */
export const LEGACY_PERMISSION_ALIASES: Readonly<Record<string, string>> = Object.freeze({ manage_keys: 'manage_api_keys', read_usage: 'view_billing' });

export function permissionDefinition(codename: string): PermissionDefinition | undefined {
  return BY_CODENAME.get(codename);
}

export function isPermission(name: string): boolean {
  return BY_CODENAME.has(name);
}

/**
 * Current codenames for a list of names, in catalog order without repeats (legacy aliases mapped), and
 * the names that are not permissions. With `impliedViews`, every manage_ brings its view_ and
 * force_resync brings view_linked_accounts: a role that may change a resource may see it.
 */
export function normalizePermissions(names: Iterable<string>, options: { impliedViews?: boolean } = {}): { permissions: string[]; unknown: string[] } {
  const held = new Set<string>();
  const unknown: string[] = [];
  for (const name of names) {
    const current = LEGACY_PERMISSION_ALIASES[name] ?? name;
    const def = BY_CODENAME.get(current);
    if (!def) {
      if (!unknown.includes(name)) unknown.push(name);
      continue;
    }
    held.add(def.codename);
    if (options.impliedViews && def.kind !== 'view') held.add(`view_${def.resource}`);
  }
  return { permissions: PERMISSION_CODENAMES.filter((c) => held.has(c)), unknown };
}
