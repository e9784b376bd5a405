import {
  DEFAULT_PI_SETTINGS,
  applyPiOverride,
  compilePiSettings,
  evaluatePrompt,
  validatePiOverride,
  validatePiSettings,
  type CompiledPiSettings,
  type PiEvaluation,
  type PiOverride,
  type PiSettings,
  type Scorer,
} from '@patchbay/prompt-injection';
import { Scanner, scanModelOutput, scanModelRequest, type Detection, type SecurityRule } from '@patchbay/security-scanner';
import { DEFAULT_STREAM_HOLDBACK } from '@patchbay/security-scanner';
import type { CanonicalEmbeddingsRequest, CanonicalRequest, CanonicalResponse, CanonicalStreamEvent } from '@patchbay/model-wire';
import { GatewayError } from '../http/errors';
import { screenStream } from './stream-dlp';

/**
 * An organization's guardrails (issue 10 §3) as the hot path needs them: loaded with the organization's
 * cached data (one load per organization, dropped by the organization invalidation over pub/sub), so a
 * model request does no database query for them. Compiled settings are built once per customer.
 */
export class OrganizationGuardrails {
  private readonly compiled = new Map<string, CompiledPiSettings>();
  /** null when the organization has no DLP rule: requests skip the scan. */
  readonly scanner: Scanner | null;

  constructor(
    readonly piSettings: PiSettings,
    readonly overrides: ReadonlyMap<string, PiOverride>,
    readonly dlpRules: readonly SecurityRule[],
    readonly checkEnabled: boolean,
  ) {
    this.scanner = dlpRules.some((r) => r.enabled) ? new Scanner([...dlpRules]) : null;
  }

  /** The effective compiled settings of a customer (its override on the organization's), or of the organization. */
  settingsFor(customerId: string | null): CompiledPiSettings {
    const id = customerId !== null && this.overrides.has(customerId) ? customerId : '';
    let compiled = this.compiled.get(id);
    if (!compiled) {
      const override = id === '' ? null : this.overrides.get(id)!;
      try {
        compiled = compilePiSettings(applyPiOverride(this.piSettings, override));
      } catch {
        // An override the organization's later settings made inconsistent: the organization's apply.
        compiled = compilePiSettings(this.piSettings);
      }
      this.compiled.set(id, compiled);
    }
    return compiled;
  }

  /** Whether any guardrail can act on a request: the common case (all off, no rules) costs one check. */
  get active(): boolean {
    return this.scanner !== null || this.piSettings.mode !== 'off' || this.piSettings.indirectMode !== 'off' || this.overrides.size > 0;
  }
}

/** Set on a request let through with an injection in alert mode. */
export const GUARDRAILS_ALERT_HEADER = 'X-Guardrails-Alert';

export const NO_GUARDRAILS = new OrganizationGuardrails({ ...DEFAULT_PI_SETTINGS, allowlistPatterns: [] }, new Map(), [], false);

/** Rows as stored: re-validated on load (they were validated on write). */
export function loadGuardrails(row: { piSettings: unknown; dlpRules: unknown; checkEnabled: boolean } | null, overrides: Array<{ customerId: string; override: unknown }>): OrganizationGuardrails {
  if (!row && overrides.length === 0) return NO_GUARDRAILS;
  const checked = row?.piSettings ? validatePiSettings(row.piSettings) : null;
  const settings = checked && 'settings' in checked ? checked.settings : { ...DEFAULT_PI_SETTINGS, allowlistPatterns: [] };
  const map = new Map<string, PiOverride>();
  for (const o of overrides) {
    const v = validatePiOverride(o.override, settings);
    if ('override' in v) map.set(o.customerId, v.override);
  }
  const rules = Array.isArray(row?.dlpRules) ? (row.dlpRules as SecurityRule[]) : [];
  return new OrganizationGuardrails(settings, map, rules, row?.checkEnabled ?? false);
}

export type DlpDetection = Pick<Detection, 'rule_id' | 'rule_name' | 'kind' | 'action' | 'path' | 'count'>;

/** The `guardrails` metadata of a body (include_guardrails_metadata). */
export interface GuardrailsMetadata {
  prompt_injection: {
    action: PiEvaluation['action'];
    mode: string;
    indirect_mode: string;
    block_threshold: number;
    results: Array<{ path: string; kind: string; score: number; verdict: string; signals: string[]; allowlisted: boolean }>;
    error: string | null;
  } | null;
  dlp: {
    prompt: DlpDetection[];
    answer: DlpDetection[];
    blocked: { stage: 'prompt' | 'answer'; rule_id: string; rule_name: string; kind: string } | null;
  } | null;
}

