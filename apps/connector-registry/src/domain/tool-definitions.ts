import { createHash } from 'node:crypto';

/** A tool of a custom MCP server as Patchbay stores it: the parts an agent (and its model) sees. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  annotations: Record<string, unknown> | null;
}

/** The definition fields a refresh compares, named as the API names them. */
export type ToolDefinitionField = 'description' | 'input_schema' | 'output_schema' | 'annotations';

const FIELDS: Array<[ToolDefinitionField, keyof ToolDefinition]> = [
  ['description', 'description'],
  ['input_schema', 'inputSchema'],
  ['output_schema', 'outputSchema'],
  ['annotations', 'annotations'],
];

/**
 * JSON with object keys sorted at every depth, so the same definition always gives the same text
 * whatever order the server happened to write its keys in.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** SHA-256 (hex) of the canonical JSON of the whole definition: equal hashes mean nothing the model sees changed. */
export function definitionHash(tool: ToolDefinition): string {
  const { name, description, inputSchema, outputSchema, annotations } = tool;
  return createHash('sha256').update(canonicalJson({ name, description, inputSchema, outputSchema, annotations })).digest('hex');
}

/** Which fields differ between two definitions of the same tool name. */
export function changedFields(before: ToolDefinition, after: ToolDefinition): ToolDefinitionField[] {
  return FIELDS.filter(([, key]) => canonicalJson(before[key]) !== canonicalJson(after[key])).map(([field]) => field);
}

export interface ToolChanges {
  added: string[];
  removed: string[];
  changed: Array<{ name: string; fields: ToolDefinitionField[] }>;
  unchanged: string[];
}

/**
 * Compares what a server lists now with what was stored. A tool whose description changed while its
 * name stayed is reported in `changed`: silently rewording a tool is how tool poisoning works.
 */
export function diffTools(stored: Array<ToolDefinition & { definitionHash: string }>, discovered: ToolDefinition[]): ToolChanges {
  const before = new Map(stored.map((t) => [t.name, t]));
  const after = new Map(discovered.map((t) => [t.name, t]));
  const changes: ToolChanges = { added: [], removed: [], changed: [], unchanged: [] };
  for (const [name, tool] of after) {
    const old = before.get(name);
    if (!old) {
      changes.added.push(name);
      continue;
    }
    const fields = old.definitionHash === definitionHash(tool) ? [] : changedFields(old, tool);
    if (fields.length === 0) changes.unchanged.push(name);
    else changes.changed.push({ name, fields });
  }
  for (const name of before.keys()) if (!after.has(name)) changes.removed.push(name);
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  changes.added.sort(byName);
  changes.removed.sort(byName);
  changes.unchanged.sort(byName);
  changes.changed.sort((a, b) => byName(a.name, b.name));
  return changes;
}

export function hasChanges(changes: ToolChanges): boolean {
  return changes.added.length + changes.removed.length + changes.changed.length > 0;
}
