import { randomBytes } from 'node:crypto';
import { hashAccessKey } from '@patchbay/auth';
import { AuthenticationError, ConflictError, InvalidRequestError, NotFoundError, PermissionDeniedError, ValidationError, type FieldError } from '@patchbay/errors';
import type { PageParams } from '@patchbay/pagination';
import { BUILT_IN_ROLES } from '@patchbay/permissions';
import { isUuid } from '@patchbay/service-kit';
import type { Db, Tx } from '../../db';
import type { Membership, Prisma, User } from '../../generated/prisma/client';
import { recordAuditEvent } from '../audit-log';
import { AUDIT_EVENT_TYPES } from '../event-types';
import { assertHoldsAll, permissionsOf } from './member-permissions';
import { hashPassword, validateNewPassword, verifyPassword } from './passwords';
import { resolveRoleIds } from './roles';
import type { SessionPrincipal } from './session-principal';
import { memberEvent, normalizeEmail, type ClientContext, type SessionEvents, type SessionService, type SignInOutcome } from './sessions';

/** Invitation links, owner setup included, work this long. */
export const INVITATION_LIFETIME_DAYS = 7;
/** Where the console accepts an invitation; the token travels in the fragment, which browsers never send to servers. */
export const INVITATION_PATH = '/console/invitation';
/** Where the console accepts a link that names no email (the owner setup): the page asks for one. */
export const OWNER_SETUP_PATH = '/console/setup';

export type MemberActor = { kind: 'member'; principal: SessionPrincipal } | { kind: 'admin_cli' };

export interface MemberRoleRef {
  id: string;
  name: string;
  built_in: boolean;
}

export interface MemberRecord {
  /** The member's id in this organization. */
  id: string;
  user_id: string;
  email: string;
  /** Empty until an invited person accepts and gives their name. */
  name: string;
  status: 'invited' | 'active' | 'disabled';
  /** The organization's one owner: holds every permission, cannot be removed, disabled or demoted. */
  is_owner: boolean;
  roles: MemberRoleRef[];
  /** What the roles grant, in catalog order (every permission for the owner). */
  permissions: string[];
  last_sign_in_at: string | null;
  /** Whether the person signs in with a second factor (an admin can reset it: DELETE .../two-factor). */
  two_factor_enabled: boolean;
  created_at: string;
}

export interface InvitationLink {
  id: string;
  /** The single-use link to give the person (shown once; only its hash is stored). */
  url: string;
  /** The token inside the link, for POST /api/v1/invitations/accept. */
  token: string;
  email: string | null;
  expires_at: string;
}

export interface InviteInput {
  email?: string;
  role_ids?: string[];
}

export interface UpdateMemberInput {
  role_ids?: string[];
  status?: 'active' | 'disabled';
}

export interface AcceptInvitationInput {
  token?: string;
  name?: string;
  password?: string;
  /** Only for an owner-setup link, which names no email. */
  email?: string;
}

const EMAIL_PATTERN = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

export function validateEmail(email: string | undefined, field = 'body.email'): string {
  const trimmed = email?.trim() ?? '';
  if (trimmed === '') throw ValidationError.forField(field, 'is required');
  if (trimmed.length > 254 || !EMAIL_PATTERN.test(trimmed)) throw ValidationError.forField(field, `"${trimmed.slice(0, 60)}" is not an email address`);
  return trimmed;
}

function invitationUrl(baseUrl: string, token: string, namesEmail: boolean): string {
  return `${baseUrl.replace(/\/$/, '')}${namesEmail ? INVITATION_PATH : OWNER_SETUP_PATH}#token=${token}`;
}

type MembershipWithUser = Membership & { user: User };

