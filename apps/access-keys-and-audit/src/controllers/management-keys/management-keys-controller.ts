import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Get, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { sessionOf } from '../../authentication';
import { createMemberManagementKey, listManagementKeys, revokeManagementKey, type ManagementKeyRecord } from '../../domain/management-keys';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

export interface CreateManagementKeyBody {
  /** A name for people reading the key list. 1 to 255 characters. */
  name: string;
}

export interface ManagementKeyWithSecret extends ManagementKeyRecord {
  /** The key (mgmt_...), shown only in this answer. */
  key: string;
}

export interface ManagementKeyList {
  results: ManagementKeyRecord[];
}

/**
 * The model gateway's management keys, made in the console (spec: "Management keys are created only in
 * the dashboard"). A key carries, as its scopes, the permissions its creator holds when making it, and
 * keeps them when the creator's roles change; they belong to the organization, not to an environment.
 */
@Route('api/v1/management-keys')
@Tags('Management keys')
@Response<ErrorBody>(401, 'No session, or it has ended')
@Response<ErrorBody>(403, 'The member lacks the permission the message names, or a cross-site request')
export class ManagementKeysController extends Controller {
  /** The organization's management keys, revoked ones included, newest first (never their secrets). */
  @Get('/')
  @Security('session', ['view_access_keys'])
  public async listManagementKeys(@Request() req: ExpressRequest): Promise<ManagementKeyList> {
    return { results: await listManagementKeys(servicesOf(req).db, sessionOf(req).organizationId) };
  }

  /** Makes a key whose scopes are exactly the permissions the signed-in member holds now; its secret is in `key`, once. */
  @Post('/')
  @Security('session', ['manage_access_keys'])
  @SuccessResponse(201, 'Created')
  @Response<ErrorBody>(400, 'Missing or too long name')
  public async createManagementKey(@Request() req: ExpressRequest, @Body() body: CreateManagementKeyBody): Promise<ManagementKeyWithSecret> {
    const created = await createMemberManagementKey(servicesOf(req).db, sessionOf(req), body);
    this.setStatus(201);
    return created;
  }

  /** Revokes the key; the gateway stops accepting it within a second. Revoking a revoked key changes nothing. */
  @Post('{management_key_id}/revoke')
  @Security('session', ['manage_access_keys'])
  @Response<ErrorBody>(404, 'No such management key in this organization')
  public async revokeManagementKey(@Request() req: ExpressRequest, @Path() management_key_id: string): Promise<ManagementKeyRecord> {
    const services = servicesOf(req);
    return revokeManagementKey(services.db, management_key_id, services.publishInvalidations, sessionOf(req));
  }
}
