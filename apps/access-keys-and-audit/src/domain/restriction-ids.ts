import { SERVICE_TOKEN_HEADER } from '@patchbay/auth';
import { ServiceUnavailableError } from '@patchbay/errors';

/** Which ids a key is to be restricted to do not exist in its organization and environment. */
export interface RestrictionIdChecker {
  missing(query: { organizationId: string; environment: 'production' | 'test'; toolPackIds: string[]; registeredUserIds: string[] }): Promise<{ toolPackIds: string[]; registeredUserIds: string[] }>;
}

export const RESTRICTION_IDS_PATH = '/internal/v1/restriction-ids/check';

/**
 * Asks connector-registry, which owns tool packs and registered users (this service never reads its
 * tables). When the registry does not answer, creating a restricted key is 503: better than a key
 * restricted to ids nobody checked.
 */
export function httpRestrictionIdChecker(options: { baseUrl: string; serviceToken: string; timeoutMs?: number }): RestrictionIdChecker {
  const url = new URL(RESTRICTION_IDS_PATH, options.baseUrl).toString();
  return {
    async missing({ organizationId, environment, toolPackIds, registeredUserIds }) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [SERVICE_TOKEN_HEADER]: options.serviceToken },
          body: JSON.stringify({ organization_id: organizationId, environment, tool_pack_ids: toolPackIds, registered_user_ids: registeredUserIds }),
          signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
        });
      } catch {
        throw new ServiceUnavailableError('Tool pack and registered user ids cannot be checked right now; retry shortly.');
      }
      if (!res.ok) throw new ServiceUnavailableError('Tool pack and registered user ids cannot be checked right now; retry shortly.');
      const answer = (await res.json()) as { missing_tool_pack_ids: string[]; missing_registered_user_ids: string[] };
      return { toolPackIds: answer.missing_tool_pack_ids, registeredUserIds: answer.missing_registered_user_ids };
    },
  };
}
