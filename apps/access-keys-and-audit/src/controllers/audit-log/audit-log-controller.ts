import { callerOf } from '../../authentication';
import { pageNumberList, parsePageParams } from '@patchbay/pagination';
import type { Request as ExpressRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { listAuditEvents, type AuditEventRecord } from '../../domain/audit-log';
import { servicesOf } from '../../services';
import type { ErrorBody, PaginatedList } from '../schemas';

@Route('api/v1/audit-log')
@Tags('Audit log')
@Security('session', ['view_audit_log'])
@Security('access_key', ['management:all'])
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or no session')
@Response<ErrorBody>(403, 'The key lacks management:all, or the member lacks view_audit_log')
export class AuditLogController extends Controller {
  /**
   * The audit log of the calling key's (or the member session's) environment, most recent first. Without created_after it
   * covers the last 90 days; pass an earlier created_after to pull older events.
   * @param created_after Inclusive lower bound (ISO 8601 date-time).
   * @param created_before Inclusive upper bound (ISO 8601 date-time).
   * @param event_type Only events of this type, e.g. access_key.revoked.
   * @param user_id Only events about this registered user.
   * @param page Page number, from 1.
   * @param page_size Items per page, 1 to 100 (default 20).
   */
  @Get('/')
  @Response<ErrorBody>(400, 'Invalid filter')
  public async listAuditLog(
    @Request() req: ExpressRequest,
    @Query() created_after?: string,
    @Query() created_before?: string,
    @Query() event_type?: string,
    @Query() user_id?: string,
    @Query() page?: string,
    @Query() page_size?: string,
  ): Promise<PaginatedList<AuditEventRecord>> {
    const params = parsePageParams(page, page_size);
    const { db, publicBaseUrl } = servicesOf(req);
    const { count, results } = await listAuditEvents(
      db,
      callerOf(req),
      { createdAfter: created_after, createdBefore: created_before, eventType: event_type, userId: user_id },
      params,
    );
    return pageNumberList(req, params, count, results, publicBaseUrl);
  }
}
