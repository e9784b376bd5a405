import { authenticate } from '@patchbay/auth';
import { ValidationError } from '@patchbay/errors';
import { ToolIndex, toSearchResponse, validateSearchRequest, type SearchableTool } from '@patchbay/tool-search';
import { Router } from 'express';
import type { PackTools, RegistryClient } from '../domain/registry-client';
import { loadPair } from './mcp-endpoint';

export const SEARCH_PATH = '/api/v1/tool-packs/:toolPackId/registered-users/:registeredUserId/search';

/** Indexes are built per tool list; a pair's list object is reused while the registry cache holds it. */
const indexes = new WeakMap<PackTools, ToolIndex>();

function indexOf(pack: PackTools): ToolIndex {
  let index = indexes.get(pack);
  if (!index) {
    const tools: SearchableTool[] = pack.tools.map((t) => ({
      fully_qualified_name: t.fully_qualified_name,
      connector_slug: t.connector_slug,
      connector_name: t.connector_name,
      name: t.name,
      description: t.description,
      input_schema: t.input_schema,
    }));
    index = new ToolIndex(tools);
    indexes.set(pack, index);
  }
  return index;
}

/**
 * POST .../search: the tools of this pack, for this user, ranked for an intent (spec: Tool search).
 * Only tools the pack shows; free, like tools/list.
 */
export function searchRouter(registry: RegistryClient): Router {
  const router = Router();
  router.post(SEARCH_PATH, authenticate('runtime:all', { permission: 'view_tool_packs' }), async (req, res) => {
    const parsed = validateSearchRequest(req.body);
    if ('errors' in parsed) throw new ValidationError(parsed.errors);
    const pack = await loadPair(req, registry);
    const result = indexOf(pack).search(parsed.intent, { maxResults: parsed.max_results, connectorSlugs: parsed.connector_slugs ?? undefined });
    res.json(toSearchResponse(parsed.intent, result));
  });
  return router;
}
