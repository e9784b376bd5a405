import { withSpan } from '@patchbay/telemetry';
import { ValidationError } from '@patchbay/errors';
import { createGuardedFetch } from '@patchbay/outbound';
import { isUuid } from '@patchbay/service-kit';
import { Router } from 'express';
import { z } from 'zod';
import { CredentialResolver, CredentialUnavailableError } from '../domain/credential-resolve';
import { afterCommit, type AppServices } from '../services';

const uuid = z.string().refine(isUuid, 'must be a UUID');
const body = z.object({
  organization_id: uuid,
  environment: z.enum(['production', 'test']),
  tool_pack_id: uuid,
  registered_user_id: uuid,
  connector_slug: z.string().min(1).max(255),
});

/**
 * POST /internal/v1/credentials/resolve (service token; the edge router never exposes /internal):
 * the credential mcp-runtime injects into one tool call. Body `{organization_id, environment,
 * tool_pack_id, registered_user_id, connector_slug}`; 200 `{connection_id, auth_scope, auth_type,
 * credential: {values, access_token?}, expires_at}`. 404 `credential_missing` / `credential_invalid`
 * when the user must authenticate (again); other 404s for an unknown tool pack, a connector the pack
 * does not include, or an unknown user; 503 when a token refresh failed for a reason that may pass.
 */
export function credentialResolveRouter(services: AppServices): Router {
  // Token URLs come from the catalog or the operator's overrides; like the code exchange of the link
  // page, refreshes still go through the guard, so they reach private addresses only when allowed.
  const outboundFetch = createGuardedFetch({ allowPrivateNetwork: services.config.PATCHBAY_ALLOW_PRIVATE_NETWORK });
  const router = Router();
  router.post('/credentials/resolve', async (req, res) => {
    // Built per call (it is a few references) so it always uses the services as they are now.
    const resolver = new CredentialResolver({
      db: services.db,
      redis: services.redis,
      box: services.box,
      oauthOverrides: services.oauthOverrides,
      fetch: outboundFetch,
      afterCommit: (change) => afterCommit(services, change),
    });
    const parsed = body.safeParse(req.body ?? {});
    if (!parsed.success) {
      throw new ValidationError(parsed.error.issues.map((i) => ({ field: ['body', ...i.path.map(String)].join('.'), message: i.message })));
    }
    const input = parsed.data;
    try {
      const resolved = await withSpan('CredentialResolver.resolve', () =>
        resolver.resolve({
          organizationId: input.organization_id,
          environment: input.environment,
          toolPackId: input.tool_pack_id,
          registeredUserId: input.registered_user_id,
          connectorSlug: input.connector_slug,
        }),
      );
      // Never cached anywhere on the way back: it carries a live secret.
      res.setHeader('Cache-Control', 'no-store');
      res.json(resolved);
    } catch (err) {
      if (!(err instanceof CredentialUnavailableError)) throw err;
      res.status(404).json({ detail: err.detail, code: err.code, connection_id: err.connectionId });
    }
  });
  return router;
}
