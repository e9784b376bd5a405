import type { Router } from 'express';
import { linkPageRouter } from './pages/link/link-router';
import type { AppServices } from './services';

/** Internal routes (/internal/v1, service token) of each feature. */
export function internalRouters(_services: AppServices): Router[] {
  return [];
}

/** Browser pages served through the edge router (the magic link). */
export function pageRouters(services: AppServices): Router[] {
  return [linkPageRouter(services)];
}
