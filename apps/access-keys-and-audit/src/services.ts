import type { Request } from 'express';
import type { Db } from './db';
import type { AccessKeyService } from './domain/access-keys';
import type { MemberService } from './domain/members/members';
import type { RoleService } from './domain/members/roles';
import type { PendingSignIns } from './domain/members/pending-sign-in';
import type { SessionService, SessionSettings } from './domain/members/sessions';
import type { SignInThrottle } from './domain/members/sign-in-throttle';
import type { TwoFactorService } from './domain/members/two-factor';
import type { SsoService } from './domain/sso/sso';

/** What controllers need, set once on `app.locals.services` at boot (tests pass real instances too). */
export interface AppServices {
  db: Db;
  accessKeys: AccessKeyService;
  sessions: SessionService;
  sessionSettings: SessionSettings;
  members: MemberService;
  roles: RoleService;
  twoFactor: TwoFactorService;
  pendingSignIns: PendingSignIns;
  signInThrottle: SignInThrottle;
  sso: SsoService;
  publicBaseUrl?: string;
  /** Publishes the cache invalidations a change wrote to the outbox (a revoked management key). */
  publishInvalidations: () => Promise<void>;
  /** After an organization's settings changed: this process's caches and every other service's drop them. */
  organizationChanged: (organizationId: string) => Promise<void>;
}

export function servicesOf(req: Request): AppServices {
  return req.app.locals.services as AppServices;
}
