import type { KeyPrincipal } from '@patchbay/auth';
import { ServiceUnavailableError, ValidationError } from '@patchbay/errors';
import { isUuid } from '@patchbay/service-kit';
import { Router } from 'express';
import { z } from 'zod';
import { createLinkToken } from '../domain/link-tokens';
import { NO_PUBLIC_URL } from '../domain/public-base-url';
import { afterCommit, type AppServices } from '../services';

const uuid = z.string().refine(isUuid, 'must be a UUID');
const origin = z
  .string()
  .url()
  .refine((v) => /^https?:$/.test(new URL(v).protocol) && new URL(v).origin === v.replace(/\/$/, ''), 'must be an http(s) origin');
const body = z.object({
  organization_id: uuid,
  environment: z.enum(['production', 'test']),
  registered_user_id: uuid,
  connector_slug: z.string().min(1).max(255),
  auth_scope: z.enum(['INDIVIDUAL', 'SHARED', 'ORGANIZATION']),
  /** The key whose tool call needed the link: the audit event names it. */
  acting_key_id: uuid,
  /** The public origin the agent called, as a trusted load balancer named it, for the link when PATCHBAY_PUBLIC_URL is not set. */
  public_base_url: origin.nullish(),
});

/**
 * POST /internal/v1/link-tokens (service token; never through the edge router): a fresh magic link for
 * a user who has not connected a connector a tool call needs, so mcp-runtime can hand it to the agent.
 * 201 `{magic_link_url, expires_at, connector, registered_user_id, auth_scope}` (the token itself is only
 * in the URL); 404 when the user does not exist there; 400 when the connector cannot be linked.
 */
function publicLinkBase(url: string | null | undefined): string {
  if (!url) throw new ServiceUnavailableError(NO_PUBLIC_URL);
  return url.replace(/\/$/, '');
}

export function linkTokensInternalRouter(services: AppServices): Router {
  const router = Router();
  router.post('/link-tokens', async (req, res) => {
    const parsed = body.safeParse(req.body ?? {});
    if (!parsed.success) {
      throw new ValidationError(parsed.error.issues.map((i) => ({ field: ['body', ...i.path.map(String)].join('.'), message: i.message })));
    }
    const input = parsed.data;
    // The runtime already checked the key's restrictions; the link itself carries no callback, so the
    // organization's callback origins do not matter here.
    const principal: KeyPrincipal = {
      keyId: input.acting_key_id,
      organizationId: input.organization_id,
      environment: input.environment,
      scopes: ['runtime:all'],
      toolPackIds: null,
      registeredUserIds: null,
      expiresAt: null,
      isMaster: false,
      serviceAccount: null,
      organization: { id: input.organization_id, plan: 'free', monthlyCredits: 0, environmentMatching: false, mcpRateLimitPerMinute: 0, callbackOrigins: [] },
    };
    const record = await createLinkToken(
      { db: services.db, ttlSeconds: services.config.LINK_TOKEN_TTL_SECONDS },
      principal,
      input.registered_user_id,
      { connector: input.connector_slug, auth_scope: input.auth_scope },
      publicLinkBase(services.config.PATCHBAY_PUBLIC_URL ?? input.public_base_url),
    );
    await afterCommit(services);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json({ magic_link_url: record.magic_link_url, expires_at: record.expires_at, connector: record.connector, registered_user_id: record.registered_user_id, auth_scope: record.auth_scope });
  });
  return router;
}