export class MemberService {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionService,
    private readonly events: SessionEvents,
    private readonly now: () => number = Date.now,
  ) {}

  async list(organizationId: string, filters: { search?: string; status?: string }, page: PageParams): Promise<{ count: number; results: MemberRecord[] }> {
    if (filters.status !== undefined && !['invited', 'active', 'disabled'].includes(filters.status)) {
      throw ValidationError.forField('query.status', 'must be invited, active or disabled');
    }
    const search = filters.search?.trim();
    const where: Prisma.MembershipWhereInput = {
      organizationId,
      ...(filters.status ? { status: filters.status as Membership['status'] } : {}),
      ...(search ? { user: { OR: [{ emailNormalized: { contains: search.toLowerCase() } }, { name: { contains: search, mode: 'insensitive' } }] } } : {}),
    };
    const [count, rows] = await Promise.all([
      this.db.membership.count({ where }),
      this.db.membership.findMany({ where, include: { user: true }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: page.offset, take: page.pageSize }),
    ]);
    return { count, results: await memberRecords(this.db, organizationId, rows) };
  }

  async get(organizationId: string, memberId: string): Promise<MemberRecord> {
    const row = await this.find(this.db, organizationId, memberId);
    return (await memberRecords(this.db, organizationId, [row]))[0]!;
  }

  async invite(actor: MemberActor, organizationId: string, input: InviteInput, baseUrl: string): Promise<{ member: MemberRecord; invitation: InvitationLink }> {
    return inviteMember(this.db, actor, organizationId, input, baseUrl, this.now);
  }

  async ownerSetupLink(organizationId: string, baseUrl: string): Promise<InvitationLink> {
    return createOwnerSetupLink(this.db, organizationId, baseUrl, this.now);
  }

  /**
   * Accepts an invitation: creates the person's account if needed (a person who already has one
   * confirms with their password), activates the membership, and signs them in.
   */
  async accept(input: AcceptInvitationInput, client: ClientContext, previousToken?: string): Promise<SignInOutcome> {
    const errors: FieldError[] = [];
    if (!input.token) errors.push({ field: 'body.token', message: 'is required (the part after #token= in the link)' });
    if (typeof input.password !== 'string' || input.password === '') errors.push({ field: 'body.password', message: 'is required' });
    if (errors.length > 0) throw new ValidationError(errors);
    const tokenHash = hashAccessKey(input.token!);
    const now = new Date(this.now());
    const invitation = await this.db.invitation.findUnique({ where: { tokenHash } });
    if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt <= now) {
      throw new NotFoundError(`This invitation link is not valid: it was already used, replaced, or it expired (links last ${INVITATION_LIFETIME_DAYS} days). Ask an admin of the organization for a new one.`);
    }
    let emailNormalized = invitation.emailNormalized;
    let email: string | undefined;
    if (!emailNormalized) {
      email = validateEmail(input.email);
      emailNormalized = normalizeEmail(email);
    } else if (input.email !== undefined && normalizeEmail(input.email) !== emailNormalized) {
      throw ValidationError.forField('body.email', 'this invitation is for another email address; leave email out');
    }
    const existing = await this.db.user.findUnique({ where: { emailNormalized } });
    let passwordHash: string | undefined;
    let name: string | undefined;
    if (existing?.passwordHash) {
      // An existing account joins with its own password, so a forwarded link cannot take it over.
      if (!(await verifyPassword(existing.passwordHash, input.password!))) {
        throw new AuthenticationError('You already have a Patchbay account with this email: give its password to join.');
      }
    } else {
      name = input.name?.trim() ?? '';
      if (name === '' || name.length > 200) throw ValidationError.forField('body.name', 'is required, 1 to 200 characters');
      validateNewPassword(input.password!);
      passwordHash = await hashPassword(input.password!);
    }
    const org = await this.db.organization.findUniqueOrThrow({ where: { id: invitation.organizationId }, select: { name: true, requireTwoFactor: true, ssoConnection: { select: { enabled: true, requireSso: true } } } });
    if (!invitation.makesOwner && org.ssoConnection?.enabled && org.ssoConnection.requireSso) {
      // "Require SSO": the invited person joins by signing in through the identity provider with this email.
      throw new PermissionDeniedError(`${org.name} requires single sign-on: on the sign-in page, type ${emailNormalized} and choose "Continue with SSO" to join.`);
    }
    // An organization that requires two-factor: the person enrols before any session exists.
    const secondStep = org.requireTwoFactor && !existing?.totpEnabledAt;
    const message = { organizationId: invitation.organizationId };
    const joined = await this.db.$transaction(async (tx) => {
      // Single use, even when two acceptances race: only one flips accepted_at.
      const claimed = await tx.invitation.updateMany({ where: { id: invitation.id, acceptedAt: null, revokedAt: null }, data: { acceptedAt: now } });
      if (claimed.count !== 1) throw new NotFoundError('This invitation link was just used; ask an admin of the organization for a new one.');
      const user = existing
        ? await tx.user.update({ where: { id: existing.id }, data: { ...(passwordHash ? { passwordHash } : {}), ...(name ? { name } : {}) } })
        : await tx.user.create({ data: { email: email ?? emailNormalized!, emailNormalized: emailNormalized!, name: name!, passwordHash: passwordHash! } });
      if (invitation.makesOwner) {
        const set = await tx.organization.updateMany({ where: { id: invitation.organizationId, ownerUserId: null }, data: { ownerUserId: user.id } });
        if (set.count !== 1) throw new ConflictError('This organization already has an owner.');
      }
      const current = await tx.membership.findUnique({ where: { organizationId_userId: { organizationId: invitation.organizationId, userId: user.id } } });
      // An existing member may still become the owner through the owner-setup link; other links are for newcomers.
      if (current && current.status !== 'invited' && !invitation.makesOwner) throw new ConflictError('You are already a member of this organization; sign in instead.');
      const roles = { roleIds: invitation.roleIds, customRoleIds: invitation.customRoleIds };
      const membership = current
        ? await tx.membership.update({ where: { id: current.id }, data: { status: 'active', ...roles, lastSignInAt: now } })
        : await tx.membership.create({ data: { organizationId: invitation.organizationId, userId: user.id, status: 'active', ...roles, lastSignInAt: now } });
      await recordAuditEvent(tx, memberEvent(invitation.organizationId, membership.id, AUDIT_EVENT_TYPES.memberJoined, { email: user.email, invitation_id: invitation.id, owner: invitation.makesOwner }));
      await this.events.stage(tx, message);
      if (secondStep || existing?.totpEnabledAt) return { user, membership, token: null };
      await recordAuditEvent(tx, memberEvent(invitation.organizationId, membership.id, AUDIT_EVENT_TYPES.memberSignedIn, { email: user.email, ip_address: client.address, user_agent: client.userAgent }));
      return { user, membership, token: await this.sessions.createSession(tx, user.id, invitation.organizationId, client, previousToken) };
    });
    await this.events.published(message);
    if (joined.token === null) {
      // Two-factor on, or required by the organization: the invitation is used, the sign-in's second step follows.
      return this.sessions.afterFirstFactor({ id: joined.user.id, email: joined.user.email, totpEnabled: joined.user.totpEnabledAt !== null }, joined.membership, 'password', client, previousToken);
    }
    return { kind: 'session', token: joined.token, principal: await this.sessions.principalOf(joined.token) };
  }

  /** Changes a member's roles, or disables / re-enables them. Disabling ends their sessions at once. */
  async update(actor: SessionPrincipal, memberId: string, input: UpdateMemberInput): Promise<MemberRecord> {
    if (input.role_ids === undefined && input.status === undefined) throw new InvalidRequestError('Nothing to change: send role_ids and/or status.');
    if (input.status !== undefined && !['active', 'disabled'].includes(input.status)) throw ValidationError.forField('body.status', 'must be active or disabled');
    const organizationId = actor.organizationId;
    const message = { organizationId };
    const record = await this.db.$transaction(async (tx) => {
      await lockOrganization(tx, organizationId);
      const target = await this.find(tx, organizationId, memberId);
      const isOwner = await this.isOwner(tx, organizationId, target.userId);
      if (isOwner) throw new InvalidRequestError('The owner cannot be demoted or disabled: the owner holds every permission of the organization.');
      assertHoldsAll(actor, await permissionsOfRoles(tx, organizationId, target), 'Changing this member');
      let updated: Membership = target;
      if (input.role_ids !== undefined) {
        const roles = await resolveRoleIds(tx, organizationId, input.role_ids);
        assertHoldsAll(actor, await permissionsOfRoles(tx, organizationId, roles), 'Granting these roles');
        if (target.status === 'active' && target.id === actor.memberId) await this.assertKeepsMemberManager(tx, organizationId, target.id, roles);
        updated = await tx.membership.update({ where: { id: target.id }, data: roles });
        await recordAuditEvent(tx, memberEvent(organizationId, target.id, AUDIT_EVENT_TYPES.memberRolesChanged, {
          email: target.user.email,
          role_ids_before: [...target.roleIds, ...target.customRoleIds],
          role_ids: [...roles.roleIds, ...roles.customRoleIds],
        }, 'member', actor.memberId));
      }
      if (input.status !== undefined && input.status !== target.status) {
        if (target.status === 'invited') throw ValidationError.forField('body.status', 'an invited member becomes active by accepting the invitation; remove them to cancel it');
        if (input.status === 'disabled') {
          if (target.id === actor.memberId) throw new InvalidRequestError('You cannot disable yourself; ask another member who can manage members.');
          await this.assertKeepsMemberManager(tx, organizationId, target.id, null);
          await tx.session.deleteMany({ where: { organizationId, userId: target.userId } });
        }
        updated = await tx.membership.update({ where: { id: target.id }, data: { status: input.status } });
        await recordAuditEvent(tx, memberEvent(organizationId, target.id, input.status === 'disabled' ? AUDIT_EVENT_TYPES.memberDisabled : AUDIT_EVENT_TYPES.memberEnabled, { email: target.user.email }, 'member', actor.memberId));
      }
      await this.events.stage(tx, message);
      return (await memberRecords(tx, organizationId, [{ ...updated, user: target.user }]))[0]!;
    });
    await this.events.published(message);
    return record;
  }

  /** Removes a member (or cancels an invitation): their sessions in this organization end at once. */
  async remove(actor: SessionPrincipal, memberId: string): Promise<void> {
    const organizationId = actor.organizationId;
    const message = { organizationId };
    await this.db.$transaction(async (tx) => {
      await lockOrganization(tx, organizationId);
      const target = await this.find(tx, organizationId, memberId);
      if (await this.isOwner(tx, organizationId, target.userId)) throw new InvalidRequestError('The owner cannot be removed.');
      assertHoldsAll(actor, await permissionsOfRoles(tx, organizationId, target), 'Removing this member');
      if (target.id === actor.memberId) throw new InvalidRequestError('You cannot remove yourself; ask another member who can manage members.');
      await this.assertKeepsMemberManager(tx, organizationId, target.id, null);
      await tx.session.deleteMany({ where: { organizationId, userId: target.userId } });
      await tx.invitation.updateMany({ where: { organizationId, emailNormalized: target.user.emailNormalized, acceptedAt: null, revokedAt: null }, data: { revokedAt: new Date(this.now()) } });
      await tx.membership.delete({ where: { id: target.id } });
      await recordAuditEvent(tx, memberEvent(organizationId, target.id, AUDIT_EVENT_TYPES.memberRemoved, { email: target.user.email, status: target.status }, 'member', actor.memberId));
      await this.events.stage(tx, message);
    });
    await this.events.published(message);
  }

  /**
   * Refuses a change that would leave no active member able to manage members: `change` gives the
   * member's new roles, or null when the member is disabled or removed.
   */
  private async assertKeepsMemberManager(tx: Tx, organizationId: string, memberId: string, change: { roleIds: string[]; customRoleIds: string[] } | null): Promise<void> {
    const org = await tx.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { ownerUserId: true } });
    const active = await tx.membership.findMany({ where: { organizationId, status: 'active' } });
    const customRoles = await tx.customRole.findMany({ where: { organizationId }, select: { id: true, permissions: true } });
    const canManage = (m: { userId: string; roleIds: string[]; customRoleIds: string[] }) =>
      permissionsOf({ isOwner: m.userId === org.ownerUserId, roleIds: m.roleIds, customRolePermissions: customRoles.filter((r) => m.customRoleIds.includes(r.id)).map((r) => r.permissions) }).includes('manage_members');
    const before = active.filter(canManage).length;
    const after = active.filter((m) => (m.id === memberId ? change !== null && canManage({ ...m, ...change }) : canManage(m))).length;
    if (before > 0 && after === 0) {
      throw new InvalidRequestError('This would leave no active member able to manage members (manage_members): give that permission to another member first.');
    }
  }

  private async find(tx: Tx, organizationId: string, memberId: string): Promise<MembershipWithUser> {
    const row = isUuid(memberId) ? await tx.membership.findFirst({ where: { id: memberId, organizationId }, include: { user: true } }) : null;
    if (!row) throw new NotFoundError('No such member in this organization.');
    return row;
  }

  private async isOwner(tx: Tx, organizationId: string, userId: string): Promise<boolean> {
    const org = await tx.organization.findUnique({ where: { id: organizationId }, select: { ownerUserId: true } });
    return org?.ownerUserId === userId;
  }
}

