/** One operation of the merged OpenAPI document: what the fuzzer needs to build requests for it. */
export interface Operation {
  method: string;
  /** The path template, e.g. `/api/v1/tool-packs/{tool_pack_id}/`. */
  path: string;
  pathParams: string[];
  query: Array<{ name: string; schema: Schema; required: boolean }>;
  /** The JSON body schema, when the operation takes one. */
  body: Schema | undefined;
}

export type Schema = Record<string, unknown>;

export interface OpenApiDocument {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

/** Every operation of every service in the document: new apps are covered as soon as the edge merges their OpenAPI. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const shared = (item.parameters as Array<Record<string, unknown>> | undefined) ?? [];
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const parameters = [...shared, ...((op.parameters as Array<Record<string, unknown>> | undefined) ?? [])].map((p) => resolve(doc, p));
      const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const query = parameters
        .filter((p) => p.in === 'query')
        .map((p) => ({ name: String(p.name), schema: resolve(doc, (p.schema as Schema | undefined) ?? {}), required: p.required === true }));
      const content = (resolve(doc, (op.requestBody as Schema | undefined) ?? {}).content ?? {}) as Record<string, { schema?: Schema }>;
      const jsonBody = content['application/json']?.schema;
      operations.push({ method: method.toUpperCase(), path, pathParams, query, body: jsonBody === undefined ? (op.requestBody ? {} : undefined) : jsonBody });
    }
  }
  return operations;
}

/** Follows a local `$ref` (once per call; callers resolve again as they descend). */
export function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; hops < 16 && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref as string;
    const parts = ref.replace(/^#\//, '').split('/');
    let target: unknown = doc;
    for (const part of parts) target = (target as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (typeof target !== 'object' || target === null) return {};
    current = target as Schema;
  }
  return current;
}
