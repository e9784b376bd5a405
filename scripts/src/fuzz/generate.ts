import { type OpenApiDocument, type Operation, type Schema, resolve } from './operations';
import type { Random } from './random';

/** Values that have broken services before, or could: control characters, invalid Unicode, extremes, wrong types. */
const WEIRD_STRINGS = ['', '\u0000', 'a\u0000b', '\ud800', 'x\udc00', 'x'.repeat(10_000), '../../etc/passwd', '%00', '<script>alert(1)</script>', "' OR 1=1 --", '😀', '\u202e\u200b', '0x10', '1e1', ' ', 'null', '{}', 'a'.repeat(256)];
const WEIRD_VALUES: unknown[] = [...WEIRD_STRINGS, -1, 0, 1.5, 1e308, -1e308, 2 ** 53 + 1, null, true, false, [], {}, [null], { a: { b: { c: [] } } }];
const WEIRD_QUERY = ['', '0', '-1', '0x10', '1e1', '1.5', '%00', 'a%00b', '%ED%A0%80', '%ZZ', '%', 'null', '%5B%5D', 'x'.repeat(3000), '2026-13-45', '9999999999999999999999'];
const WEIRD_PATH = ['not-a-uuid', '%00', 'a%00b', '..', '%2e%2e', '%2F', 'x'.repeat(300), '%ED%A0%80', '00000000-0000-0000-0000-000000000000', '%20', 'ü', '1'];
const MALFORMED_JSON = ['{', '{"a":', '[1,2', 'nul', '{"a":1}garbage', '\u0000', '{"a":"\\ud800"}', '{"a":"\\u0000"}', "{'a':1}", '{"a":1,}', '\ufeff{}'];

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** Send the body chunked whatever the method (GET and DELETE included). */
  chunked: boolean;
  /** Which kind of mischief this request carries, for the report. */
  kind: string;
}

export interface Credentials {
  /** An access key (the organization's master key) for the tool-connector and management APIs. */
  key: string;
  testKey?: string;
  /** A model gateway management key (mgmt_...), used on half of the /v1/ requests when given. */
  managementKey?: string;
}

/** Ids seen in answers, by the resource segment of the path that listed them (`tool-packs`), to reach past 404s. */
export type IdPool = Map<string, string[]>;

export function generateValue(doc: OpenApiDocument, rawSchema: Schema, random: Random, depth = 0): unknown {
  const schema = resolve(doc, rawSchema);
  if (depth > 6) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return random.pick(schema.enum);
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return generateValue(doc, random.pick(options) as Schema, random, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    const merged: Record<string, unknown> = {};
    for (const part of schema.allOf as Schema[]) Object.assign(merged, generateValue(doc, part, random, depth + 1) as object);
    return merged;
  }
  const type = Array.isArray(schema.type) ? random.pick(schema.type as string[]) : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema, random);
    case 'integer':
      return random.int(typeof schema.minimum === 'number' ? schema.minimum : 0, typeof schema.maximum === 'number' ? Math.min(schema.maximum, 1000) : 100);
    case 'number':
      return random.next() * 100;
    case 'boolean':
      return random.chance(0.5);
    case 'array':
      return Array.from({ length: random.int(0, 3) }, () => generateValue(doc, (schema.items as Schema | undefined) ?? {}, random, depth + 1));
    case 'object':
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (required.has(name) || random.chance(0.5)) out[name] = generateValue(doc, property, random, depth + 1);
      }
      if (type === undefined && Object.keys(properties).length === 0) return random.pick(['text', 1, true, null, {}]);
      return out;
    }
  }
}

function stringFor(schema: Schema, random: Random): string {
  switch (schema.format) {
    case 'uuid':
      return random.uuid();
    case 'date-time':
      return new Date(Date.UTC(2026, random.int(0, 11), random.int(1, 28))).toISOString();
    case 'uri':
    case 'url':
      return random.pick(['https://example.com/mcp', 'http://127.0.0.1:1/', 'ftp://x', 'https://localhost/']);
    case 'email':
      return 'ada@example.com';
    default:
      return random.pick(['Ada', 'github', 'Support agent', 'x', 'hello world', 'acme', 'tenant-1']);
  }
}

/** Replaces one value somewhere in a generated body by a weird one. */
function mutate(value: unknown, random: Random): unknown {
  if (typeof value !== 'object' || value === null) return random.pick(WEIRD_VALUES);
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i): [number, unknown] => [i, v]) : Object.entries(value);
  if (entries.length === 0 || random.chance(0.2)) {
    const copy: Record<string, unknown> = Array.isArray(value) ? { ...value } : { ...(value as object) };
    copy[random.pick(['unknown_field', 'a\u0000', '\ud800', '__proto__', 'constructor'])] = random.pick(WEIRD_VALUES);
    return copy;
  }
  const [key, child] = random.pick(entries);
  const replacement = random.chance(0.5) ? random.pick(WEIRD_VALUES) : mutate(child, random);
  if (Array.isArray(value)) return value.map((item, i) => (i === key ? replacement : item));
  return { ...(value as object), [key]: replacement };
}

