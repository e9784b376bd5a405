import createClient from 'openapi-fetch';
import { apiBasePath } from '../config';
import type { paths as GatewayPaths } from './generated/model-gateway';

/** The model surfaces the request tester calls: a gateway key's endpoints, never a session's. */
type ModelPaths = Pick<GatewayPaths, '/v1/responses' | '/v1/chat/completions' | '/v1/messages'>;

/**
 * A second typed client for the request tester's model calls only. Model endpoints take a gateway key,
 * which the member pastes for one request: the console keeps it in the page's memory and nowhere else.
 * `credentials: 'omit'` sends no session cookie (sessions cannot make model calls), and it has none of
 * the console client's middleware: a 401 here is the key's answer to show, not an expired session.
 */
export const modelApi = createClient<ModelPaths>({ baseUrl: new URL(apiBasePath, window.location.origin).href.replace(/\/$/, ''), credentials: 'omit' });
