/**
 * Audit event types recorded by this service. Other services send their own `<resource>.<action>`
 * types over the audit queue; the full list is in the service README.
 */
export const AUDIT_EVENT_TYPES = {
  organizationCreated: 'organization.created',
  organizationUpdated: 'organization.updated',
  accessKeyCreated: 'access_key.created',
  accessKeyRegenerated: 'access_key.regenerated',
  accessKeyRevoked: 'access_key.revoked',
  managementKeyCreated: 'management_key.created',
  managementKeyRevoked: 'management_key.revoked',
  memberSignedIn: 'member.signed_in',
  memberSignInFailed: 'member.sign_in_failed',
  memberLockedOut: 'member.locked_out',
  memberInvited: 'member.invited',
  memberJoined: 'member.joined',
  memberRolesChanged: 'member.roles_changed',
  memberDisabled: 'member.disabled',
  memberEnabled: 'member.enabled',
  memberRemoved: 'member.removed',
  memberSignedOutEverywhere: 'member.signed_out_everywhere',
  memberPasswordChanged: 'member.password_changed',
  memberTwoFactorEnabled: 'member.two_factor_enabled',
  memberTwoFactorDisabled: 'member.two_factor_disabled',
  memberTwoFactorReset: 'member.two_factor_reset',
  memberTwoFactorFailed: 'member.two_factor_failed',
  memberRecoveryCodeUsed: 'member.recovery_code_used',
  memberRecoveryCodesRegenerated: 'member.recovery_codes_regenerated',
  memberSsoRefused: 'member.sso_refused',
  organizationTwoFactorPolicyChanged: 'organization.two_factor_policy_changed',
  ssoConfigured: 'sso.configured',
  ssoRemoved: 'sso.removed',
  roleCreated: 'role.created',
  roleUpdated: 'role.updated',
  roleDeleted: 'role.deleted',
} as const;

export const EVENT_TYPE_PATTERN = /^[a-z][a-z_]*\.[a-z][a-z_]*$/;

export type ActorType = 'access_key' | 'member' | 'admin_cli' | 'system' | 'service';
