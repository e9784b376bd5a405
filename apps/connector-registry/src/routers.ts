import type { Router } from 'express';
import { credentialResolveRouter } from './internal/credential-resolve';
import { linkTokensInternalRouter } from './internal/link-tokens';
import { packToolsRouter } from './internal/pack-tools';
import { restrictionIdsRouter } from './internal/restriction-ids';
import { linkPageRouter } from './pages/link/link-router';
import type { AppServices } from './services';

/** Internal routes (/internal/v1, service token) of each feature. */
export function internalRouters(services: AppServices): Router[] {
  return [credentialResolveRouter(services), packToolsRouter(services), linkTokensInternalRouter(services), restrictionIdsRouter(services)];
}

/** Browser pages served through the edge router (the magic link). */
export function pageRouters(services: AppServices): Router[] {
  return [linkPageRouter(services)];
}