/** The permissions a set of roles grants (no owner), in catalog order. */
async function permissionsOfRoles(tx: Tx, organizationId: string, roles: { roleIds: string[]; customRoleIds: string[] }): Promise<string[]> {
  const custom = roles.customRoleIds.length === 0 ? [] : await tx.customRole.findMany({ where: { organizationId, id: { in: roles.customRoleIds } }, select: { permissions: true } });
  return permissionsOf({ isOwner: false, roleIds: roles.roleIds, customRolePermissions: custom.map((c) => c.permissions) });
}

/** Member changes of one organization run one after the other, so two cannot remove the last two managers. */
async function lockOrganization(tx: Tx, organizationId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM "organizations" WHERE id = ${organizationId}::uuid FOR UPDATE`;
}

/**
 * Invites a person by email with roles: an invited member and a single-use link valid for 7 days.
 * Inviting someone already invited replaces their link (the old one stops working) and their roles.
 */
export async function inviteMember(db: Db, actor: MemberActor, organizationId: string, input: InviteInput, baseUrl: string, now: () => number = Date.now): Promise<{ member: MemberRecord; invitation: InvitationLink }> {
  const email = validateEmail(input.email);
  const emailNormalized = normalizeEmail(email);
  return db.$transaction(async (tx) => {
    const org = await tx.organization.findUnique({ where: { id: organizationId }, select: { id: true } });
    if (!org) throw new NotFoundError(`No organization ${organizationId}.`);
    const roles = await resolveRoleIds(tx, organizationId, input.role_ids);
    if (actor.kind === 'member') assertHoldsAll(actor.principal, await permissionsOfRoles(tx, organizationId, roles), 'Granting these roles');
    const user = await tx.user.upsert({ where: { emailNormalized }, update: {}, create: { email, emailNormalized, name: '' } });
    const existing = await tx.membership.findUnique({ where: { organizationId_userId: { organizationId, userId: user.id } } });
    if (existing && existing.status !== 'invited') throw new ConflictError(`${email} is already a member of this organization (${existing.status}).`);
    const membership = existing
      ? await tx.membership.update({ where: { id: existing.id }, data: roles })
      : await tx.membership.create({ data: { organizationId, userId: user.id, status: 'invited', ...roles } });
    await tx.invitation.updateMany({ where: { organizationId, emailNormalized, acceptedAt: null, revokedAt: null }, data: { revokedAt: new Date(now()) } });
    const invitation = await issueInvitation(tx, now, organizationId, emailNormalized, roles, false, actor.kind === 'member' ? actor.principal.memberId : null, baseUrl);
    await recordAuditEvent(tx, {
      ...memberEvent(organizationId, membership.id, AUDIT_EVENT_TYPES.memberInvited, { email, role_ids: [...roles.roleIds, ...roles.customRoleIds], invitation_id: invitation.id, expires_at: invitation.expires_at }, actor.kind, actor.kind === 'member' ? actor.principal.memberId : undefined),
    });
    const [record] = await memberRecords(tx, organizationId, [{ ...membership, user }]);
    return { member: record!, invitation: { ...invitation, email } };
  });
}

/**
 * The one-time link that makes its user the owner of an organization that has no owner yet
 * (first run). A new link replaces an unused older one.
 */
export async function createOwnerSetupLink(db: Db, organizationId: string, baseUrl: string, now: () => number = Date.now): Promise<InvitationLink> {
  return db.$transaction(async (tx) => {
    const org = await tx.organization.findUnique({ where: { id: organizationId }, select: { ownerUserId: true } });
    if (!org) throw new NotFoundError(`No organization ${organizationId}.`);
    if (org.ownerUserId) throw new ConflictError('This organization already has its owner; members who can manage members invite new ones (member invite).');
    await tx.invitation.updateMany({ where: { organizationId, makesOwner: true, acceptedAt: null, revokedAt: null }, data: { revokedAt: new Date(now()) } });
    return issueInvitation(tx, now, organizationId, null, { roleIds: ['admin'], customRoleIds: [] }, true, null, baseUrl);
  });
}

async function issueInvitation(tx: Tx, now: () => number, organizationId: string, emailNormalized: string | null, roles: { roleIds: string[]; customRoleIds: string[] }, makesOwner: boolean, invitedBy: string | null, baseUrl: string): Promise<InvitationLink> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now() + INVITATION_LIFETIME_DAYS * 86_400_000);
  const row = await tx.invitation.create({
    data: { organizationId, emailNormalized, tokenHash: hashAccessKey(token), ...roles, makesOwner, invitedByMemberId: invitedBy, createdAt: new Date(now()), expiresAt },
  });
  return { id: row.id, url: invitationUrl(baseUrl, token, emailNormalized !== null), token, email: emailNormalized, expires_at: expiresAt.toISOString() };
}

async function memberRecords(tx: Tx, organizationId: string, rows: MembershipWithUser[]): Promise<MemberRecord[]> {
  const org = await tx.organization.findUnique({ where: { id: organizationId }, select: { ownerUserId: true } });
  const customIds = [...new Set(rows.flatMap((r) => r.customRoleIds))];
  const custom = customIds.length === 0 ? [] : await tx.customRole.findMany({ where: { organizationId, id: { in: customIds } } });
  return rows.map((r) => {
    const isOwner = org?.ownerUserId === r.userId;
    const mine = custom.filter((c) => r.customRoleIds.includes(c.id));
    return {
      id: r.id,
      user_id: r.userId,
      email: r.user.email,
      name: r.user.name,
      status: r.status,
      is_owner: isOwner,
      roles: [
        ...r.roleIds.map((id) => ({ id, name: BUILT_IN_ROLES.find((b) => b.id === id)?.name ?? id, built_in: true })),
        ...mine.map((c) => ({ id: c.id, name: c.name, built_in: false })),
      ],
      permissions: permissionsOf({ isOwner, roleIds: r.roleIds, customRolePermissions: mine.map((c) => c.permissions) }),
      last_sign_in_at: r.lastSignInAt?.toISOString() ?? null,
      two_factor_enabled: r.user.totpEnabledAt !== null,
      created_at: r.createdAt.toISOString(),
    };
  });
}
