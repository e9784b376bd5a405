/** Limits of the spec's "Tool search" table. */
export const MAX_INTENT_CHARACTERS = 500;
export const MIN_MAX_RESULTS = 1;
export const MAX_MAX_RESULTS = 50;
export const DEFAULT_MAX_RESULTS = 10;

export interface SearchRequest {
  intent: string;
  /** null when absent, null or empty: no filter. */
  connector_slugs: string[] | null;
  max_results: number;
}

/** Same shape as @patchbay/errors' FieldError, so the runtime can throw `new ValidationError(errors)`. */
export interface SearchFieldError {
  field: string;
  message: string;
}

const KNOWN_FIELDS = new Set(['intent', 'connector_slugs', 'max_results']);

/**
 * Checks a search request body against the spec: intent required, at most 500 characters;
 * connector_slugs an optional array of strings; max_results an optional whole number from 1 to 50,
 * default 10. Unknown fields are refused, as the services' tsoa validation does elsewhere. Every
 * problem is reported at once, each under `body.<field>`.
 */
export function validateSearchRequest(body: unknown): SearchRequest | { errors: SearchFieldError[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { errors: [{ field: 'body', message: 'must be a JSON object with intent, and optionally connector_slugs and max_results' }] };
  }
  const input = body as Record<string, unknown>;
  const errors: SearchFieldError[] = [];

  const intent = input.intent;
  if (intent === undefined || intent === null) errors.push({ field: 'body.intent', message: 'is required' });
  else if (typeof intent !== 'string') errors.push({ field: 'body.intent', message: 'must be a string' });
  else if (intent.trim() === '') errors.push({ field: 'body.intent', message: 'must not be empty' });
  // Characters as people count them: an emoji is one, not two UTF-16 units.
  else if ([...intent].length > MAX_INTENT_CHARACTERS) errors.push({ field: 'body.intent', message: `must be at most ${MAX_INTENT_CHARACTERS} characters` });

  let connectorSlugs: string[] | null = null;
  const slugs = input.connector_slugs;
  if (slugs !== undefined && slugs !== null) {
    if (!Array.isArray(slugs) || slugs.some((s) => typeof s !== 'string' || s.trim() === '')) {
      errors.push({ field: 'body.connector_slugs', message: 'must be an array of connector slugs (non-empty strings)' });
    } else if (slugs.length > 0) {
      connectorSlugs = [...new Set(slugs as string[])];
    }
  }

  let maxResults = DEFAULT_MAX_RESULTS;
  const max = input.max_results;
  if (max !== undefined && max !== null) {
    if (typeof max !== 'number' || !Number.isInteger(max) || max < MIN_MAX_RESULTS || max > MAX_MAX_RESULTS) {
      errors.push({ field: 'body.max_results', message: `must be a whole number from ${MIN_MAX_RESULTS} to ${MAX_MAX_RESULTS}` });
    } else {
      maxResults = max;
    }
  }

  for (const key of Object.keys(input)) {
    if (!KNOWN_FIELDS.has(key)) errors.push({ field: `body.${key}`, message: 'is not a field of a search request (intent, connector_slugs, max_results)' });
  }

  if (errors.length > 0) return { errors };
  return { intent: intent as string, connector_slugs: connectorSlugs, max_results: maxResults };
}
