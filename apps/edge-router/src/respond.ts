import type { ServerResponse } from 'node:http';
import { AppError, NotFoundError, toErrorEnvelope } from '@patchbay/errors';

/** Writes a JSON body with an exact Content-Length (the edge's own answers are small and complete). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': payload.length });
  res.end(payload);
}

/** Renders an AppError in the platform's one envelope, `{detail, code}`, with the headers it carries. */
export function sendError(res: ServerResponse, error: AppError): void {
  sendJson(res, error.status, toErrorEnvelope(error), { 'cache-control': 'no-store', ...(error.headers ?? {}) });
}

/** The same answer as @patchbay/errors' notFoundHandler gives inside a service. */
export function notFound(method: string, path: string): NotFoundError {
  return new NotFoundError(`No route matches ${method} ${path}.`);
}

export function methodNotAllowed(method: string, path: string, allowed: string[]): AppError {
  return new AppError('method_not_allowed', `${path} does not accept ${method}; use ${allowed.join(' or ')}.`, { headers: { allow: allowed.join(', ') } });
}
