import { principalOf } from '@patchbay/auth';
import { ValidationError } from '@patchbay/errors';
import { pageNumberList, parsePageParams } from '@patchbay/pagination';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { listConnectors, recordOf, resolveConnector, type ConnectorRecord } from '../../domain/connectors';
import { servicesOf } from '../../services';
import type { ErrorBody, PaginatedList } from '../schemas';

@Route('api/v1/connectors')
@Tags('Connectors')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks the management:all scope, or the member lacks the permission the route names')
export class ConnectorsController extends Controller {
  /**
   * Built-in connectors (visible to every organization), then the organization's custom MCP connectors.
   * @param search Case-insensitive match on name and slug.
   * @param page Page number, from 1.
   * @param page_size Items per page, 1 to 100 (default 20).
   */
  @Security('session', ['view_connectors'])
  @Security('access_key', ['management:all'])
  @Get('/')
  public async listConnectors(@Request() req: ExpressRequest, @Query() search?: string, @Query() page?: string, @Query() page_size?: string): Promise<PaginatedList<ConnectorRecord>> {
    const params = parsePageParams(page, page_size);
    const { db, config } = servicesOf(req);
    const { count, results } = await listConnectors(db, principalOf(req), { search: search?.trim() || undefined, offset: params.offset, limit: params.pageSize });
    return pageNumberList(req, params, count, results, config.PATCHBAY_PUBLIC_URL);
  }

  /**
   * One connector. With auth_mode=runtime the record carries credential_fields (what a user fills in)
   * instead of auth_options; include_tool_details=true adds each tool's input_schema, output_schema and annotations.
   * @param auth_mode `runtime` for credential_fields; omit for the full auth_options.
   */
  @Security('session', ['view_connectors'])
  @Security('access_key', ['management:all'])
  @Get('{slug}')
  @Response<ErrorBody>(404, 'No such connector for this organization and environment')
  public async getConnector(@Request() req: ExpressRequest, @Path() slug: string, @Query() auth_mode?: string, @Query() include_tool_details?: boolean): Promise<ConnectorRecord> {
    if (auth_mode !== undefined && auth_mode !== 'runtime' && auth_mode !== 'full') {
      throw ValidationError.forField('query.auth_mode', 'must be runtime (credential_fields) or full (auth_options)');
    }
    const connector = await resolveConnector(servicesOf(req).db, principalOf(req), slug);
    return recordOf(connector, { runtime: auth_mode === 'runtime', toolDetails: include_tool_details === true });
  }
}