function detections(list: Detection[]): DlpDetection[] {
  return list.map((d) => ({ rule_id: d.rule_id, rule_name: d.rule_name, kind: d.kind, action: d.action, path: d.path, count: d.count }));
}

/** A guardrail rejection: 422 in the surface's envelope, with `guardrails` in the body when asked for. */
export class GuardrailBlock extends GatewayError {
  constructor(
    type: 'blocked_by_pi_protection' | 'blocked_by_policy',
    message: string,
    code: string,
    readonly metadata: GuardrailsMetadata | null,
  ) {
    super(422, type, message, code, undefined, null, metadata ? { guardrails: metadata } : undefined);
  }
}

/** What the guardrails did to one request; `answer` screens a non-streamed answer. */
export interface GuardedRequest {
  request: CanonicalRequest;
  /** null unless include_guardrails_metadata. */
  metadata: GuardrailsMetadata | null;
  /** Whether an injection was let through in alert mode (recorded on the usage record). */
  alerted: boolean;
  /**
   * Scans (and redacts) a non-streamed answer's output; on a block rule, records the request as failed
   * at its real cost (the vendor ran) on `ledger`, then throws GuardrailBlock.
   */
  answer(response: CanonicalResponse, ledger: { finish(outcome: 'failed', status: number, usage: CanonicalResponse['usage'], code: string): void }): void;
  /**
   * Screens a streamed answer as it flows (the same outbound rules); the events themselves when the
   * organization has no DLP rule. A block rule ends the iteration with a StreamDlpBlock.
   */
  stream(events: AsyncIterable<CanonicalStreamEvent>): AsyncIterable<CanonicalStreamEvent>;
}

export interface GuardrailOptions {
  /** The detector (default: the package's); tests pass a failing one to exercise fail open/closed. */
  scorer?: Scorer;
  /** Characters of a streamed answer held back for DLP (default DEFAULT_STREAM_HOLDBACK). */
  streamHoldBack?: number;
}

/**
 * Applies the organization's guardrails to a parsed request before any vendor call: prompt-injection
 * screening (422 blocked_by_pi_protection in block mode, recorded in alert mode) then DLP on the
 * prompt (redacted copy, or 422 blocked_by_policy on a block rule). Synchronous and in memory.
 */
export function guardRequest(guardrails: OrganizationGuardrails, customerId: string | null, request: CanonicalRequest, includeMetadata: boolean, options: GuardrailOptions = {}): GuardedRequest {
  const passthrough: GuardedRequest = { request, metadata: includeMetadata ? { prompt_injection: null, dlp: null } : null, alerted: false, answer: () => undefined, stream: (events) => events };
  if (!guardrails.active) return passthrough;
  const compiled = guardrails.settingsFor(customerId);
  const { settings } = compiled;
  let pi: PiEvaluation | null = null;
  if (settings.mode !== 'off' || settings.indirectMode !== 'off') {
    pi = evaluatePrompt(request, compiled, options.scorer ? { scorer: options.scorer } : {});
  }
  const dlp: NonNullable<GuardrailsMetadata['dlp']> | null = guardrails.scanner ? { prompt: [], answer: [], blocked: null } : null;
  const metadata = (): GuardrailsMetadata | null =>
    includeMetadata
      ? {
          prompt_injection: pi
            ? {
                action: pi.action,
                mode: settings.mode,
                indirect_mode: settings.indirectMode,
                block_threshold: settings.blockThreshold,
                results: pi.results.map((r) => ({ path: r.path, kind: r.kind, score: r.score, verdict: r.verdict, signals: r.signals.map((s) => s.id), allowlisted: r.allowlisted })),
                error: pi.error?.code ?? null,
              }
            : null,
          dlp,
        }
      : null;
  if (pi?.action === 'block') {
    if (pi.error) throw new GuardrailBlock('blocked_by_pi_protection', 'Prompt-injection screening is unavailable and the organization fails closed (pi_fail_closed); retry later.', 'sidecar_error', metadata());
    const by = pi.blockedBy!;
    throw new GuardrailBlock('blocked_by_pi_protection', `The ${by.kind === 'direct' ? 'prompt' : 'tool result or document'} at ${by.path} was blocked as a prompt injection (score ${by.score.toFixed(2)} ≥ ${settings.blockThreshold}).`, 'prompt_injection_detected', metadata());
  }
  let value = request;
  if (guardrails.scanner) {
    const scanned = scanModelRequest(guardrails.scanner, request);
    dlp!.prompt = detections(scanned.detections);
    if (scanned.blocked) {
      dlp!.blocked = { stage: 'prompt', ...scanned.blocked };
      throw new GuardrailBlock('blocked_by_policy', `The prompt was blocked by the data-loss prevention rule "${scanned.blocked.rule_name}" (${scanned.blocked.kind}); remove that content and retry.`, 'dlp_blocked', metadata());
    }
    value = scanned.value;
  }
  const scanner = guardrails.scanner;
  const result: GuardedRequest = {
    request: value,
    metadata: metadata(),
    alerted: pi?.action === 'alert',
    answer(response, ledger) {
      if (!scanner) return;
      const scanned = scanModelOutput(scanner, response.output);
      dlp!.answer = detections(scanned.detections);
      if (scanned.blocked) {
        dlp!.blocked = { stage: 'answer', ...scanned.blocked };
        ledger.finish('failed', 422, response.usage, 'dlp_blocked');
        throw new GuardrailBlock('blocked_by_policy', `The model's answer was blocked by the data-loss prevention rule "${scanned.blocked.rule_name}" (${scanned.blocked.kind}).`, 'dlp_blocked', metadata());
      }
      response.output = scanned.value as CanonicalResponse['output'];
      result.metadata = metadata();
    },
    stream(events) {
      return scanner ? screenStream(events, scanner, options.streamHoldBack ?? DEFAULT_STREAM_HOLDBACK) : events;
    },
  };
  return result;
}

