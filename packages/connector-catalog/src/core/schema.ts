import type { JsonSchema, ToolAnnotations } from './types';

/**
 * The input schema the spec shows: an object with a required top-level `input` object holding the
 * tool's own parameters. Extra properties are refused so a model's typo is reported, not ignored.
 */
export function inputSchema(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return {
    type: 'object',
    properties: {
      input: { type: 'object', properties, required, additionalProperties: false },
    },
    required: ['input'],
    additionalProperties: false,
  };
}

export function objectSchema(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, required };
}

export const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
export const int = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', description, ...extra });
export const bool = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'boolean', description, ...extra });
export const arr = (items: JsonSchema, description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'array', items, description, ...extra });
/** A page-size parameter with the provider's bounds. */
export const limit = (max: number, fallback: number): JsonSchema => ({ type: 'integer', minimum: 1, maximum: max, default: fallback, description: `How many results to return (1 to ${max}, default ${fallback}).` });

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
/** Creates or changes something without destroying data. */
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
/** Idempotent change (setting a value, adding a label that may already be there). */
export const IDEMPOTENT_WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };
/** Deletes or overwrites data. */
export const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
