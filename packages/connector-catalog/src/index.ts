export { BUILTIN_CONNECTORS, findTool, getBuiltinConnector } from './catalog';
export { DEFAULT_TOOL_LIMITS } from './core/types';
export type {
  AuthOption,
  AuthType,
  ConnectorDefinition,
  CredentialField,
  InjectedCredential,
  JsonSchema,
  OAuth2Config,
  ToolAnnotations,
  ToolContext,
  ToolDefinition,
  ToolLimits,
} from './core/types';
export { ToolError } from './core/tool-error';
export type { ToolErrorKind } from './core/tool-error';
export { createProviderClient, encodePath, parseRetryAfter } from './core/provider-http';
export type { ProviderClientOptions, ProviderRequest, ProviderResponse } from './core/provider-http';
export { DESTRUCTIVE, IDEMPOTENT_WRITE, READ_ONLY, WRITE, arr, bool, inputSchema, int, limit, objectSchema, str } from './core/schema';
export { validateToolArguments } from './core/validate';
export { baseUrlOverridesFromEnv, resolveBaseUrl } from './core/base-url';
export { nextLink, pageOf } from './core/link-header';
