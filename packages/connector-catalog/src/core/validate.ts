import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { JsonSchema, ToolDefinition } from './types';

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false });
addFormats(ajv);
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
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
