import type { KeyPrincipal } from '@patchbay/auth';
import type { Request, Response } from 'express';

/**
 * Browser origins and the MCP endpoint. The transport requires a server to validate `Origin` and
 * answer 403 to an invalid one (DNS rebinding: a web page steering a browser at the endpoint).
 * Agents, SDKs and servers send no Origin and are unaffected. A request that carries one is allowed
 * only when the organization listed that exact origin (`--mcp-allowed-origin` of `pnpm patchbay
 * org update`); by default none is, not even Patchbay's own, so no web page can drive the endpoint
 * with a key unless an administrator said so. `Origin: null` (sandboxed frames, file pages) never is.
 * A member's session is the exception: it only reaches here from Patchbay's own origin.
 */
export function allowedOrigin(origin: string, principal: KeyPrincipal): boolean {
  // A member's console session (the playground): authentication already required Patchbay's own Origin
  // and the anti-forgery token, and the cookie is never sent cross-site (SameSite=Lax, no CORS credentials).
  if (principal.member) return true;
  return principal.organization.mcpAllowedOrigins?.includes(origin) ?? false;
}

export function forbiddenOrigin(res: Response, origin: string): void {
  const shown = origin.slice(0, 200);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    error: {
      code: -32600,
      message: `Forbidden: requests from the browser origin ${JSON.stringify(shown)} are not allowed on this MCP endpoint. An administrator can allow it with: pnpm patchbay org update <organization_id> --mcp-allowed-origin <origin>.`,
    },
  });
  res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), vary: 'Origin' });
  res.end(body);
}

/** Headers a browser needs to read an answer given to an allowed origin. */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-expose-headers': 'Mcp-Session-Id, MCP-Protocol-Version, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id',
  };
}

/**
 * CORS preflight. It carries no key, so it cannot know the organization: it is answered for any
 * origin, and the request that follows is refused with 403 unless the key's organization allows it
 * (the browser then sees no Access-Control-Allow-Origin and hands the page nothing).
 */
export function preflight(req: Request, res: Response): void {
  const origin = req.headers.origin;
  if (origin === undefined) {
    res.setHeader('Allow', 'POST, OPTIONS');
    res.status(204).end();
    return;
  }
  res.set({
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-allow-methods': 'POST',
    'access-control-allow-headers': 'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID',
    'access-control-max-age': '600',
  });
  res.status(204).end();
}
