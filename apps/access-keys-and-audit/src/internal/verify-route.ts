import { requireServiceToken, type MemberSessionPrincipal } from '@patchbay/auth';
import { AuthenticationError, ValidationError } from '@patchbay/errors';
import { Router } from 'express';
import type { Db } from '../db';
import { loadPrincipalByHash } from '../domain/access-keys';
import { loadManagementPrincipal, loadOrganizationSettings } from '../domain/management-keys';
import { listOrganizationRetention } from '../domain/organizations';
import type { SessionService } from '../domain/members/sessions';

/**
 * Internal routes for the other services (service token, never exposed by the edge router):
 * POST /internal/v1/access-keys/verify {key_hash} → the key's principal, or 404 when no active key has that hash.
 * POST /internal/v1/sessions/verify {token_hash} → a member's console session as the other services act
 * on it (member, organization and its settings, environment, permissions), or 404 when it has ended.
 * GET /internal/v1/organizations/retention → the organizations with a retention of their own
 * (audit_retention_days), which mcp-runtime's sweep applies to tool-call records as this service does to audit events.
 * Only the hash is sent, so raw keys and session tokens never travel between services.
 */
export function internalRouter(db: Db, serviceToken: string, sessions?: SessionService): Router {
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
  router.post('/sessions/verify', async (req, res) => {
    const tokenHash = (req.body as { token_hash?: unknown } | undefined)?.token_hash;
    if (typeof tokenHash !== 'string' || !/^[0-9a-f]{64}$/.test(tokenHash)) {
      throw ValidationError.forField('body.token_hash', 'must be the SHA-256 hex digest of the session token');
    }
    const ended = () => res.status(404).json({ detail: 'No active session has this hash.', code: 'not_found' });
    if (!sessions) return ended();
    let session;
    try {
      // The same checks as this service's own routes (ended, idle, expired, member no longer active); records the use.
      session = await sessions.authenticateHash(tokenHash);
    } catch (err) {
      if (err instanceof AuthenticationError) return ended();
      throw err;
    }
    const organization = await loadOrganizationSettings(db, session.organizationId);
    if (!organization) return ended();
    const principal: MemberSessionPrincipal = {
      keyId: session.keyId,
      organizationId: session.organizationId,
      environment: session.environment,
      expiresAt: session.expiresAt,
      memberId: session.memberId,
      userId: session.userId,
      email: session.email,
      permissions: session.permissions,
      organization,
      lastSeenAtMs: session.lastSeenAtMs,
      idleTimeoutSeconds: session.idleTimeoutSeconds,
    };
    return res.json(principal);
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
  // Before /organizations/:organizationId, which would take "retention" for an id.
  router.get('/organizations/retention', async (_req, res) => {
    res.json(await listOrganizationRetention(db));
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
