import { withSpan } from '@patchbay/telemetry';
import { ValidationError } from '@patchbay/errors';
import { isUuid } from '@patchbay/service-kit';
import { Router } from 'express';
import { z } from 'zod';
import { resolvePackTools } from '../domain/pack-tools';
import type { AppServices } from '../services';

const uuid = z.string().refine(isUuid, 'must be a UUID');
const body = z.object({
  organization_id: uuid,
  environment: z.enum(['production', 'test']),
  tool_pack_id: uuid,
  registered_user_id: uuid,
});
const packBody = body.omit({ registered_user_id: true });

function parseBody<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new ValidationError(parsed.error.issues.map((i) => ({ field: ['body', ...i.path.map(String)].join('.'), message: i.message })));
  }
  return parsed.data;
}

/**
 * POST /internal/v1/tool-packs/resolve (service token; never through the edge router): the tools a
 * (tool pack, registered user) pair sees, and where custom connectors' calls go, for mcp-runtime.
 * Body `{organization_id, environment, tool_pack_id, registered_user_id}`; 200 PackTools, or 404
 * `not_found` when the pack or the user does not exist there (alike, so neither can be probed).
 * Also POST /internal/v1/tool-packs/lookup (below).
 */
export function packToolsRouter(services: AppServices): Router {
  const router = Router();
  router.post('/tool-packs/resolve', async (req, res) => {
    const input = parseBody(body, req.body);
    const resolved = await withSpan('PackTools.resolve', () =>
      resolvePackTools(services.db, services.box, {
        organizationId: input.organization_id,
        environment: input.environment,
        toolPackId: input.tool_pack_id,
        registeredUserId: input.registered_user_id,
      }),
    );
    res.setHeader('Cache-Control', 'no-store');
    if (!resolved) {
      res.status(404).json({ detail: 'No such tool pack and registered user in this organization and environment.', code: 'not_found' });
      return;
    }
    res.json(resolved);
  });

  // POST /internal/v1/tool-packs/lookup: whether a tool pack exists in an organization and
  // environment (mcp-runtime checks it before storing a pack's security-rule override).
  // Body `{organization_id, environment, tool_pack_id}`; 200 `{id, name}` or 404 `not_found`.
  router.post('/tool-packs/lookup', async (req, res) => {
    const input = parseBody(packBody, req.body);
    const pack = await services.db.toolPack.findFirst({
      where: { id: input.tool_pack_id, organizationId: input.organization_id, environment: input.environment },
      select: { id: true, name: true },
    });
    res.setHeader('Cache-Control', 'no-store');
    if (!pack) {
      res.status(404).json({ detail: 'No such tool pack in this organization and environment.', code: 'not_found' });
      return;
    }
    res.json(pack);
  });
  return router;
}
