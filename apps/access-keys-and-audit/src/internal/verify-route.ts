import { requireServiceToken } from '@patchbay/auth';
import { ValidationError } from '@patchbay/errors';
import { Router } from 'express';
import type { Db } from '../db';
import { loadPrincipalByHash } from '../domain/access-keys';
import { loadManagementPrincipal, loadOrganizationSettings } from '../domain/management-keys';

/**
 * Internal routes for the other services (service token, never exposed by the edge router):
 * POST /internal/v1/access-keys/verify {key_hash} → the key's principal, or 404 when no active key has that hash.
 * Only the hash is sent, so raw keys never travel between services.
 */
export function internalRouter(db: Db, serviceToken: string): Router {
  const router = Router();
  router.use(requireServiceToken(serviceToken));
  router.post('/access-keys/verify', async (req, res) => {
    const keyHash = (req.body as { key_hash?: unknown } | undefined)?.key_hash;
    if (typeof keyHash !== 'string' || !/^[0-9a-f]{64}$/.test(keyHash)) {
      throw ValidationError.forField('body.key_hash', 'must be the SHA-256 hex digest of the key');
    }
    const principal = await loadPrincipalByHash(db, keyHash);
    if (!principal || (principal.expiresAt && Date.parse(principal.expiresAt) <= Date.now())) {
      res.status(404).json({ detail: 'No active key has this hash.', code: 'not_found' });
      return;
    }
    res.json(principal);
  });
  // The model gateway's management keys, and the settings of organizations whose gateway keys it holds.
  router.post('/management-keys/verify', async (req, res) => {
    const keyHash = (req.body as { key_hash?: unknown } | undefined)?.key_hash;
    if (typeof keyHash !== 'string' || !/^[0-9a-f]{64}$/.test(keyHash)) {
      throw ValidationError.forField('body.key_hash', 'must be the SHA-256 hex digest of the key');
    }
    const principal = await loadManagementPrincipal(db, keyHash);
    if (!principal) {
      res.status(404).json({ detail: 'No active management key has this hash.', code: 'not_found' });
      return;
    }
    res.json(principal);
  });
  router.get('/organizations/:organizationId', async (req, res) => {
    const settings = await loadOrganizationSettings(db, req.params.organizationId);
    if (!settings) {
      res.status(404).json({ detail: 'No such organization.', code: 'not_found' });
      return;
    }
    res.json(settings);
  });
  return router;
}
