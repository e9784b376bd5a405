import { principalOf } from '@patchbay/auth';
import { parseCursorPageSize, type CursorList } from '@patchbay/pagination';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import type { ToolCallRecordDetail, ToolCallRecordView } from '../../domain/tool-call-records';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

@Route('api/v1/tool-call-records')
@Tags('Tool-call records')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks management:all')
export class ToolCallRecordsController extends Controller {
  /**
   * Every MCP tools/call of the key's environment, newest first. Without `created_after` the list covers the last 90 days.
   * Records stay live for the organization's retention (`audit_retention_days`, 90 days by default), then move to an archive,
   * where they are kept until their registered user is deleted: a `created_after` earlier than the window lists them too,
   * in the same newest-first order, and cursor pages run across both. Deleting a registered user deletes all their records, archived ones included.
   * Records arrive over a queue, usually within a second of the call. A key restricted to tool packs or registered users sees only theirs.
   * @param registered_user_id Only calls for this registered user.
   * @param tool_pack_id Only calls through this tool pack.
   * @param tool_name Only this tool, as called: `<connector_slug>__<tool_name>`.
   * @param connector_slug Only tools of this connector.
   * @param status success, error or blocked.
   * @param created_after Inclusive lower bound on the call time (ISO 8601); earlier than the retention window, archived records are listed too.
   * @param created_before Inclusive upper bound on the call time (ISO 8601).
   * @param cursor The `next` or `previous` value of an earlier page.
   * @param page_size Items per page, 1 to 100 (default 100).
   */
  @Security('session', ['view_tool_call_records'])
  @Security('access_key', ['management:all'])
  @Get('/')
  @Response<ErrorBody>(400, 'Invalid filter or cursor')
  public async listToolCallRecords(
    @Request() req: ExpressRequest,
    @Query() registered_user_id?: string,
    @Query() tool_pack_id?: string,
    @Query() tool_name?: string,
    @Query() connector_slug?: string,
    @Query() status?: string,
    @Query() created_after?: string,
    @Query() created_before?: string,
    @Query() cursor?: string,
    @Query() page_size?: string,
  ): Promise<CursorList<ToolCallRecordView>> {
    const size = parseCursorPageSize(page_size);
    return servicesOf(req).toolCallRecords.list(
      principalOf(req),
      { registered_user_id, tool_pack_id, tool_name, connector_slug, status, created_after, created_before },
      cursor,
      size,
    );
  }

  /**
   * One record, with the arguments the tool received and the result the agent received, as security scanning left them
   * (a redacted value reads `[REDACTED:<LABEL>]`), cut at 16,384 characters of JSON each. An archived record (past the
   * retention window) is returned as a live one.
   */
  @Security('session', ['view_tool_call_records'])
  @Security('access_key', ['management:all'])
  @Get('{record_id}')
  @Response<ErrorBody>(404, 'No such record in the key\'s organization and environment (or its registered user was deleted)')
  public async getToolCallRecord(@Request() req: ExpressRequest, @Path() record_id: string): Promise<ToolCallRecordDetail> {
    return servicesOf(req).toolCallRecords.get(principalOf(req), record_id);
  }
}
