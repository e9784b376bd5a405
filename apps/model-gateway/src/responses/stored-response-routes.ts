import { beginRequest, type Logger } from '@patchbay/service-kit';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, sendModelError } from '../http/errors';
import { sendJson } from '../http/json-body';
import { authenticateModelCaller, type Caller } from '../keys/callers';
import type { ModelDeps } from '../model/model-request';
import type { ResponseStore } from './response-store';
import { scopeOf } from './stored-turns';

/** `GET|DELETE /v1/responses/{id}` (native) and `/v1/openai/responses/{id}` (the OpenAI SDK's responses.retrieve and responses.delete). */
const PATH = /^\/v1(\/openai)?\/responses\/([^/?]+)$/;

export interface StoredResponseDeps {
  store: ResponseStore;
  model: Pick<ModelDeps, 'caches' | 'rateLimitHeaders'>;
  logger: Logger;
}

function notFound(id: string): GatewayError {
  return new GatewayError(404, 'not_found_error', `No stored response "${id.slice(0, 80)}" in this organization and environment: it was never stored (store: true, with the organization's response store on), was deleted, or expired an hour after its last use.`, 'response_not_found', undefined, 'response_id');
}

/**
 * Reading and deleting stored turns. Served outside express like the model endpoints (the same key
 * check, envelope and X-Request-Id); neither is billed nor counted as a model request.
 */
export function storedResponseEndpoints(deps: StoredResponseDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'DELETE') return false;
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const match = PATH.exec(query === -1 ? url : url.slice(0, query));
    if (!match) return false;
    const surface = match[1] ? 'openai-responses' : 'native-responses';
    let id: string;
    try {
      id = decodeURIComponent(match[2]!);
    } catch {
      id = match[2]!;
    }
    const requestId = beginRequest(deps.logger, req, res);
    let caller: Caller | null = null;
    const headers = async () => (caller && deps.model.rateLimitHeaders ? deps.model.rateLimitHeaders.of(caller) : {});
    const serve = async (): Promise<void> => {
      caller = await authenticateModelCaller(req, deps.model.caches);
      const scope = scopeOf(caller);
      if (req.method === 'DELETE') {
        if (!(await deps.store.delete(scope, id))) throw notFound(id);
        sendJson(res, 200, await headers(), { id, object: 'response.deleted', deleted: true });
        return;
      }
      const turn = await deps.store.get(scope, id);
      if (!turn) throw notFound(id);
      if (surface === 'openai-responses') {
        sendJson(res, 200, await headers(), turn.response);
        return;
      }
      sendJson(res, 200, await headers(), {
        id: turn.id,
        object: 'response.stored',
        created_at: new Date(turn.createdAt * 1000).toISOString(),
        model: turn.model,
        vendor: turn.vendor,
        previous_response_id: turn.previousResponseId,
        input: turn.input,
        output: turn.response.output ?? [],
      });
    };
    serve().catch(async (err: unknown) => {
      if (!(err instanceof GatewayError)) deps.logger.error({ request_id: requestId, err: err instanceof Error ? { type: err.name, message: err.message } : { type: typeof err } }, 'stored response request failed');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const rateLimit = await headers();
      if (!res.headersSent) sendModelError(res, surface, err, rateLimit);
    });
    return true;
  };
}
