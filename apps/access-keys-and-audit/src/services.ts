import type { Request } from 'express';
import type { Db } from './db';
import type { AccessKeyService } from './domain/access-keys';
import type { MemberService } from './domain/members/members';
import type { RoleService } from './domain/members/roles';
import type { SessionService, SessionSettings } from './domain/members/sessions';

/** What controllers need, set once on `app.locals.services` at boot (tests pass real instances too). */
export interface AppServices {
  db: Db;
  accessKeys: AccessKeyService;
  sessions: SessionService;
  sessionSettings: SessionSettings;
  members: MemberService;
  roles: RoleService;
  publicBaseUrl?: string;
}

export function servicesOf(req: Request): AppServices {
  return req.app.locals.services as AppServices;
}
