import { principalOf } from '@patchbay/auth';
import { Body, Controller, Delete, Get, Header, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { createFieldMapping, deleteFieldMapping, listFieldMappings, type FieldMappingInput, type FieldMappingView } from '../../domain/field-mappings';
import { servicesOf } from '../../services';
import { accountOf, type ErrorBody } from '../schemas';

@Route('api/mktg/v1/field-mappings')
@Tags('Field mappings')
@Response<ErrorBody>(401, 'Missing or invalid access key, session or account token')
@Response<ErrorBody>(403, "The member's roles lack the route's permission (the error names it)")
@Response<ErrorBody>(404, 'linked_account_id (console sessions) names no linked account of this organization and environment')
export class FieldMappingsController extends Controller {
  /**
   * The linked account's field mappings: platform fields copied into each record's `field_mappings.linked_account_defined_targets`.
   * @param _linkedAccountId Console sessions only, instead of X-Account-Token: the linked account's id (checked against the session's organization and environment). A key sending it gets 400.
   */
  @Security('session', ['view_linked_accounts'])
  @Security('access_key')
  @Get('/')
  public async listFieldMappings(@Request() req: ExpressRequest, @Header('X-Account-Token') _accountToken?: string, @Query('linked_account_id') _linkedAccountId?: string): Promise<{ results: FieldMappingView[] }> {
    return { results: await listFieldMappings(servicesOf(req), await accountOf(req)) };
  }

  /**
   * Maps a platform field onto a key of `field_mappings`; applied by the next sync (a full one).
   * @param _linkedAccountId Console sessions only, instead of X-Account-Token: the linked account's id (checked against the session's organization and environment). A key sending it gets 400.
   */
  @Security('session', ['manage_linked_accounts'])
  @Security('access_key')
  @Post('/')
  @SuccessResponse(201, 'Created')
  @Response<ErrorBody>(400, 'A field is invalid or the platform has no such field: the error names it')
  @Response<ErrorBody>(409, 'A mapping onto this target already exists')
  public async createFieldMapping(
    @Request() req: ExpressRequest,
    @Body() body: FieldMappingInput,
    @Header('X-Account-Token') _accountToken?: string,
    @Query('linked_account_id') _linkedAccountId?: string,
  ): Promise<FieldMappingView> {
    const created = await createFieldMapping(servicesOf(req), principalOf(req), await accountOf(req), body);
    this.setStatus(201);
    return created;
  }

  /**
   * @param _linkedAccountId Console sessions only, instead of X-Account-Token: the linked account's id (checked against the session's organization and environment). A key sending it gets 400.
   */
  @Security('session', ['manage_linked_accounts'])
  @Security('access_key')
  @Delete('{id}')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorBody>(404, 'No such field mapping on this linked account')
  public async deleteFieldMapping(@Request() req: ExpressRequest, @Path() id: string, @Header('X-Account-Token') _accountToken?: string, @Query('linked_account_id') _linkedAccountId?: string): Promise<void> {
    await deleteFieldMapping(servicesOf(req), principalOf(req), await accountOf(req), id);
    this.setStatus(204);
  }
}
