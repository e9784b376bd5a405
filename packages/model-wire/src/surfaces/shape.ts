import { WireError } from '../errors';
import type { ValidationDetail } from '../types';

/** A JSON object as parsed from a body. */
export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads fields of a request body by hand (no schema compiled per request, no copy of the body).
 * The native surface collects every schema problem and answers 422 with a FastAPI-style `detail`
 * array; the vendor-compatible surfaces answer the first problem as a 400 naming the field.
 */
export class ShapeReader {
  readonly issues: ValidationDetail[] = [];

  constructor(
    /** true: collect 422 details; false: throw a 400 at the first problem. */
    private readonly collect: boolean,
    /** The 400 code of a malformed field on a compatible surface. */
    private readonly code = 'invalid_request_body',
  ) {}

  /** Records a problem; on compatible surfaces throws it at once. */
  fail(loc: Array<string | number>, type: string, msg: string, input?: unknown, code?: string): undefined {
    if (!this.collect) throw WireError.invalid(code ?? this.code, `${paramOf(loc)}: ${msg}`, paramOf(loc));
    const detail: ValidationDetail = { type, loc: ['body', ...loc], msg };
    if (input !== undefined) detail.input = input;
    this.issues.push(detail);
    return undefined;
  }

  /** Throws the collected 422, if any. */
  done(): void {
    if (this.issues.length > 0) throw WireError.schema(this.issues);
  }

  string(obj: Json, key: string, loc: Array<string | number>, options: { nullable?: boolean; minLength?: number } = {}): string | null | undefined {
    const value = obj[key];
    if (value === undefined || (value === null && options.nullable !== false)) return value === null ? null : undefined;
    if (typeof value !== 'string') return this.fail([...loc, key], 'string_type', 'Input should be a valid string', value);
    if (options.minLength !== undefined && value.length < options.minLength) {
      return this.fail([...loc, key], 'string_too_short', `String should have at least ${options.minLength} character${options.minLength === 1 ? '' : 's'}`, value);
    }
    return value;
  }

  number(obj: Json, key: string, loc: Array<string | number>, range: { min?: number; max?: number; integer?: boolean; exclusiveMin?: boolean } = {}): number | null | undefined {
    const value = obj[key];
    if (value === undefined || value === null) return value as null | undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return this.fail([...loc, key], range.integer ? 'int_type' : 'float_type', range.integer ? 'Input should be a valid integer' : 'Input should be a valid number', value);
    }
    if (range.integer && !Number.isInteger(value)) return this.fail([...loc, key], 'int_from_float', 'Input should be a valid integer, got a number with a fractional part', value);
    if (range.min !== undefined && (range.exclusiveMin ? value <= range.min : value < range.min)) {
      return this.fail([...loc, key], range.exclusiveMin ? 'greater_than' : 'greater_than_equal', `Input should be greater than ${range.exclusiveMin ? '' : 'or equal to '}${range.min}`, value);
    }
    if (range.max !== undefined && value > range.max) return this.fail([...loc, key], 'less_than_equal', `Input should be less than or equal to ${range.max}`, value);
    return value;
  }

  boolean(obj: Json, key: string, loc: Array<string | number>): boolean | null | undefined {
    const value = obj[key];
    if (value === undefined || value === null) return value as null | undefined;
    if (typeof value !== 'boolean') return this.fail([...loc, key], 'bool_type', 'Input should be a valid boolean', value);
    return value;
  }

  object(obj: Json, key: string, loc: Array<string | number>): Json | null | undefined {
    const value = obj[key];
    if (value === undefined || value === null) return value as null | undefined;
    if (!isObject(value)) return this.fail([...loc, key], 'dict_type', 'Input should be a valid dictionary or object', value);
    return value;
  }

  array(obj: Json, key: string, loc: Array<string | number>): unknown[] | null | undefined {
    const value = obj[key];
    if (value === undefined || value === null) return value as null | undefined;
    if (!Array.isArray(value)) return this.fail([...loc, key], 'list_type', 'Input should be a valid list', value);
    return value;
  }

  stringArray(obj: Json, key: string, loc: Array<string | number>): string[] | null | undefined {
    const list = this.array(obj, key, loc);
    if (!list) return list;
    for (let i = 0; i < list.length; i++) {
      if (typeof list[i] !== 'string') return this.fail([...loc, key, i], 'string_type', 'Input should be a valid string', list[i]);
    }
    return list as string[];
  }

  /** A string that must be one of `values`. */
  literal<T extends string>(obj: Json, key: string, loc: Array<string | number>, values: readonly T[]): T | null | undefined {
    const value = obj[key];
    if (value === undefined || value === null) return value as null | undefined;
    if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
      return this.fail([...loc, key], 'literal_error', `Input should be ${values.map((v) => `'${v}'`).join(', ')}`, value);
    }
    return value as T;
  }

  /** Native only: fields the schema does not know are a 422 (`extra_forbidden`). */
  noExtra(obj: Json, allowed: ReadonlySet<string>, loc: Array<string | number>): void {
    for (const key in obj) {
      if (!allowed.has(key)) this.fail([...loc, key], 'extra_forbidden', 'Extra inputs are not permitted', obj[key]);
    }
  }
}

/** `messages[0].content` from a location. */
export function paramOf(loc: Array<string | number>): string {
  let out = '';
  for (const part of loc) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}
