import { principalOf } from '@patchbay/auth';
import { Body, Controller, Delete, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import type { ConnectorRecord } from '../../domain/connectors';
import { deleteCustomConnector, parseRegistration, refreshCustomConnector, registerCustomConnector } from '../../domain/custom-connectors';
import type { DiscoveryFailure } from '../../domain/mcp-discovery';
import type { ToolChanges } from '../../domain/tool-definitions';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

/** How Patchbay authenticates to the remote MCP server. */
export interface CustomConnectorAuth {
  /**
   * `none` for a server without authentication, or `secret`. OAuth (`oauth2`) is not supported for
   * custom MCP servers: give a token the server accepts as a bearer token instead.
   */
  type: string;
  /** With type `secret`: sent to this server only, as `Authorization: Bearer <secret>`. Stored encrypted; never returned. */
  secret?: string;
  [other: string]: unknown;
}

/** Registers a remote MCP server (Streamable HTTP) as a custom connector. */
export interface RegisterCustomConnectorBody {
  /**
   * Display name.
   * @minLength 1
   * @maxLength 255
   */
  name: string;
  /**
   * The server's MCP endpoint, a public `https://` URL without user or password (for example
   * https://mcp.example.com/mcp). Its host must resolve only to public addresses.
   */
  url: string;
  /** Default empty. */
  description?: string;
  /**
   * Identifier in paths and tool names (`<slug>__<tool>`): 1 to 64 lowercase letters, digits and
   * hyphens. Default: derived from the name. Must not be a built-in connector's slug.
   */
  slug?: string;
  auth: CustomConnectorAuth;
}

/** A 409 body: the slug or URL is already registered in this organization and environment. */
export interface RegistrationConflictBody {
  detail: string;
  code: 'conflict';
  conflicting: { field: 'slug' | 'url'; connector: { id: string; slug: string } };
}

/** A 409 body: tool packs still include the connector. */
export interface DeletionConflictBody {
  detail: string;
  code: 'conflict';
  dependents: Array<{ type: 'tool_pack'; id: string; name: string }>;
}

/** A failed MCP handshake: `failure` says what failed. */
export interface HandshakeFailureBody {
  detail: string;
  code: 'bad_gateway' | 'gateway_timeout' | 'validation_error';
  failure: DiscoveryFailure;
  /** For blocked_destination: scheme, credentials_in_url, private_address or invalid_url. */
  reason?: string;
}

export interface RefreshConnectorResponse {
  connector: ConnectorRecord;
  /** Tool names by what happened to their definitions; `changed` names the fields that differ. */
  changes: ToolChanges;
}

@Route('api/v1/connectors')
@Tags('Connectors')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks the management:all scope, or the member lacks the permission the route names')
export class CustomConnectorsController extends Controller {
  /**
   * Registers a remote MCP server by URL. Patchbay runs the MCP handshake (initialize, then
   * tools/list through every page) and stores the connector with its tools only if it succeeds:
   * on any failure nothing is written and the error's `failure` says what failed.
   * Only public https:// URLs are accepted (checked on the resolved addresses, and again on every
   * later connection).
   */
  @Security('session', ['manage_connectors'])
  @Security('access_key', ['management:all'])
  @Post('/')
  @SuccessResponse(200, 'Registered: the connector detail with its tools (input_schema, output_schema, annotations)')
  @Response<HandshakeFailureBody | ErrorBody>(400, 'Invalid body; a URL Patchbay may not call (failure blocked_destination); the server refused the secret (failure auth_refused)')
  @Response<RegistrationConflictBody>(409, 'The slug or the URL is already registered in this organization and environment')
  @Response<HandshakeFailureBody>(502, 'The server is unreachable, failed TLS, is not an MCP server, answered 5xx or an MCP error')
  @Response<HandshakeFailureBody>(504, 'The handshake did not finish within the time limit')
  public async registerConnector(@Request() req: ExpressRequest, @Body() body: RegisterCustomConnectorBody): Promise<ConnectorRecord> {
    const registration = parseRegistration(body);
    return registerCustomConnector(servicesOf(req), principalOf(req), registration);
  }

  /**
   * Re-discovers a custom connector's tools with its stored secret and reports which tool
   * definitions were added, removed or changed since the last discovery (a server that silently
   * rewrites a tool's description is reported in `changed`). On failure the stored tools stay.
   */
  @Security('session', ['manage_connectors'])
  @Security('access_key', ['management:all'])
  @Post('{slug}/refresh')
  @Response<ErrorBody>(404, 'No custom connector with this slug in this organization and environment (built-in connectors included)')
  @Response<HandshakeFailureBody>(502, 'The handshake failed; `failure` says how')
  @Response<HandshakeFailureBody>(504, 'The handshake did not finish within the time limit')
  public async refreshConnector(@Request() req: ExpressRequest, @Path() slug: string): Promise<RefreshConnectorResponse> {
    return refreshCustomConnector(servicesOf(req), principalOf(req), slug);
  }

  /**
   * Deletes a custom connector with the credentials stored for it. Only connectors registered
   * through POST can be deleted; built-in ones and other organizations' are 404.
   */
  @Security('session', ['manage_connectors'])
  @Security('access_key', ['management:all'])
  @Delete('{slug}')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorBody>(404, 'Built-in, unknown, or another organization\'s or environment\'s connector')
  @Response<DeletionConflictBody>(409, 'Tool packs still include the connector; remove it from them first')
  public async deleteConnector(@Request() req: ExpressRequest, @Path() slug: string): Promise<void> {
    await deleteCustomConnector(servicesOf(req), principalOf(req), slug);
    this.setStatus(204);
  }
}
