import { Controller, Get, Header, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { getEvent, listEventContacts, listEvents, type ContactView, type EventView } from '../../domain/records';
import { servicesOf } from '../../services';
import { accountOf, type ErrorBody, type Paginated } from '../schemas';

@Route('api/mktg/v1/events')
@Tags('Events')
@Response<ErrorBody>(401, 'Missing or invalid access key, session or account token')
@Response<ErrorBody>(403, "The member's roles lack the route's permission (the error names it)")
@Response<ErrorBody>(404, 'linked_account_id (console sessions) names no linked account of this organization and environment')
@Response<ErrorBody>(400, 'A parameter is invalid (the error names it), or the cursor was made for other filters')
export class EventsController extends Controller {
  /**
   * The linked account's events, in the order unified-data first stored them (created_at ascending,
   * ties by id), with keyset cursors: keep every parameter but cursor and page_size unchanged while paging.
   * @param X-Account-Token The linked account's token.
   * @param _linkedAccountId Console sessions only, instead of X-Account-Token: the linked account's id (checked against the session's organization and environment). A key sending it gets 400.
   * @param created_after Only events stored after this ISO 8601 date-time.
   * @param modified_after Only events a sync changed after this ISO 8601 date-time (modified_at).
   * @param include_deleted_data Include events deleted on the platform (remote_was_deleted).
   * @param include_remote_data Include the original payloads (remote_data).
   * @param include_shell_data Include shell records (referenced, not fetched yet).
   * @param page_size 1 to 100, default 100.
   */
  @Security('session', ['view_linked_accounts'])
  @Security('access_key')
  @Get('/')
  public async listEvents(
    @Request() req: ExpressRequest,
    @Header('X-Account-Token') _accountToken?: string,
    @Query('linked_account_id') _linkedAccountId?: string,
    @Query() created_after?: string,
    @Query() created_before?: string,
    @Query() modified_after?: string,
    @Query() modified_before?: string,
    @Query() remote_id?: string,
    @Query() include_deleted_data?: string,
    @Query() include_remote_data?: string,
    @Query() include_shell_data?: string,
    @Query() cursor?: string,
    @Query() page_size?: string,
  ): Promise<Paginated<EventView>> {
    const account = await accountOf(req);
    const { db, readDb } = servicesOf(req);
    return listEvents(readDb ?? db, account.id, {
      created_after, created_before, modified_after, modified_before, remote_id, include_deleted_data, include_remote_data, include_shell_data, cursor, page_size,
    });
  }

  /**
   * @param _linkedAccountId Console sessions only, instead of X-Account-Token: the linked account's id (checked against the session's organization and environment). A key sending it gets 400.
   */
  @Security('session', ['view_linked_accounts'])
  @Security('access_key')
  @Get('{id}')
  @Response<ErrorBody>(404, 'No such event in this linked account')
  public async getEvent(
    @Request() req: ExpressRequest,
    @Path() id: string,
    @Header('X-Account-Token') _accountToken?: string,
    @Query('linked_account_id') _linkedAccountId?: string,
    @Query() include_remote_data?: string,
    @Query() include_shell_data?: string,
  ): Promise<EventView> {
    const account = await accountOf(req);
    return getEvent(servicesOf(req).db, account.id, id, { include_remote_data, include_shell_data });
  }

  /**
   * The contacts taking part in an event (registrants, attendees, participants), paged as the events list.
   * @param _linkedAccountId Console sessions only, instead of X-Account-Token: the linked account's id (checked against the session's organization and environment). A key sending it gets 400.
   */
  @Security('session', ['view_linked_accounts'])
  @Security('access_key')
  @Get('{parent_id}/contacts')
  @Response<ErrorBody>(404, 'No such event in this linked account')
  public async listEventContacts(
    @Request() req: ExpressRequest,
    @Path() parent_id: string,
    @Header('X-Account-Token') _accountToken?: string,
    @Query('linked_account_id') _linkedAccountId?: string,
    @Query() include_deleted_data?: string,
    @Query() include_remote_data?: string,
    @Query() include_shell_data?: string,
    @Query() cursor?: string,
    @Query() page_size?: string,
  ): Promise<Paginated<ContactView>> {
    const account = await accountOf(req);
    const { db, readDb } = servicesOf(req);
    return listEventContacts(readDb ?? db, account.id, parent_id, { include_deleted_data, include_remote_data, include_shell_data, cursor, page_size });
  }
}