function nested(depth: number): string {
  return `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

function pathValue(template: string, param: string, random: Random, pool: IdPool): string {
  const before = template.slice(0, template.indexOf(`{${param}}`)).split('/').filter((s) => s && !s.startsWith('{'));
  const known = pool.get(before[before.length - 1] ?? '');
  const roll = random.next();
  if (known && known.length > 0 && roll < 0.5) return encodeURIComponent(random.pick(known));
  if (roll < 0.7) return random.uuid();
  return random.pick(WEIRD_PATH);
}

/** Builds request number `index` against one operation: mostly plausible, always with a twist somewhere. */
export function generateRequest(doc: OpenApiDocument, op: Operation, random: Random, credentials: Credentials, pool: IdPool): FuzzRequest {
  let path = op.path;
  for (const param of op.pathParams) path = path.replace(`{${param}}`, pathValue(op.path, param, random, pool));
  const query: string[] = [];
  for (const q of op.query) {
    if (!q.required && random.chance(0.6)) continue;
    const value = random.chance(0.5) ? String(generateValue(doc, q.schema, random)) : random.pick(WEIRD_QUERY);
    query.push(`${encodeURIComponent(q.name)}=${/%/.test(value) ? value : encodeURIComponent(value)}`);
  }
  if (random.chance(0.1)) query.push(`${random.pick(['page', 'page_size', 'cursor', 'search', 'x'])}=${random.pick(WEIRD_QUERY)}`);
  if (query.length > 0) path += `?${query.join('&')}`;

  const headers: Record<string, string> = { accept: random.pick(['application/json', '*/*', 'text/event-stream, application/json']) };
  const auth = random.next();
  const gatewayPath = op.path.startsWith('/v1/');
  if (auth < 0.8) headers.authorization = `Bearer ${gatewayPath && credentials.managementKey && random.chance(0.5) ? credentials.managementKey : credentials.key}`;
  else if (auth < 0.87 && credentials.testKey) headers.authorization = `Bearer ${credentials.testKey}`;
  else if (auth < 0.94) headers.authorization = random.pick(['Bearer pb_live_doesnotexist', 'bearer x', 'Basic YTpi', 'Bearer ', `Bearer ${credentials.key}x`]);

  let body: Buffer | undefined;
  let kind = 'plausible';
  const sendsBody = op.body !== undefined || random.chance(0.05);
  if (sendsBody) {
    const roll = random.next();
    let text: string;
    headers['content-type'] = 'application/json';
    if (roll < 0.35) {
      text = JSON.stringify(generateValue(doc, op.body ?? {}, random));
    } else if (roll < 0.7) {
      kind = 'mutated-body';
      text = JSON.stringify(mutate(generateValue(doc, op.body ?? {}, random), random));
    } else if (roll < 0.78) {
      kind = 'malformed-json';
      text = random.pick(MALFORMED_JSON);
    } else if (roll < 0.84) {
      kind = 'deep-json';
      text = nested(random.pick([129, 2_000, 5_000, 20_000]));
    } else if (roll < 0.9) {
      kind = 'wrong-content-type';
      text = random.pick(['a=1&b=2', 'plain text', '<xml/>']);
      headers['content-type'] = random.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/json; charset=latin1']);
    } else if (roll < 0.93) {
      kind = 'large-body';
      text = JSON.stringify({ name: 'x'.repeat(random.pick([64 * 1024, 900 * 1024])) });
    } else if (roll < 0.97) {
      kind = 'random-json';
      text = JSON.stringify(random.pick(WEIRD_VALUES));
    } else {
      kind = 'empty-body';
      text = '';
    }
    body = Buffer.from(text);
  }
  const chunked = body !== undefined && random.chance(0.05);
  if (chunked) kind = `${kind}+chunked`;
  const method = random.chance(0.03) ? random.pick(['GET', 'HEAD', 'DELETE', 'PUT', 'PATCH', 'OPTIONS']) : op.method;
  if (method !== op.method) kind = `${kind}+other-method`;
  if (auth >= 0.8) kind = `${kind}+auth`;
  return { method, path, headers, body, chunked, kind };
}

/** Remembers the ids an answer names, so later requests reach real resources. */
export function rememberIds(pool: IdPool, path: string, body: unknown, excluded: ReadonlySet<string> = new Set()): void {
  const segments = path.split('?')[0]!.split('/').filter(Boolean);
  const resource = [...segments].reverse().find((s) => !/^[0-9a-f-]{36}$/.test(s)) ?? '';
  const ids: string[] = [];
  const take = (value: unknown) => {
    if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string') ids.push((value as { id: string }).id);
  };
  take(body);
  const results = (body as { results?: unknown } | null)?.results;
  if (Array.isArray(results)) results.slice(0, 20).forEach(take);
  if (ids.length === 0) return;
  const known = pool.get(resource) ?? [];
  for (const id of ids) if (!known.includes(id) && !excluded.has(id)) known.push(id);
  pool.set(resource, known.slice(-50));
}
