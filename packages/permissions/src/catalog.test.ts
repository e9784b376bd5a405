import { LEGACY_PERMISSION_ALIASES, PERMISSIONS, PERMISSION_CODENAMES, normalizePermissions, permissionDefinition } from './catalog';
import { BUILT_IN_ROLES, builtInRole } from './roles';

// The management-key scope names the gateway checks today (packages/auth MANAGEMENT_SCOPES).
const GATEWAY_SCOPES = ['manage_api_keys', 'view_billing', 'manage_projects', 'manage_customers', 'manage_vendor_keys', 'manage_policies', 'manage_routing', 'view_routing', 'manage_guardrails', 'view_guardrails'];

describe('the permission catalog', () => {
  it('is one list of unique view_/manage_ codenames, each with a display name and a description', () => {
    expect(new Set(PERMISSION_CODENAMES).size).toBe(PERMISSION_CODENAMES.length);
    for (const p of PERMISSIONS) {
      expect(p.codename).toMatch(/^(view|manage)_[a-z_]+$|^force_resync$/);
      expect(p.displayName.length).toBeGreaterThan(3);
      expect(p.description.length).toBeGreaterThan(10);
      if (p.kind === 'manage') expect(PERMISSION_CODENAMES).toContain(`view_${p.resource}`);
    }
  });

  it('names access keys as the spec does: "Manage organization API keys"', () => {
    expect(permissionDefinition('manage_access_keys')?.displayName).toBe('Manage organization API keys');
  });

  it("keeps every scope name the gateway's management keys hold, and maps manage_keys and read_usage", () => {
    for (const scope of GATEWAY_SCOPES) expect(PERMISSION_CODENAMES).toContain(scope);
    expect(LEGACY_PERMISSION_ALIASES).toEqual({ manage_keys: 'manage_api_keys', read_usage: 'view_billing' });
    expect(normalizePermissions(['read_usage', 'manage_keys', 'manage_keys', 'nope'])).toEqual({ permissions: ['view_billing', 'manage_api_keys'], unknown: ['nope'] });
  });

  it('covers every resource the console shows, in each of the three interfaces', () => {
    for (const codename of ['view_members', 'manage_roles', 'manage_org_settings', 'manage_sso', 'view_audit_log', 'manage_tool_packs', 'manage_connectors', 'manage_registered_users', 'manage_security_rules', 'view_tool_call_records', 'manage_linked_accounts', 'force_resync']) {
      expect(PERMISSION_CODENAMES).toContain(codename);
    }
  });

  it('implies the view of what a permission manages when asked', () => {
    expect(normalizePermissions(['manage_tool_packs', 'force_resync'], { impliedViews: true }).permissions).toEqual(['view_tool_packs', 'manage_tool_packs', 'view_linked_accounts', 'force_resync']);
  });
});

describe('built-in roles', () => {
  it('Admin holds every permission; Read-only every view_ and nothing else', () => {
    expect(builtInRole('admin')?.permissions).toEqual(PERMISSION_CODENAMES);
    expect(builtInRole('read_only')?.permissions.every((c) => c.startsWith('view_'))).toBe(true);
    expect(builtInRole('read_only')?.permissions).toHaveLength(PERMISSIONS.filter((p) => p.kind === 'view').length);
  });

  it('a Developer cannot manage members, roles, billing, organization settings, single sign-on or access keys, but builds everything else', () => {
    const dev = builtInRole('developer')!.permissions;
    for (const denied of ['manage_members', 'manage_roles', 'manage_billing', 'manage_org_settings', 'manage_sso', 'manage_access_keys']) expect(dev).not.toContain(denied);
    for (const allowed of ['view_members', 'view_access_keys', 'manage_tool_packs', 'manage_api_keys', 'manage_routing', 'force_resync']) expect(dev).toContain(allowed);
  });

  it('Security sees everything and manages only security rules and guardrails', () => {
    const sec = builtInRole('security')!.permissions;
    expect(sec.filter((c) => !c.startsWith('view_'))).toEqual(['manage_security_rules', 'manage_guardrails']);
    expect(sec).toContain('view_audit_log');
  });

  it('every built-in role is made of catalog permissions, each holding the views of what it manages', () => {
    for (const role of BUILT_IN_ROLES) {
      expect(normalizePermissions(role.permissions, { impliedViews: true }).permissions).toEqual([...role.permissions]);
    }
  });
});
