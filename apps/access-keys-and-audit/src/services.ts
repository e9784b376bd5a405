import type { Request } from 'express';
import type { Db } from './db';
import type { AccessKeyService } from './domain/access-keys';

/** What controllers need, set once on `app.locals.services` at boot (tests pass real instances too). */
export interface AppServices {
  db: Db;
  accessKeys: AccessKeyService;
  publicBaseUrl?: string;
}

export function servicesOf(req: Request): AppServices {
  return req.app.locals.services as AppServices;
}
