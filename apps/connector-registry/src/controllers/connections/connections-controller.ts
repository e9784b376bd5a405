import { principalOf } from '@patchbay/auth';
import { pageNumberList, parsePageParams } from '@patchbay/pagination';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { AUTH_SCOPES, CONNECTION_STATUSES, listConnections, type ConnectionRecord } from '../../domain/connections';
import { servicesOf } from '../../services';
import { parseDateTimeQuery, parseEnumListQuery } from '../query-params';
import type { ErrorBody, PaginatedList } from '../schemas';

const text = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

@Route('api/v1/connections')
@Tags('Connections')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks the management:all scope, or the member lacks the permission the route names')
export class ConnectionsController extends Controller {
  /**
   * Stored credentials (connections) of the key's environment, newest first. Records never carry a
   * credential value. A key restricted to registered users sees only those users' INDIVIDUAL connections.
   * @param auth_scope INDIVIDUAL, SHARED or ORGANIZATION; several separated by commas.
   * @param company A company's origin id (origin_company_id): only the SHARED connections of that company.
   * @param connector A connector slug.
   * @param created_at_after Inclusive lower bound, ISO 8601 date-time with offset (or a date, midnight UTC).
   * @param created_at_before Inclusive upper bound, same format.
   * @param status ACTIVE or ERROR; both separated by a comma.
   * @param registered_user_id A registered user's id: only that user's INDIVIDUAL connections (its own credentials).
   * @param page Page number, from 1.
   * @param page_size Items per page, 1 to 100 (default 20).
   */
  @Security('session', ['view_registered_users'])
  @Security('access_key', ['management:all'])
  @Get('/')
  @Response<ErrorBody>(400, 'A query parameter is invalid; the field is named')
  public async listConnections(
    @Request() req: ExpressRequest,
    @Query() auth_scope?: string,
    @Query() company?: string,
    @Query() connector?: string,
    @Query() created_at_after?: string,
    @Query() created_at_before?: string,
    @Query() status?: string,
    @Query() registered_user_id?: string,
    @Query() page?: string,
    @Query() page_size?: string,
  ): Promise<PaginatedList<ConnectionRecord>> {
    const filters = {
      authScopes: parseEnumListQuery('auth_scope', auth_scope, AUTH_SCOPES),
      company: text(company),
      connector: text(connector),
      createdAtAfter: parseDateTimeQuery('created_at_after', created_at_after),
      createdAtBefore: parseDateTimeQuery('created_at_before', created_at_before),
      statuses: parseEnumListQuery('status', status, CONNECTION_STATUSES),
      registeredUserId: text(registered_user_id),
    };
    const params = parsePageParams(page, page_size);
    const { db, config } = servicesOf(req);
    const { count, results } = await listConnections(db, principalOf(req), filters, params);
    return pageNumberList(req, params, count, results, config.PATCHBAY_PUBLIC_URL);
  }
}
