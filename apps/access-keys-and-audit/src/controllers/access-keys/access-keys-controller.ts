import { principalOf } from '@patchbay/auth';
import { pageNumberList, parsePageParams } from '@patchbay/pagination';
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { callerOf } from '../../authentication';
import type { AccessKeyRecord, AccessKeyWithSecret, KeyActor } from '../../domain/access-keys';
import { servicesOf } from '../../services';
import type { ErrorBody, PaginatedList } from '../schemas';

export interface CreateAccessKeyBody {
  /** A name for people reading the key list. 1 to 255 characters. */
  name: string;
  /**
   * runtime:all (MCP tool calls) and/or management:all (resource management). Defaults to the calling key's scopes.
   * Not accepted from a console session: keys made in the console get both.
   */
  scopes?: string[];
  /** Tool packs the key may use; null means unrestricted (only if the calling key is). Defaults to the calling key's. */
  tool_pack_ids?: string[] | null;
  /** Registered users the key may act as; null means unrestricted (only if the calling key is). Defaults to the calling key's. */
  registered_user_ids?: string[] | null;
  /** When the key stops working; null means never (only if the calling key never expires). Default: in 90 days. */
  expires_at?: string | null;
  /**
   * Alternative to expires_at: lifetime in seconds (an hour is 3600).
   * @isInt expires_in must be a whole number of seconds
   */
  expires_in?: number;
}

/** The key or the console member acting: a member's permission was checked by the route's @Security. */
function actorOf(req: ExpressRequest): KeyActor {
  return req.sessionPrincipal ? { kind: 'member', principal: req.sessionPrincipal } : { kind: 'key', principal: principalOf(req) };
}

/**
 * Access keys, for a key with management:all or for a member signed in to the console (view_access_keys
 * to read, manage_access_keys, "Manage organization API keys", to create, regenerate and revoke).
 */
@Route('api/v1/access-keys')
@Tags('Access keys')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or no session')
@Response<ErrorBody>(403, 'The key lacks the management:all scope, the member lacks the permission named, or a cross-site request')
export class AccessKeysController extends Controller {
  /**
   * Lists the active keys of the calling key's (or the session's) environment, newest first unless sorted.
   * @param search Part of the key's name (case-insensitive), or its last four characters.
   * @param sort created_at, name or expires_at; a leading - sorts descending (default -created_at).
   * @param page Page number, from 1.
   * @param page_size Items per page, 1 to 100 (default 20).
   */
  @Get('/')
  @Security('session', ['view_access_keys'])
  @Security('access_key', ['management:all'])
  @Response<ErrorBody>(400, 'Unknown sort')
  public async listAccessKeys(@Request() req: ExpressRequest, @Query() search?: string, @Query() sort?: string, @Query() page?: string, @Query() page_size?: string): Promise<PaginatedList<AccessKeyRecord>> {
    const params = parsePageParams(page, page_size);
    const { accessKeys, publicBaseUrl } = servicesOf(req);
    const { count, results } = await accessKeys.list(callerOf(req), params, { search, sort });
    return pageNumberList(req, params, count, results, publicBaseUrl);
  }

  /**
   * Creates a key no wider than the calling key on any dimension. The secret is returned in `key`
   * exactly once; afterwards only `key_masked` is readable. Without an expiry the key expires after 90 days.
   * From a console session the key cannot choose scopes (it gets runtime:all and management:all) and is
   * unrestricted unless tool_pack_ids or registered_user_ids say otherwise; nothing can be edited later.
   */
  @Post('/')
  @Security('session', ['manage_access_keys'])
  @Security('access_key', ['management:all'])
  @SuccessResponse(201, 'Created')
  @Response<ErrorBody>(400, 'Invalid body (the errors list names each field)')
  public async createAccessKey(@Request() req: ExpressRequest, @Body() body: CreateAccessKeyBody): Promise<AccessKeyWithSecret> {
    const { accessKeys } = servicesOf(req);
    const created = req.sessionPrincipal ? await accessKeys.createForMember(req.sessionPrincipal, body) : await accessKeys.create(principalOf(req), body);
    this.setStatus(201);
    return created;
  }

  /** One key of the calling key's environment. */
  @Get('{key_id}')
  @Security('session', ['view_access_keys'])
  @Security('access_key', ['management:all'])
  @Response<ErrorBody>(404, 'No such key in this environment')
  public async getAccessKey(@Request() req: ExpressRequest, @Path() key_id: string): Promise<AccessKeyRecord> {
    return servicesOf(req).accessKeys.get(callerOf(req), key_id);
  }

  /**
   * Replaces the key's secret; scope and expiry are kept and the old secret stops working at once.
   * Test keys and keys linked to a service account cannot be regenerated.
   */
  @Post('{key_id}/regenerate')
  @Security('session', ['manage_access_keys'])
  @Security('access_key', ['management:all'])
  @Response<ErrorBody>(400, 'Service-account-linked key, test key or expired key')
  @Response<ErrorBody>(403, 'Access key may only act on itself or on keys within its scope.')
  @Response<ErrorBody>(404, 'No such key in this environment')
  public async regenerateAccessKey(@Request() req: ExpressRequest, @Path() key_id: string): Promise<AccessKeyWithSecret> {
    return servicesOf(req).accessKeys.regenerate(actorOf(req), key_id);
  }

  /** Revokes the key permanently. */
  @Post('{key_id}/revoke')
  @Security('session', ['manage_access_keys'])
  @Security('access_key', ['management:all'])
  @SuccessResponse(204, 'Revoked')
  @Response<ErrorBody>(400, 'The master key, or the organization\'s last unrestricted production key')
  @Response<ErrorBody>(403, 'Access key may only act on itself or on keys within its scope.')
  @Response<ErrorBody>(404, 'No such key in this environment')
  public async revokeAccessKey(@Request() req: ExpressRequest, @Path() key_id: string): Promise<void> {
    await servicesOf(req).accessKeys.revoke(actorOf(req), key_id);
    this.setStatus(204);
  }
}
