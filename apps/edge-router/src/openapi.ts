import type { Upstream } from './proxy';
import { API_SERVICES, type RouteTable, SERVICES, type ServiceName } from './routes';
import { getFromService } from './service-request';

type JsonObject = Record<string, unknown>;

export interface ServiceDocument {
  service: ServiceName;
  document: JsonObject;
}

/** The merged document without `servers`, which depend on how each client reached the edge. */
export interface MergedOpenApi {
  openapi: string;
  info: JsonObject;
  paths: JsonObject;
  components: Record<string, JsonObject>;
  tags: JsonObject[];
  'x-patchbay-unavailable': ServiceName[];
}

const OPERATION_KEYS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

/**
 * Fetches every deployed service's OpenAPI document and merges them, reusing the result for a few
 * seconds so that a docs page opened by many people does not fan out to every service each time.
 */
export class OpenApiCatalog {
  private cached: { at: number; merged: MergedOpenApi } | undefined;
  private inflight: Promise<MergedOpenApi> | undefined;

  constructor(
    private readonly upstreams: ReadonlyMap<ServiceName, Upstream>,
    private readonly routes: RouteTable,
    private readonly options: { timeoutMs: number; cacheMs: number; now?: () => number },
  ) {}

  async get(requestId: string): Promise<MergedOpenApi> {
    const now = (this.options.now ?? Date.now)();
    if (this.cached && now - this.cached.at < this.options.cacheMs) return this.cached.merged;
    this.inflight ??= this.load(requestId).then(
      (merged) => {
        this.cached = { at: (this.options.now ?? Date.now)(), merged };
        this.inflight = undefined;
        return merged;
      },
      (error: unknown) => {
        this.inflight = undefined;
        throw error;
      },
    );
    return this.inflight;
  }

  private async load(requestId: string): Promise<MergedOpenApi> {
    const documents: ServiceDocument[] = [];
    const unavailable: ServiceName[] = [];
    await Promise.all(
      API_SERVICES.map(async (service) => {
        const upstream = this.upstreams.get(service);
        if (!upstream) return;
        try {
          const answer = await getFromService(upstream, '/openapi.json', { timeoutMs: this.options.timeoutMs, maxBytes: MAX_DOCUMENT_BYTES, requestId });
          const document: unknown = answer.status === 200 ? JSON.parse(answer.body.toString('utf8')) : undefined;
          if (!isObject(document) || !isObject(document.paths)) throw new Error('not an OpenAPI document');
          documents.push({ service, document });
        } catch {
          unavailable.push(service);
        }
      }),
    );
    return mergeOpenApi(documents, unavailable, this.routes);
  }
}

/**
 * Merges the services' documents into one: each service contributes only the paths the edge actually
 * routes to it (so `/internal/...`, and a service's own /healthz, never appear), the components those
 * paths reach, and its tags. Same-named components with different content are renamed after their service.
 */
export function mergeOpenApi(documents: ServiceDocument[], unavailable: ServiceName[], routes: RouteTable): MergedOpenApi {
  const ordered = [...documents].sort((a, b) => SERVICES.indexOf(a.service) - SERVICES.indexOf(b.service));
  const merged: MergedOpenApi = {
    openapi: ordered.length > 0 && ordered.every(({ document }) => String(document.openapi ?? '').startsWith('3.1')) ? '3.1.0' : '3.0.3',
    info: {
      title: 'Patchbay API',
      version: '1.0.0',
      description: 'Every public endpoint of this Patchbay installation, merged from the services deployed behind the edge router.',
    },
    paths: {},
    components: {},
    tags: [],
    'x-patchbay-unavailable': SERVICES.filter((service) => unavailable.includes(service)),
  };

  for (const { service, document } of ordered) {
    const paths = publicPaths(service, document, routes, merged.paths);
    const components = reachableComponents(paths, isObject(document.components) ? document.components : {});
    const renames = planRenames(service, components, merged.components);
    const schemeRenames = new Map<string, string>();
    for (const [ref, renamed] of renames) {
      const prefix = '#/components/securitySchemes/';
      if (ref.startsWith(prefix)) schemeRenames.set(ref.slice(prefix.length), renamed.slice(prefix.length));
    }
    const rewrite = (value: unknown) => rewriteReferences(value, renames, schemeRenames);
    for (const [section, entries] of Object.entries(components)) {
      const target = (merged.components[section] ??= {});
      for (const [name, value] of Object.entries(entries)) {
        const renamed = renames.get(`#/components/${section}/${name}`);
        if (renamed !== undefined) target[lastSegment(renamed)] = rewrite(value);
        else if (target[name] === undefined) target[name] = rewrite(value);
        // Otherwise an identical component from an earlier service is already there.
      }
    }
    const serviceSecurity = Array.isArray(document.security) ? document.security : undefined;
    for (const [path, item] of Object.entries(paths)) {
      merged.paths[path] = rewrite(withOperationSecurity(item, serviceSecurity));
    }
    for (const tag of Array.isArray(document.tags) ? document.tags : []) {
      if (isObject(tag) && typeof tag.name === 'string' && !merged.tags.some((t) => t.name === tag.name)) merged.tags.push(tag);
    }
  }
  return merged;
}