function dlpInputBlock(blocked: { rule_id: string; rule_name: string; kind: string }, what: string): GuardrailBlock {
  return new GuardrailBlock('blocked_by_policy', `The ${what} was blocked by the data-loss prevention rule "${blocked.rule_name}" (${blocked.kind}); remove that content and retry.`, 'dlp_blocked', null);
}

/**
 * DLP on the texts of an embeddings request before the vendor sees them (the rules' inbound
 * direction, as on a prompt): redacted texts are embedded, a block rule is 422 dlp_blocked.
 */
export function guardEmbeddingsInput(guardrails: OrganizationGuardrails, request: CanonicalEmbeddingsRequest): CanonicalEmbeddingsRequest {
  const scanner = guardrails.scanner;
  if (!scanner) return request;
  const scanned = scanner.scan(request.input, 'inbound');
  if (scanned.blocked) throw dlpInputBlock(scanned.blocked, 'embeddings input');
  return scanned.value === request.input ? request : { ...request, input: scanned.value as CanonicalEmbeddingsRequest['input'] };
}

/**
 * DLP on the texts of a media request (an image prompt, speech input) before the vendor sees them:
 * the inbound rules, as on a prompt; redacted texts are sent, a block rule is 422 dlp_blocked.
 */
export function guardMediaText(guardrails: OrganizationGuardrails, texts: string[], what: string): string[] {
  const scanner = guardrails.scanner;
  if (!scanner || texts.length === 0) return texts;
  const scanned = scanner.scan(texts, 'inbound');
  if (scanned.blocked) throw dlpInputBlock(scanned.blocked, what);
  return scanned.value as string[];
}

/**
 * DLP on a count_tokens request, which is sent to the vendor like a prompt: the same inbound rules
 * (redacted text is counted, a block rule is 422 dlp_blocked). Prompt-injection screening does not
 * apply: nothing is generated.
 */
export function guardCountTokensInput(guardrails: OrganizationGuardrails, request: CanonicalRequest): CanonicalRequest {
  const scanner = guardrails.scanner;
  if (!scanner) return request;
  const scanned = scanModelRequest(scanner, request);
  if (scanned.blocked) throw dlpInputBlock(scanned.blocked, 'prompt');
  return scanned.value;
}

/** Adds `guardrails` to a rendered JSON body (success or error) when the request asked for it. */
export function withGuardrailsMetadata(body: unknown, metadata: GuardrailsMetadata | null): unknown {
  if (!metadata || typeof body !== 'object' || body === null) return body;
  return { ...(body as Record<string, unknown>), guardrails: metadata };
}
