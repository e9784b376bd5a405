import { withSpan } from '@patchbay/telemetry';
import { ValidationError } from '@patchbay/errors';
import { isUuid } from '@patchbay/service-kit';
import { Router } from 'express';
import { z } from 'zod';
import type { AppServices } from '../services';

const uuid = z.string().refine(isUuid, 'must be a UUID');
const body = z.object({
  organization_id: uuid,
  environment: z.enum(['production', 'test']),
  tool_pack_ids: z.array(uuid).max(1000).default([]),
  registered_user_ids: z.array(uuid).max(1000).default([]),
});

/**
 * POST /internal/v1/restriction-ids/check (service token; never through the edge router): which of
 * the tool pack and registered user ids an access key is to be restricted to do not exist in the
 * organization and environment. access-keys-and-audit asks before it creates a restricted key.
 * Body `{organization_id, environment, tool_pack_ids, registered_user_ids}`;
 * 200 `{missing_tool_pack_ids, missing_registered_user_ids}`.
 */
export function restrictionIdsRouter(services: AppServices): Router {
  const router = Router();
  router.post('/restriction-ids/check', async (req, res) => {
    const parsed = body.safeParse(req.body ?? {});
    if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => ({ field: ['body', ...i.path.map(String)].join('.'), message: i.message })));
    const { organization_id: organizationId, environment, tool_pack_ids: toolPackIds, registered_user_ids: userIds } = parsed.data;
    const [packs, users] = await withSpan('RestrictionIds.check', () =>
      Promise.all([
        toolPackIds.length === 0 ? [] : services.db.toolPack.findMany({ where: { organizationId, environment, id: { in: toolPackIds } }, select: { id: true } }),
        userIds.length === 0 ? [] : services.db.registeredUser.findMany({ where: { organizationId, environment, id: { in: userIds } }, select: { id: true } }),
      ]),
    );
    const foundPacks = new Set(packs.map((p) => p.id));
    const foundUsers = new Set(users.map((u) => u.id));
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      missing_tool_pack_ids: toolPackIds.filter((id) => !foundPacks.has(id)),
      missing_registered_user_ids: userIds.filter((id) => !foundUsers.has(id)),
    });
  });
  return router;
}
