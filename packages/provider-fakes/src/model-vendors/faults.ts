import type { FakeFault, FakeFaultKind, FakeStreamErrorKind } from './types';

const STREAM_ERRORS: ReadonlySet<string> = new Set<FakeStreamErrorKind>(['server_error', 'overloaded', 'rate_limit', 'billing']);

const KINDS: ReadonlySet<FakeFaultKind> = new Set<FakeFaultKind>([
  'rate_limit',
  'overloaded',
  'server_error',
  'reset',
  'hang',
  'slow_first_token',
  'stream_cut',
  'stall',
  'malformed_chunk',
  'missing_terminal',
  'stream_error',
  'context_length',
  'content_filter',
  'empty',
  'reasoning_exhausted',
  'billing',
  'model_not_found',
]);

/** Faults that answer with an error status instead of content. */
export const ERROR_FAULTS: ReadonlySet<FakeFaultKind> = new Set<FakeFaultKind>(['rate_limit', 'overloaded', 'server_error', 'context_length', 'billing', 'model_not_found']);

/** Faults that change how the answer is delivered (stream frames or body bytes), not what it says. */
export const DELIVERY_FAULTS: ReadonlySet<FakeFaultKind> = new Set<FakeFaultKind>(['slow_first_token', 'stream_cut', 'stall', 'malformed_chunk', 'missing_terminal', 'stream_error']);

/**
 * Builds a fault from its name and the optional argument of the model-name syntax
 * (`rate_limit=30`, `stream_cut=5`, `content_filter=error`). Throws on an unknown name.
 */
export function faultFromName(kind: string, arg?: string): FakeFault {
  if (!KINDS.has(kind as FakeFaultKind)) throw new Error(`Unknown fault "${kind}"; known faults: ${[...KINDS].join(', ')}`);
  const n = arg === undefined || arg === '' ? undefined : Number(arg);
  if (n !== undefined && Number.isNaN(n) && kind !== 'content_filter' && !(kind === 'stream_error' && STREAM_ERRORS.has(arg ?? ''))) throw new Error(`Fault "${kind}" takes a number, not "${arg}"`);
  switch (kind as FakeFaultKind) {
    case 'rate_limit':
      return { kind: 'rate_limit', retryAfterSeconds: n };
    case 'overloaded':
      return { kind: 'overloaded', status: n };
    case 'billing':
      return { kind: 'billing', status: n };
    case 'slow_first_token':
      return { kind: 'slow_first_token', delayMs: n ?? 1000 };
    case 'stream_cut':
      return { kind: 'stream_cut', afterTokens: n ?? 3 };
    case 'stall':
      return { kind: 'stall', afterTokens: n ?? 3 };
    case 'malformed_chunk':
      return { kind: 'malformed_chunk', afterTokens: n };
    case 'stream_error':
      return STREAM_ERRORS.has(arg ?? '') ? { kind: 'stream_error', afterTokens: 0, error: arg as FakeStreamErrorKind } : { kind: 'stream_error', afterTokens: n };
    case 'content_filter':
      return { kind: 'content_filter', form: arg === 'error' || arg === 'prompt' ? arg : 'finish' };
    default:
      return { kind } as FakeFault;
  }
}

/** Checks a fault given by a caller (script, setFault, HTTP control) and returns it typed. */
export function parseFault(value: unknown): FakeFault {
  if (!value || typeof value !== 'object' || typeof (value as { kind?: unknown }).kind !== 'string') {
    throw new Error('A fault is an object with a "kind", e.g. {"kind":"rate_limit","retryAfterSeconds":30}');
  }
  const kind = (value as { kind: string }).kind;
  faultFromName(kind);
  return value as FakeFault;
}

export interface ModelFault {
  /** The model name without the fault suffix. */
  base: string;
  fault?: FakeFault;
  /** Share of requests for this model name that get the fault (default 1). */
  fraction: number;
}

const modelFaults = new Map<string, ModelFault>();

/**
 * Reads a fault from a model name: `<model>@<fault>[=<arg>][~<fraction>]`, e.g. `gpt-4o@rate_limit=30`,
 * `claude-sonnet-4-5@stream_cut=5`, `gemini-2.5-flash@server_error~0.5`. A name without `@` has no fault.
 */
export function parseModelFault(model: string): ModelFault {
  const cached = modelFaults.get(model);
  if (cached) return cached;
  let parsed: ModelFault = { base: model, fraction: 1 };
  const at = model.lastIndexOf('@');
  if (at > 0) {
    const spec = model.slice(at + 1);
    const match = /^([a-z_]+)(?:=([^~]*))?(?:~([0-9.]+))?$/.exec(spec);
    if (match) {
      try {
        parsed = { base: model.slice(0, at), fault: faultFromName(match[1] ?? '', match[2]), fraction: match[3] ? Number(match[3]) : 1 };
      } catch {
        parsed = { base: model, fraction: 1 };
      }
    }
  }
  if (modelFaults.size < 10_000) modelFaults.set(model, parsed);
  return parsed;
}

/**
 * Whether the n-th (0-based) matching request gets a fault applied to `fraction` of requests:
 * spread evenly and deterministically, the first one included (0.5 → 1st, 3rd, 5th…).
 */
export function takesShare(n: number, fraction: number): boolean {
  if (fraction >= 1) return true;
  if (fraction <= 0) return false;
  return Math.ceil((n + 1) * fraction - 1e-9) > Math.ceil(n * fraction - 1e-9);
}
