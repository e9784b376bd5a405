/**
 * The public route table: which service answers which URL. This is the only place that knows it.
 *
 * A pattern matches a request path when the path's first segments equal the pattern's segments
 * (so `/api/v1/access-keys` matches `/api/v1/access-keys/`, `/api/v1/access-keys/{id}/revoke/`,
 * but never `/api/v1/access-keysX`). A `{name}` segment matches any one non-empty segment: the owning
 * service validates its ids and answers in its own error shape, rather than the edge guessing.
 * Rows are tried in order, so more specific patterns come first.
 *
 * The edge's own endpoints (`/healthz`, `/openapi.json`, `/docs`) are answered before this table,
 * and `/internal/...` is refused before it as well: nothing here may ever start with `/internal`.
 *
 * To add a service: add its name to SERVICES, its base URL variable to config.ts, and its rows here.
 */

export const SERVICES = ['access-keys-and-audit', 'connector-registry', 'mcp-runtime', 'model-gateway', 'unified-data', 'console'] as const;

export type ServiceName = (typeof SERVICES)[number];

/** The services with an API, whose OpenAPI documents the edge merges; the console serves pages only. */
export const API_SERVICES: readonly ServiceName[] = SERVICES.filter((name) => name !== 'console');

export interface RouteRow {
  pattern: string;
  service: ServiceName;
}

export const ROUTE_TABLE: readonly RouteRow[] = [
  // MCP endpoint, its list-only variant and tool search live in the runtime, not with the tool pack records.
  { pattern: '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/mcp', service: 'mcp-runtime' },
  { pattern: '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/search', service: 'mcp-runtime' },
  { pattern: '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/tools/list', service: 'mcp-runtime' },
  // A pack's view of the organization's security rules, and its overrides of them, are the runtime's data.
  { pattern: '/api/v1/tool-packs/{tool_pack_id}/security-rules', service: 'mcp-runtime' },
  { pattern: '/api/v1/tool-call-records', service: 'mcp-runtime' },
  { pattern: '/api/v1/security-rules', service: 'mcp-runtime' },
  { pattern: '/api/v1/usage', service: 'mcp-runtime' },

  { pattern: '/api/v1/access-keys', service: 'access-keys-and-audit' },
  { pattern: '/api/v1/audit-log', service: 'access-keys-and-audit' },
  // Console members: sign-in and sessions, invitations, members, roles and the permission catalog.
  { pattern: '/api/v1/session', service: 'access-keys-and-audit' },
  { pattern: '/api/v1/invitations', service: 'access-keys-and-audit' },
  { pattern: '/api/v1/members', service: 'access-keys-and-audit' },
  { pattern: '/api/v1/roles', service: 'access-keys-and-audit' },
  { pattern: '/api/v1/permissions', service: 'access-keys-and-audit' },
  // The member's own account (password, two-factor), single sign-on and the two-factor requirement.
  { pattern: '/api/v1/account', service: 'access-keys-and-audit' },
  { pattern: '/api/v1/sso', service: 'access-keys-and-audit' },
  { pattern: '/api/v1/two-factor-policy', service: 'access-keys-and-audit' },
  // The console's management keys and organization settings.
  { pattern: '/api/v1/management-keys', service: 'access-keys-and-audit' },
  { pattern: '/api/v1/organization', service: 'access-keys-and-audit' },

  { pattern: '/api/v1/connectors', service: 'connector-registry' },
  { pattern: '/api/v1/application-credentials', service: 'connector-registry' },
  { pattern: '/api/v1/credentials', service: 'connector-registry' },
  { pattern: '/api/v1/registered-users', service: 'connector-registry' },
  { pattern: '/api/v1/connections', service: 'connector-registry' },
  { pattern: '/api/v1/tool-packs', service: 'connector-registry' },
  // Magic-link pages a registered user opens in a browser.
  { pattern: '/link', service: 'connector-registry' },

  { pattern: '/api/mktg/v1', service: 'unified-data' },
  { pattern: '/v1', service: 'model-gateway' },

  // The web console's pages (its API calls go to the services above, like any other caller's).
  { pattern: '/console', service: 'console' },
];

type CompiledSegment = { kind: 'literal'; value: string } | { kind: 'param' };

interface CompiledRoute {
  segments: CompiledSegment[];
  service: ServiceName;
}

function compile(pattern: string): CompiledSegment[] {
  if (!pattern.startsWith('/')) throw new Error(`Route pattern must start with "/": ${pattern}`);
  return pattern
    .slice(1)
    .split('/')
    .map((segment) => (/^\{[A-Za-z0-9_]+\}$/.test(segment) ? { kind: 'param' } : { kind: 'literal', value: segment }));
}

export class RouteTable {
  private readonly routes: CompiledRoute[];

  constructor(rows: readonly RouteRow[] = ROUTE_TABLE) {
    this.routes = rows.map((row) => {
      const segments = compile(row.pattern);
      const first = segments[0];
      if (first?.kind === 'literal' && first.value.toLowerCase() === 'internal') {
        throw new Error(`Internal routes are never public: ${row.pattern}`);
      }
      return { segments, service: row.service };
    });
  }

  /**
   * The service owning a path, given as its decoded segments (no leading empty segment;
   * a trailing slash may leave a final empty segment, which is ignored).
   */
  match(segments: readonly string[]): ServiceName | undefined {
    for (const route of this.routes) {
      if (matches(route.segments, segments)) return route.service;
    }
    return undefined;
  }

  /** The owner of an OpenAPI path template such as `/api/v1/access-keys/{key_id}/`. */
  matchTemplate(pathTemplate: string): ServiceName | undefined {
    if (!pathTemplate.startsWith('/')) return undefined;
    return this.match(pathTemplate.slice(1).split('/'));
  }
}

function matches(pattern: CompiledSegment[], segments: readonly string[]): boolean {
  if (segments.length < pattern.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const actual = segments[i]!;
    if (expected.kind === 'literal' ? actual !== expected.value : actual === '') return false;
  }
  return true;
}
