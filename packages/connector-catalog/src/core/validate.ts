import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { JsonSchema, ToolDefinition } from './types';

const options = { allErrors: true, strict: false, useDefaults: true, coerceTypes: false };
const ajv = new Ajv(options);
addFormats(ajv);
/** Schemas that declare JSON Schema 2020-12 (`$schema`), as MCP 2026-07-28 servers built on the v2 SDK send them; draft-07 Ajv cannot compile those. */
const ajv2020 = new Ajv2020(options);
addFormats(ajv2020);
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    const declared = (schema as { $schema?: unknown }).$schema;
    fn = (typeof declared === 'string' && declared.includes('2020-12') ? ajv2020 : ajv).compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath ? error.instancePath.replace(/^\//, '').replace(/\//g, '.') : '(arguments)';
  if (error.keyword === 'additionalProperties') return `${where}: unknown property "${String(error.params.additionalProperty)}"`;
  if (error.keyword === 'required') return `${where === '(arguments)' ? '' : `${where}.`}${String(error.params.missingProperty)} is required`;
  if (error.keyword === 'enum') return `${where}: must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

/**
 * Checks tool arguments against the tool's input schema (defaults filled in). Returns the problems in
 * words a model can fix (`input.repo is required`), or an empty list.
 */
export function validateToolArguments(tool: Pick<ToolDefinition, 'input_schema'>, args: unknown): string[] {
  const fn = validatorFor(tool.input_schema);
  if (fn(args)) return [];
  return (fn.errors ?? []).map(describe);
}
