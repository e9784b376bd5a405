import { principalOf } from '@patchbay/auth';
import { Controller, Get, Header, Path, Post, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { disableModel, enableModel, parseModelId } from '../../domain/sync-models';
import { requestFullPass } from '../../sync/full-pass';
import { enqueueSyncInTx } from '../../sync/scheduler';
import { setSyncStatuses, syncStatusesOf, toSyncStatusView, type SyncStatusView } from '../../sync/sync-status';
import { servicesOf } from '../../services';
import { accountOf, linkedAccountOf, type ErrorBody, type Paginated } from '../schemas';

@Route('api/mktg/v1/sync-status')
@Tags('Sync status')
@Response<ErrorBody>(401, 'Missing or invalid access key, session or account token')
@Response<ErrorBody>(403, "The member's roles lack the route's permission (the error names it)")
@Response<ErrorBody>(404, 'linked_account_id (console sessions) names no linked account of this organization and environment')
export class SyncStatusController extends Controller {
  /**
   * The sync state of each model of the linked account (Merge's SyncStatus).
   * @param _linkedAccountId Console sessions only, instead of X-Account-Token: the linked account's id (checked against the session's organization and environment). A key sending it gets 400.
   */
  @Security('session', ['view_linked_accounts'])
  @Security('access_key')
  @Get('/')
  public async listSyncStatus(@Request() req: ExpressRequest, @Header('X-Account-Token') _accountToken?: string, @Query('linked_account_id') _linkedAccountId?: string): Promise<Paginated<SyncStatusView>> {
    const account = await accountOf(req);
    const rows = await syncStatusesOf(servicesOf(req).db, account.id);
    return { next: null, previous: null, results: rows.map(toSyncStatusView) };
  }

  /**
   * Queues a full resync of every model now; answers with the statuses (SYNCING). Asked for while a sync
   * runs, the full pass follows that run; several requests during one run are served by one pass.
   * @param _linkedAccountId Console sessions only, instead of X-Account-Token: the linked account's id (checked against the session's organization and environment). A key sending it gets 400.
   */
  @Security('session', ['force_resync'])
  @Security('access_key')
  @Post('resync')
  public async resync(@Request() req: ExpressRequest, @Header('X-Account-Token') _accountToken?: string, @Query('linked_account_id') _linkedAccountId?: string): Promise<SyncStatusView[]> {
    const services = servicesOf(req);
    const account = await linkedAccountOf(req);
    // The request, its job and the status commit together: none of them is lost if Redis or this process is not there.
    await services.db.$transaction(async (tx) => {
      await requestFullPass(tx, account.id);
      await enqueueSyncInTx(tx, account, 'full', 'manual');
      await setSyncStatuses(tx, account.id, { status: 'SYNCING', nextSyncStart: new Date() });
    });
    await services.relay.kick();
    return (await syncStatusesOf(services.db, account.id)).map(toSyncStatusView);
  }

  /**
   * Stops syncing a model for the linked account (`mktg.Event` or `mktg.Contact`): its status becomes
   * DISABLED and stays so until enabled; its records stay readable. Disabling Event disables Contact
   * too (contacts are found through their events).
   * @param _linkedAccountId Console sessions only, instead of X-Account-Token: the linked account's id (checked against the session's organization and environment). A key sending it gets 400.
   */
  @Security('session', ['manage_linked_accounts'])
  @Security('access_key')
  @Post('{model_id}/disable')
  @Response<ErrorBody>(400, 'model_id is not mktg.Event or mktg.Contact')
  public async disableModel(@Request() req: ExpressRequest, @Path() model_id: string, @Header('X-Account-Token') _accountToken?: string, @Query('linked_account_id') _linkedAccountId?: string): Promise<SyncStatusView[]> {
    const account = await linkedAccountOf(req);
    const model = parseModelId(model_id);
    return (await disableModel(servicesOf(req), principalOf(req), account, model)).map(toSyncStatusView);
  }

  /**
   * Syncs a disabled model again: a full sync starts now (enabling Contact enables Event too).
   * @param _linkedAccountId Console sessions only, instead of X-Account-Token: the linked account's id (checked against the session's organization and environment). A key sending it gets 400.
   */
  @Security('session', ['manage_linked_accounts'])
  @Security('access_key')
  @Post('{model_id}/enable')
  @Response<ErrorBody>(400, 'model_id is not mktg.Event or mktg.Contact')
  public async enableModel(@Request() req: ExpressRequest, @Path() model_id: string, @Header('X-Account-Token') _accountToken?: string, @Query('linked_account_id') _linkedAccountId?: string): Promise<SyncStatusView[]> {
    const account = await linkedAccountOf(req);
    const model = parseModelId(model_id);
    return (await enableModel(servicesOf(req), principalOf(req), account, model)).map(toSyncStatusView);
  }
}
