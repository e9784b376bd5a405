import { principalOf } from '@patchbay/auth';
import { Body, Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import {
  createLinkedAccount,
  deleteLinkedAccount,
  getLinkedAccount,
  listLinkedAccounts,
  regenerateAccountToken,
  toLinkedAccountView,
  type LinkedAccountCreated,
  type LinkedAccountInput,
  type LinkedAccountView,
} from '../../domain/linked-accounts';
import { syncSummariesOf, type LinkedAccountSyncSummary } from '../../domain/linked-account-summary';
import { parseBooleanQuery } from '../../domain/records';
import { listSyncRuns, toSyncRunView, type SyncRunView } from '../../sync/sync-history';
import { ValidationError, type FieldError } from '@patchbay/errors';
import { servicesOf } from '../../services';
import type { ErrorBody, Paginated } from '../schemas';

/** A linked account with, when asked for (`include_sync_summary=true`), where its syncs stand. */
export interface LinkedAccountWithSummary extends LinkedAccountView {
  /** Present with include_sync_summary=true. */
  sync_summary?: LinkedAccountSyncSummary;
}

function wantsSummary(value: string | undefined): boolean {
  const errors: FieldError[] = [];
  const wanted = parseBooleanQuery('include_sync_summary', value, errors);
  if (errors.length > 0) throw new ValidationError(errors);
  return wanted;
}

@Route('api/mktg/v1/linked-accounts')
@Tags('Linked accounts')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired access key')
export class LinkedAccountsController extends Controller {
  /**
   * Links an account of a marketing platform from your server (the link flow's alternative). The
   * credentials are checked with the platform, then sealed; the initial full sync starts at once and
   * incremental syncs follow every `sync_frequency_seconds`. The `account_token` is returned only here.
   * A test key links test accounts, which only test keys see.
   */
  @Security('session', ['manage_linked_accounts'])
  @Security('access_key')
  @Post('/')
  @SuccessResponse(201, 'Created')
  @Response<ErrorBody>(400, 'A field is invalid or the platform refused the credentials: the error names it')
  @Response<ErrorBody>(409, 'The end_user_origin_id already has a linked account')
  @Response<ErrorBody>(503, 'The platform could not be reached to check the credentials')
  public async createLinkedAccount(@Request() req: ExpressRequest, @Body() body: LinkedAccountInput): Promise<LinkedAccountCreated> {
    const created = await createLinkedAccount(servicesOf(req), principalOf(req), body);
    this.setStatus(201);
    return created;
  }

  /**
   * The organization's linked accounts of the key's environment, oldest first, as a cursor list
   * (`next`, `previous`, `results`).
   * @param cursor The `next` or `previous` of an earlier page, unchanged.
   * @param page_size 1 to 100, default 100.
   * @param include_sync_summary true adds sync_summary to each account: its sync statuses, its last failed run and its record counts.
   * @param status Only accounts with this status: COMPLETE, INCOMPLETE or RELINK_NEEDED.
   * @param platform Only accounts of this platform: hubspot, zoom or eventbrite.
   * @param search Only accounts whose end_user_origin_id or end_user_organization_name contains this (any case).
   * @param order created_at (default, oldest first, Merge's order) or -created_at (newest first); keep it unchanged while paging.
   */
  @Security('session', ['view_linked_accounts'])
  @Security('access_key')
  @Get('/')
  @Response<ErrorBody>(400, 'A parameter is invalid (the error names it), or the cursor was made for the other order')
  public async listLinkedAccounts(
    @Request() req: ExpressRequest,
    @Query() cursor?: string,
    @Query() page_size?: string,
    @Query() include_sync_summary?: string,
    @Query() status?: string,
    @Query() platform?: string,
    @Query() search?: string,
    @Query() order?: string,
  ): Promise<Paginated<LinkedAccountWithSummary>> {
    const summary = wantsSummary(include_sync_summary);
    const services = servicesOf(req);
    const page = await listLinkedAccounts(services, principalOf(req), { cursor, page_size, status, platform, search, order });
    const summaries = summary ? await syncSummariesOf(services.db, page.results.map((a) => a.id)) : null;
    return {
      next: page.next,
      previous: page.previous,
      results: page.results.map((a) => {
        const found = summaries?.get(a.id);
        return found ? { ...toLinkedAccountView(a), sync_summary: found } : toLinkedAccountView(a);
      }),
    };
  }

  @Security('session', ['view_linked_accounts'])
  @Security('access_key')
  @Get('{id}')
  @Response<ErrorBody>(404, 'No such linked account in this organization and environment')
  public async getLinkedAccount(@Request() req: ExpressRequest, @Path() id: string, @Query() include_sync_summary?: string): Promise<LinkedAccountWithSummary> {
    const summary = wantsSummary(include_sync_summary);
    const services = servicesOf(req);
    const account = await getLinkedAccount(services, principalOf(req), id);
    const found = summary ? (await syncSummariesOf(services.db, [account.id])).get(account.id) : undefined;
    return found ? { ...toLinkedAccountView(account), sync_summary: found } : toLinkedAccountView(account);
  }

  /**
   * The account's sync history: its finished runs (done, partly done or failed), newest first, as a
   * cursor list. A run paused by a rate limit or a transient failure appears once it finishes.
   * @param cursor The `next` or `previous` of an earlier page, unchanged.
   * @param page_size 1 to 100, default 100.
   */
  @Security('session', ['view_linked_accounts'])
  @Security('access_key')
  @Get('{id}/sync-runs')
  @Response<ErrorBody>(400, 'cursor or page_size is invalid: the error names it')
  @Response<ErrorBody>(404, 'No such linked account in this organization and environment')
  public async listSyncRuns(@Request() req: ExpressRequest, @Path() id: string, @Query() cursor?: string, @Query() page_size?: string): Promise<Paginated<SyncRunView>> {
    const services = servicesOf(req);
    const account = await getLinkedAccount(services, principalOf(req), id);
    const page = await listSyncRuns(services.db, account.id, { cursor, page_size });
    return { next: page.next, previous: page.previous, results: page.results.map(toSyncRunView) };
  }

  /** Deletes the linked account, every record synced from it and its sync schedule; its account token stops working. */
  @Security('session', ['manage_linked_accounts'])
  @Security('access_key')
  @Delete('{id}')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorBody>(404, 'No such linked account in this organization and environment')
  public async deleteLinkedAccount(@Request() req: ExpressRequest, @Path() id: string): Promise<void> {
    await deleteLinkedAccount(servicesOf(req), principalOf(req), id);
    this.setStatus(204);
  }

  /** A new account token for a linked account whose token was lost (Bearer only); the old one stops working at once. */
  @Security('session', ['manage_linked_accounts'])
  @Security('access_key')
  @Post('{id}/regenerate-account-token')
  @Response<ErrorBody>(404, 'No such linked account in this organization and environment')
  public async regenerateLinkedAccountToken(@Request() req: ExpressRequest, @Path() id: string): Promise<{ linked_account_id: string; account_token: string }> {
    const services = servicesOf(req);
    const account = await getLinkedAccount(services, principalOf(req), id);
    return regenerateAccountToken(services, principalOf(req), account);
  }
}
