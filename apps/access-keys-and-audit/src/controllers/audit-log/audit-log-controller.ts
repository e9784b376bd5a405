import { callerOf } from '../../authentication';
import { pageNumberList, parsePageParams } from '@patchbay/pagination';
import type { Request as ExpressRequest } from 'express';
import { Readable } from 'node:stream';
import { Controller, Get, Produces, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { exportAuditEventsCsv, listAuditEvents, type AuditEventRecord } from '../../domain/audit-log';
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

  /**
   * The same events as CSV (newest first, at most 100000 rows), with the list's filters: one column per
   * field, details as JSON. Cells that a spreadsheet would run as a formula start with a quote.
   * @param created_after Inclusive lower bound (ISO 8601 date-time).
   * @param created_before Inclusive upper bound (ISO 8601 date-time).
   * @param event_type Only events of this type.
   * @param user_id Only events about this registered user.
   */
  @Get('export')
  @Produces('text/csv')
  @Response<ErrorBody>(400, 'Invalid filter')
  public async exportAuditLog(
    @Request() req: ExpressRequest,
    @Query() created_after?: string,
    @Query() created_before?: string,
    @Query() event_type?: string,
    @Query() user_id?: string,
  ): Promise<string> {
    const lines = exportAuditEventsCsv(servicesOf(req).db, callerOf(req), { createdAfter: created_after, createdBefore: created_before, eventType: event_type, userId: user_id });
    // The first line is produced before answering, so an invalid filter is a 400, not a broken download.
    const first = await lines.next();
    const caller = callerOf(req);
    this.setHeader('Content-Type', 'text/csv; charset=utf-8');
    this.setHeader('Content-Disposition', `attachment; filename="audit-log-${caller.environment}-${new Date().toISOString().slice(0, 10)}.csv"`);
    async function* all(): AsyncGenerator<string> {
      if (!first.done) yield first.value;
      yield* lines;
    }
    // tsoa pipes a readable stream as the body (typed string for the OpenAPI document: text/csv).
    return Readable.from(all()) as unknown as string;
  }
}
