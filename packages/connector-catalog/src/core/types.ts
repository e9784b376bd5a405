/**
 * The built-in connector catalog: what a connector is, how a user authenticates with it, and its
 * tools. connector-registry serves these definitions; mcp-runtime runs the executors.
 */
import type { OutboundHttp } from '@patchbay/outbound';

/** A JSON Schema object (draft 2020-12 subset the tools use). */
export type JsonSchema = { [keyword: string]: unknown };

/** One value a user fills in to authenticate (an API key, a site URL, a connection string). */
export interface CredentialField {
  name: string;
  label: string;
  /** `secret` values are masked in forms and never shown again. */
  type: 'string' | 'secret' | 'url';
  required: boolean;
  description?: string;
  placeholder?: string;
}

export interface OAuth2Config {
  authorize_url: string;
  token_url: string;
  default_scopes: string[];
  /** How scopes are joined in the authorize URL (space by default; Slack and a few others use a comma). */
  scope_separator?: ' ' | ',';
  /** Extra query parameters on the authorize URL (access_type=offline for Google). */
  authorize_params?: Record<string, string>;
  /** Providers that take the client credentials in the body instead of HTTP Basic. */
  token_auth_method?: 'client_secret_basic' | 'client_secret_post';
}

/**
 * How a user can authenticate. `api_key` and `bearer_token` are a form of credential_fields;
 * `oauth2` is the authorization-code flow with PKCE, and may also need fields (a Jira site URL).
 */
export type AuthOption =
  | { type: 'api_key'; credential_fields: CredentialField[] }
  | { type: 'bearer_token'; credential_fields: CredentialField[] }
  | { type: 'oauth2'; oauth2: OAuth2Config; credential_fields: CredentialField[] };

export type AuthType = AuthOption['type'];

/** MCP tool annotations (hints for clients; not guarantees). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The credential injected into one tool call: the form values, or the OAuth access token. */
export interface InjectedCredential {
  auth_type: AuthType;
  /** Values of the credential_fields (API key, site URL, connection string...). */
  values: Record<string, string>;
  /** For oauth2: the current access token. */
  access_token?: string;
}

/** What an executor gets besides its input. */
export interface ToolContext {
  credential: InjectedCredential;
  /** The provider's API base URL for this call: the catalog default, a deployment override, or a self-hosted URL. */
  baseUrl: string;
  /** Cancels the call (the runtime's timeout or the client going away). */
  signal: AbortSignal;
  /**
   * HTTP client (@patchbay/outbound's request-style client); the runtime passes one that refuses
   * private addresses for user-supplied hosts. Redirects come back as they are, never followed.
   */
  http: OutboundHttp;
  /** Options of the deployment (row caps, statement timeouts...). */
  limits: ToolLimits;
}

export interface ToolLimits {
  /** Longest a provider call may take. */
  timeoutMs: number;
  /** Most rows a SQL tool returns. */
  maxRows: number;
  /** Largest provider response body read, in bytes. */
  maxResponseBytes: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = { timeoutMs: 30_000, maxRows: 500, maxResponseBytes: 5 * 1024 * 1024 };

export interface ToolDefinition<Input = Record<string, unknown>, Output = unknown> {
  /** snake_case, unique within the connector; exposed as `<slug>__<name>`. */
  name: string;
  description: string;
  /** `{type: 'object', properties: {input: {...}}, required: ['input']}` as the spec shows. */
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  annotations: ToolAnnotations;
  /** Runs the tool: receives the value of the top-level `input` property. */
  execute(ctx: ToolContext, input: Input): Promise<Output>;
}

export interface ConnectorDefinition {
  slug: string;
  name: string;
  description: string;
  logo_url: string;
  categories: string[];
  /** Where the connector comes from: `builtin` for this catalog. */
  source: 'builtin';
  /** The provider's documentation home. */
  source_url: string;
  /** Default API base URL; overridable per deployment (tests, GitHub Enterprise) or per credential (Jira site). */
  default_base_url: string;
  /** A credential field whose value, when set, replaces the base URL (e.g. `site_url` for Jira). */
  base_url_field?: string;
  auth_options: AuthOption[];
  tools: Array<ToolDefinition<any, any>>;
}
