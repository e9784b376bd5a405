export const SCOPES = ['runtime:all', 'management:all'] as const;
export type Scope = (typeof SCOPES)[number];
export type Environment = 'production' | 'test';

/** Organization settings other services act on, carried with the key so the hot path needs no extra lookup. */
export interface OrganizationSettings {
  id: string;
  plan: 'free' | 'paid';
  monthlyCredits: number;
  environmentMatching: boolean;
  mcpRateLimitPerMinute: number;
  callbackOrigins: string[];
  /**
   * Browser origins (scheme://host[:port]) allowed to call the MCP endpoint; a request with any other
   * `Origin` header is refused with 403. Absent (an older access-keys-and-audit) means none.
   */
  mcpAllowedOrigins?: string[];
  /** Model gateway settings (absent from an older access-keys-and-audit: treat as payment method on file, no credit). */
  gateway?: GatewayOrganizationSettings;
}

export interface GatewayOrganizationSettings {
  /** A paid organization without a payment method on file cannot create gateway keys (403 payment_method_required). */
  paymentMethodOnFile: boolean;
  /** The organization's gateway credit balance setting, in micro-USD (1e-6 USD). */
  creditMicros: number;
  /**
   * The response store (store: true, previous_response_id, item_reference). null or absent: each
   * surface's default (native /v1/responses off, the OpenAI-compatible surface on); true: on for both;
   * false: off for both.
   */
  responseStore?: boolean | null;
}

/** What a verified access key may do. `null` restriction lists mean unrestricted on that dimension. */
export interface KeyPrincipal {
  keyId: string;
  organizationId: string;
  environment: Environment;
  scopes: Scope[];
  toolPackIds: string[] | null;
  registeredUserIds: string[] | null;
  /** ISO 8601, or null for a key that never expires. */
  expiresAt: string | null;
  isMaster: boolean;
  serviceAccount: string | null;
  organization: OrganizationSettings;
  /**
   * Set when a member's console session made the request (packages/auth sessionKeyPrincipal): the
   * principal then acts as a key of the session's organization and environment, and `keyId` is the
   * session id. The route's permission has already been checked against `member.permissions`.
   */
  member?: MemberCaller;
}

/** Who a member's session is: the audit log's actor and what their roles grant. */
export interface MemberCaller {
  memberId: string;
  sessionId: string;
  userId: string;
  email: string;
  permissions: string[];
}