/** The full document a client receives, with servers naming the address it used. */
export function withServers(merged: MergedOpenApi, baseUrl: string | undefined): JsonObject {
  const { openapi, info, paths, components, tags } = merged;
  return { openapi, info, servers: [{ url: baseUrl ?? '/' }], paths, components, tags, 'x-patchbay-unavailable': merged['x-patchbay-unavailable'] };
}

function publicPaths(service: ServiceName, document: JsonObject, routes: RouteTable, alreadyMerged: JsonObject): Record<string, JsonObject> {
  const kept: Record<string, JsonObject> = {};
  for (const [path, item] of Object.entries(document.paths as JsonObject)) {
    if (!isObject(item) || isInternalPath(path)) continue;
    if (routes.matchTemplate(path) !== service || path in alreadyMerged) continue;
    kept[path] = withoutServers(item);
  }
  return kept;
}

function isInternalPath(path: string): boolean {
  const first = path.replace(/^\/+/, '').split('/')[0] ?? '';
  let decoded = first;
  try {
    decoded = decodeURIComponent(first);
  } catch {
    // An undecodable first segment is not "internal"; the route table rejects it anyway.
  }
  return decoded.toLowerCase() === 'internal';
}

/** Path- and operation-level `servers` in a service's document name its private address. */
function withoutServers(item: JsonObject): JsonObject {
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === 'servers') continue;
    copy[key] = OPERATION_KEYS.includes(key) && isObject(value) ? omitKey(value, 'servers') : value;
  }
  return copy;
}

/** A service's document-wide `security` applies to its operations only; the merged document has no global one. */
function withOperationSecurity(item: JsonObject, security: unknown[] | undefined): JsonObject {
  if (!security) return item;
  const copy: JsonObject = { ...item };
  for (const key of OPERATION_KEYS) {
    const operation = copy[key];
    if (isObject(operation) && operation.security === undefined) copy[key] = { ...operation, security };
  }
  return copy;
}

/** The components the kept paths refer to, directly or through other components; security schemes always. */
function reachableComponents(paths: Record<string, JsonObject>, components: JsonObject): Record<string, JsonObject> {
  const kept: Record<string, JsonObject> = {};
  if (isObject(components.securitySchemes)) kept.securitySchemes = { ...components.securitySchemes };
  const queue: string[] = [];
  const seen = new Set<string>();
  const collect = (value: unknown) => {
    forEachReference(value, (ref) => {
      if (!seen.has(ref)) {
        seen.add(ref);
        queue.push(ref);
      }
    });
  };
  collect(paths);
  while (queue.length > 0) {
    const ref = queue.shift()!;
    const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
    if (!match) continue;
    const [, section, name] = match as unknown as [string, string, string];
    const entries = components[section];
    if (!isObject(entries) || entries[name] === undefined) continue;
    (kept[section] ??= {})[name] = entries[name];
    collect(entries[name]);
  }
  return kept;
}

function forEachReference(value: unknown, visit: (ref: string) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) forEachReference(item, visit);
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') visit(child);
      else forEachReference(child, visit);
    }
  }
}

function rewriteReferences(value: unknown, renames: Map<string, string>, schemeRenames: Map<string, string>, parentKey?: string): unknown {
  if (renames.size === 0) return value;
  if (Array.isArray(value)) {
    // Security requirements name schemes by key, not by $ref.
    if (parentKey === 'security' && schemeRenames.size > 0) {
      return value.map((requirement) => (isObject(requirement) ? Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [schemeRenames.get(name) ?? name, scopes])) : requirement));
    }
    return value.map((item) => rewriteReferences(item, renames, schemeRenames));
  }
  if (!isObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    copy[key] = key === '$ref' && typeof child === 'string' ? (renames.get(child) ?? child) : rewriteReferences(child, renames, schemeRenames, key);
  }
  return copy;
}

/**
 * Which of a service's components must take another name: those whose name is taken by different content,
 * and those that look identical but refer to a component that was itself renamed (they mean something else).
 */
function planRenames(service: ServiceName, components: Record<string, JsonObject>, merged: Record<string, JsonObject>): Map<string, string> {
  const renames = new Map<string, string>();
  const planned = new Set<string>();
  let changed = true;
  while (changed) {
    changed = false;
    for (const [section, entries] of Object.entries(components)) {
      for (const [name, value] of Object.entries(entries)) {
        const ref = `#/components/${section}/${name}`;
        const existing = merged[section]?.[name];
        if (renames.has(ref) || existing === undefined) continue;
        if (stableStringify(existing) === stableStringify(value) && !refersToAny(value, renames)) continue;
        const base = `${pascalCase(service)}${name.charAt(0).toUpperCase()}${name.slice(1)}`;
        let renamed = base;
        for (let n = 2; merged[section]?.[renamed] !== undefined || planned.has(`${section}/${renamed}`) || entries[renamed] !== undefined; n++) {
          renamed = `${base}${n}`;
        }
        planned.add(`${section}/${renamed}`);
        renames.set(ref, `#/components/${section}/${renamed}`);
        changed = true;
      }
    }
  }
  return renames;
}

function refersToAny(value: unknown, refs: Map<string, string>): boolean {
  let found = false;
  forEachReference(value, (ref) => {
    if (refs.has(ref)) found = true;
  });
  return found;
}

function lastSegment(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

function pascalCase(service: string): string {
  return service
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

function omitKey(object: JsonObject, key: string): JsonObject {
  const { [key]: _omitted, ...rest } = object;
  return rest;
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableStringify(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
