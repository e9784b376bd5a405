import { principalOf } from '@patchbay/auth';
import { pageNumberList, parsePageParams } from '@patchbay/pagination';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { RegisteredUserService, type RegisteredUserRecord } from '../../domain/registered-users';
import { afterCommit, registryChange, servicesOf } from '../../services';
import { parseBooleanQuery, searchQuery } from '../query-params';
import type { ErrorBody, PaginatedList } from '../schemas';

export interface SharedCredentialGroupBody {
  /** Your identifier of the user's company: SHARED credentials are shared by users with the same one. */
  origin_company_id: string;
  origin_company_name: string;
  /** Free-form string labels (default `{}`). */
  custom_groupings?: { [key: string]: string };
}

export interface CreateRegisteredUserBody {
  /** Your unique identifier for the user (1 to 255 characters); create is idempotent on it. */
  origin_user_id: string;
  /** Human-readable name, 1 to 255 characters. */
  origin_user_name: string;
  shared_credential_group: SharedCredentialGroupBody;
  /** HUMAN (default; also for null) or SYSTEM. */
  user_type?: 'HUMAN' | 'SYSTEM' | null;
}

export interface UpdateRegisteredUserBody {
  /** Changes your identifier of the user; 409 when another user of the environment has it. */
  origin_user_id?: string;
  origin_user_name?: string;
  /** Replaces the whole group. */
  shared_credential_group?: SharedCredentialGroupBody;
  /** null resets to HUMAN. */
  user_type?: 'HUMAN' | 'SYSTEM' | null;
}

@Route('api/v1/registered-users')
@Tags('Registered users')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks the management:all scope, or the member lacks the permission the route names')
export class RegisteredUsersController extends Controller {
  /**
   * Registered users, newest first. Which kinds are listed: `is_test` when given (true: only test users,
   * false: only production users); else `include_test_users=true` lists both kinds; else production
   * users only, except that a test key of an organization with environment matching lists test users.
   * A key never sees the other environment's users, so the result is always bounded to the key's
   * environment (a production key never lists test users; a test key lists nothing unless the rules
   * above ask for test users). A key restricted to registered users lists only those.
   * @param include_test_users true lists production and test users (ignored when is_test is given).
   * @param is_test true: only test users; false: only production users. Overrides the key's default.
   * @param origin_user_id Only the user with this origin_user_id.
   * @param search Users whose origin_user_id starts with it or whose origin_user_name contains it, in either case (at most 255 characters).
   * @param page Page number, from 1.
   * @param page_size Items per page, 1 to 100 (default 20).
   */
  @Security('session', ['view_registered_users'])
  @Security('access_key', ['management:all'])
  @Get('/')
  @Response<ErrorBody>(400, 'A query parameter is invalid')
  public async listRegisteredUsers(
    @Request() req: ExpressRequest,
    @Query() include_test_users?: string,
    @Query() is_test?: string,
    @Query() origin_user_id?: string,
    @Query() search?: string,
    @Query() page?: string,
    @Query() page_size?: string,
  ): Promise<PaginatedList<RegisteredUserRecord>> {
    const filters = {
      includeTestUsers: parseBooleanQuery('include_test_users', include_test_users),
      isTest: parseBooleanQuery('is_test', is_test),
      originUserId: origin_user_id === undefined || origin_user_id === '' ? undefined : origin_user_id,
      search: searchQuery(search),
    };
    const params = parsePageParams(page, page_size);
    const { db, config } = servicesOf(req);
    const { count, results } = await new RegisteredUserService(db).list(principalOf(req), filters, params);
    return pageNumberList(req, params, count, results, config.PATCHBAY_PUBLIC_URL);
  }

  /**
   * Creates a registered user, idempotently on origin_user_id within the organization and the key's
   * environment: 201 with the new record, or 200 with the existing record unchanged (other fields of
   * the body are then ignored). `is_test` follows the key's environment. A key restricted to registered
   * users cannot add new ones (404 `Resource not in API key scope.`).
   */
  @Security('session', ['manage_registered_users'])
  @Security('access_key', ['management:all'])
  @Post('/')
  @SuccessResponse(201, 'Created')
  @Response<RegisteredUserRecord>(200, 'A user with this origin_user_id exists: its record, unchanged')
  @Response<ErrorBody>(400, 'Invalid body; the field is named')
  @Response<ErrorBody>(404, 'Resource not in API key scope.')
  public async createRegisteredUser(@Request() req: ExpressRequest, @Body() body: CreateRegisteredUserBody): Promise<RegisteredUserRecord> {
    const services = servicesOf(req);
    const { record, created } = await new RegisteredUserService(services.db).create(principalOf(req), body);
    if (created) await afterCommit(services);
    this.setStatus(created ? 201 : 200);
    return record;
  }

  @Security('session', ['view_registered_users'])
  @Security('access_key', ['management:all'])
  @Get('{registered_user_id}')
  @Response<ErrorBody>(404, 'Not found, or Resource not in API key scope.')
  public async getRegisteredUser(@Request() req: ExpressRequest, @Path() registered_user_id: string): Promise<RegisteredUserRecord> {
    return new RegisteredUserService(servicesOf(req).db).get(principalOf(req), registered_user_id);
  }

  /** Partial update: omitted fields stay as they are; shared_credential_group is replaced as a whole. */
  @Security('session', ['manage_registered_users'])
  @Security('access_key', ['management:all'])
  @Patch('{registered_user_id}')
  @Response<ErrorBody>(400, 'Invalid body; the field is named')
  @Response<ErrorBody>(404, 'Not found, or Resource not in API key scope.')
  @Response<ErrorBody>(409, 'origin_user_id is taken by another registered user')
  public async updateRegisteredUser(@Request() req: ExpressRequest, @Path() registered_user_id: string, @Body() body: UpdateRegisteredUserBody): Promise<RegisteredUserRecord> {
    const services = servicesOf(req);
    const principal = principalOf(req);
    const record = await new RegisteredUserService(services.db).update(principal, registered_user_id, body);
    // Its profile is in the tool lists the runtime caches, and its company picks its SHARED credentials.
    await afterCommit(services, registryChange(principal, 'registered_users', { registered_user_id: record.id }));
    return record;
  }

  /**
   * Irreversibly deletes the user's credentials (its INDIVIDUAL connections), link tokens and profile,
   * and every tool-call record of the user (mcp-runtime deletes those when it receives the deletion
   * over the queue). SHARED and ORGANIZATION credentials stay with the company and organization.
   */
  @Security('session', ['manage_registered_users'])
  @Security('access_key', ['management:all'])
  @Delete('{registered_user_id}')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorBody>(404, 'Not found, or Resource not in API key scope.')
  public async deleteRegisteredUser(@Request() req: ExpressRequest, @Path() registered_user_id: string): Promise<void> {
    const services = servicesOf(req);
    const principal = principalOf(req);
    await new RegisteredUserService(services.db).delete(principal, registered_user_id);
    await afterCommit(services, registryChange(principal, 'registered_users', { registered_user_id }));
    this.setStatus(204);
  }
}
