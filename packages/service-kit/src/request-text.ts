import { ValidationError } from '@patchbay/errors';
import type { RequestHandler } from 'express';

/**
 * The checks every service applies to the text of a request, once, before any route sees it
 * (so apps added later get them without doing anything):
 *
 * - JSON nested deeper than MAX_JSON_DEPTH is refused before JSON.parse, by a scan of the raw
 *   bytes that uses no recursion, so no depth can overflow a stack anywhere after it.
 * - A NUL character (U+0000) anywhere in the path, a query parameter or a JSON string or key is
 *   refused: PostgreSQL cannot store it in text, and no API field needs it.
 * - A lone UTF-16 surrogate (`"\ud800"` in JSON) is refused: it is not Unicode text, could not be
 *   stored or sent on as UTF-8 without silently becoming U+FFFD.
 *
 * Each refusal is a 400 `validation_error` naming the field (`body.name`, `query.search`, `path`).
 */

/** Deeper than any request of our APIs needs (an MCP tool's arguments included), far below what would strain a stack. */
export const MAX_JSON_DEPTH = 128;

/**
 * Whether JSON text nests arrays and objects more than `limit` levels deep. Brackets inside
 * strings do not count. Malformed text is left for JSON.parse to refuse.
 */
export function jsonDeeperThan(raw: Buffer | string, limit: number): boolean {
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c) i++; // backslash: skip the escaped character
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > limit) return true;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return false;
}

/** What is wrong with a string as request text, or null when nothing is. */
export function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain a NUL character (U+0000)';
  if (!isWellFormed(value)) return 'must be well-formed Unicode: a lone surrogate such as \\ud800 is not allowed';
  return null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isWellFormed(value: string): boolean {
  const native = (value as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(value) : !LONE_SURROGATE.test(value);
}

/**
 * The first string (or object key) in a parsed value that is not acceptable text, with its path.
 * Iterative: the value may be as deep as MAX_JSON_DEPTH allows, or deeper when it did not come from JSON.
 */
export function findTextProblem(root: unknown, rootPath: string): { field: string; message: string } | null {
  const stack: Array<[value: unknown, path: string]> = [[root, rootPath]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const message = textProblem(value);
      if (message) return { field: path, message };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}[${i}]`]);
    } else if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const childPath = `${path}.${key}`;
        const message = textProblem(key);
        if (message) return { field: childPath, message: `(a key) ${message}` };
        stack.push([(value as Record<string, unknown>)[key], childPath]);
      }
    }
  }
  return null;
}

/** For express.json's `verify`: refuses a body nested deeper than MAX_JSON_DEPTH before it is parsed. */
export function verifyJsonDepth(_req: unknown, _res: unknown, buf: Buffer): void {
  if (jsonDeeperThan(buf, MAX_JSON_DEPTH)) {
    throw new ValidationError([{ field: 'body', message: `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep` }]);
  }
}

/** Checks the path, the query and a parsed body of every request (see the file's comment). */
export function requestTextCheck(): RequestHandler {
  return (req, _res, next) => {
    let path: string;
    try {
      path = decodeURIComponent(req.path);
    } catch {
      next(ValidationError.forField('path', 'is not valid percent-encoded UTF-8'));
      return;
    }
    const pathProblem = textProblem(path);
    if (pathProblem) {
      next(ValidationError.forField('path', pathProblem));
      return;
    }
    const problem = findTextProblem(req.query, 'query') ?? (req.body === undefined ? null : findTextProblem(req.body, 'body'));
    next(problem ? new ValidationError([problem]) : undefined);
  };
}

/** Kept for routes that parse a body of their own (a form): the same check on what they parsed. */
export function assertRequestText(value: unknown, rootPath: string): void {
  const problem = findTextProblem(value, rootPath);
  if (problem) throw new ValidationError([problem]);
}
