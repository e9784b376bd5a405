import type { Environment } from '@patchbay/auth';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import type { SessionPrincipal } from '../../domain/members/session-principal';
import { PENDING_SIGN_IN_SECONDS } from '../../domain/members/pending-sign-in';
import type { SignInOutcome } from '../../domain/members/sessions';
import { csrfTokenFor, setPendingSignInCookie, setSessionCookie } from '../../http/session-http';
import { servicesOf } from '../../services';

/** The signed-in member as the console sees them. */
export interface SessionView {
  member: {
    /** The member's id in this organization. */
    id: string;
    user_id: string;
    email: string;
    name: string;
    is_owner: boolean;
  };
  organization: { id: string; name: string };
  /** Every organization the person may switch to. */
  organizations: { id: string; name: string }[];
  environment: Environment;
  /** The permission codenames the member holds here, in catalog order. */
  permissions: string[];
  /** Send it as X-CSRF-Token on every state-changing request. */
  csrf_token: string;
  /** When the session ends without further activity. */
  idle_expires_at: string;
  /** When the session ends whatever the activity. */
  expires_at: string;
}

export async function sessionView(req: ExpressRequest, principal: SessionPrincipal, token: string): Promise<SessionView> {
  return {
    member: { id: principal.memberId, user_id: principal.userId, email: principal.email, name: principal.name, is_owner: principal.isOwner },
    organization: { id: principal.organizationId, name: principal.organizationName },
    organizations: await servicesOf(req).sessions.organizationsOf(principal.userId),
    environment: principal.environment,
    permissions: principal.permissions,
    csrf_token: csrfTokenFor(token),
    idle_expires_at: new Date(principal.lastSeenAtMs + principal.idleTimeoutSeconds * 1000).toISOString(),
    expires_at: principal.expiresAt,
  };
}

/** Answer to a sign-in whose second factor is due: no session yet (an HttpOnly cookie holds the pending sign-in). */
export interface TwoFactorRequired {
  two_factor_required: true;
  /** True when the organization requires two-factor and the person has none yet: enrol first (POST /api/v1/session/two-factor/enrolment). */
  enrol: boolean;
  message: string;
}

/** A session, or the second step a sign-in still needs. */
export async function answerSignIn(req: ExpressRequest, outcome: SignInOutcome): Promise<SessionView | TwoFactorRequired> {
  const services = servicesOf(req);
  if (outcome.kind === 'session') return startSession(req, outcome);
  setPendingSignInCookie(req, req.res as ExpressResponse, outcome.pendingToken, PENDING_SIGN_IN_SECONDS, services.publicBaseUrl);
  return {
    two_factor_required: true,
    enrol: outcome.enrol,
    message: outcome.enrol
      ? 'Your organization requires two-factor sign-in: set up an authenticator app (POST /api/v1/session/two-factor/enrolment), then send its code to POST /api/v1/session/two-factor.'
      : 'Send the 6-digit code from your authenticator app (or a recovery code) to POST /api/v1/session/two-factor.',
  };
}

/** Sets the new session's cookie and answers with the session. */
export async function startSession(req: ExpressRequest, issued: { token: string; principal: SessionPrincipal }): Promise<SessionView> {
  const services = servicesOf(req);
  setSessionCookie(req, req.res as ExpressResponse, issued.token, services.sessionSettings.absoluteTimeoutSeconds, services.publicBaseUrl);
  return sessionView(req, issued.principal, issued.token);
}
