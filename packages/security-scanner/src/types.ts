export type DetectorKind = 'EMAIL_ADDRESS' | 'PHONE_NUMBER' | 'CREDIT_CARD' | 'US_SSN' | 'IBAN' | 'IP_ADDRESS' | 'SECRET';

/** inbound: arguments sent to tools; outbound: results returned to the model. */
export type Direction = 'inbound' | 'outbound' | 'both';

export type ScanDirection = 'inbound' | 'outbound';

/** allow records the detection only; redact replaces the value with a marker; block fails the call. */
export type RuleAction = 'allow' | 'redact' | 'block';

export interface SecurityRule {
  id: string;
  name: string;
  detector: DetectorKind | 'CUSTOM';
  /** CUSTOM only: a JavaScript regular expression source. */
  pattern?: string;
  /** CUSTOM only: regular expression flags among i, m, s, u. */
  flags?: string;
  /** CUSTOM only: the redaction label, [A-Z0-9_]{1,40}. */
  label?: string;
  direction: Direction;
  action: RuleAction;
  enabled: boolean;
}

/** A tool pack's change to one organization rule; omitted fields keep the organization's value. */
export interface RuleOverride {
  rule_id: string;
  action?: RuleAction;
  enabled?: boolean;
}

/** One rule firing at one place. Never carries the matched value. */
export interface Detection {
  rule_id: string;
  rule_name: string;
  /** The detector kind, or the custom rule's label. */
  kind: string;
  direction: ScanDirection;
  action: RuleAction;
  /** JSON path of the string that matched, like $.input.body or $.content[0].text. */
  path: string;
  /** How many times the rule matched in that string. */
  count: number;
}

export interface BlockedBy {
  rule_id: string;
  rule_name: string;
  kind: string;
}

export interface ScanResult {
  /** A copy with redactions applied (the input is never mutated), or the input itself when nothing was redacted. */
  value: unknown;
  detections: Detection[];
  /** The first block rule that fired, in traversal order; null when the call may proceed. */
  blocked: BlockedBy | null;
}

export const DETECTOR_KINDS: readonly DetectorKind[] = ['EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'US_SSN', 'IBAN', 'IP_ADDRESS', 'SECRET'];
