import { principalOf } from '@patchbay/auth';
import { pageNumberList, parsePageParams } from '@patchbay/pagination';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { ApplicationCredentialService, type ApplicationCredentialRecord } from '../../domain/application-credentials';
import { afterCommit, registryChange, servicesOf } from '../../services';
import type { ErrorBody, PaginatedList } from '../schemas';

export interface CreateApplicationCredentialBody {
  /** Slug of an OAuth 2.0 connector, e.g. github. */
  connector: string;
  client_id: string;
  /** Stored encrypted and never returned. */
  client_secret?: string | null;
  /** Only needed for several OAuth apps per connector (one per customer tenant). */
  external_id?: string | null;
  /** Scopes to request instead of the connector's defaults. */
  scopes?: string[];
}

export interface UpdateApplicationCredentialBody {
  client_id?: string;
  /** null clears it. */
  client_secret?: string | null;
  /** null clears it. */
  external_id?: string | null;
  scopes?: string[];
}

@Route('api/v1/application-credentials')
@Tags('Application credentials')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks the management:all scope, or the member lacks the permission the route names')
export class ApplicationCredentialsController extends Controller {
  /**
   * The organization's OAuth apps in the key's environment.
   * @param external_id Only the one with this external_id.
   * @param slug Only those of this connector.
   */
  @Security('session', ['view_connectors'])
  @Security('access_key', ['management:all'])
  @Get('/')
  public async listApplicationCredentials(
    @Request() req: ExpressRequest,
    @Query() external_id?: string,
    @Query() slug?: string,
    @Query() page?: string,
    @Query() page_size?: string,
  ): Promise<PaginatedList<ApplicationCredentialRecord>> {
    const params = parsePageParams(page, page_size);
    const { db, box, config } = servicesOf(req);
    const { count, results } = await new ApplicationCredentialService(db, box).list(principalOf(req), { externalId: external_id, slug }, params);
    return pageNumberList(req, params, count, results, config.PATCHBAY_PUBLIC_URL);
  }

  @Security('session', ['manage_connectors'])
  @Security('access_key', ['management:all'])
  @Post('/')
  @SuccessResponse(201, 'Created')
  @Response<ErrorBody>(400, 'Invalid body')
  @Response<ErrorBody>(409, 'One already exists for this connector and external_id')
  public async createApplicationCredential(@Request() req: ExpressRequest, @Body() body: CreateApplicationCredentialBody): Promise<ApplicationCredentialRecord> {
    const services = servicesOf(req);
    const record = await new ApplicationCredentialService(services.db, services.box).create(principalOf(req), body);
    // Nothing the runtime caches was issued through it yet.
    await afterCommit(services);
    this.setStatus(201);
    return record;
  }

  @Security('session', ['view_connectors'])
  @Security('access_key', ['management:all'])
  @Get('{id}')
  @Response<ErrorBody>(404, 'Not found')
  public async getApplicationCredential(@Request() req: ExpressRequest, @Path() id: string): Promise<ApplicationCredentialRecord> {
    const { db, box } = servicesOf(req);
    return new ApplicationCredentialService(db, box).get(principalOf(req), id);
  }

  /** Omitted fields stay as they are; null clears client_secret or external_id. */
  @Security('session', ['manage_connectors'])
  @Security('access_key', ['management:all'])
  @Patch('{id}')
  @Response<ErrorBody>(400, 'Invalid body')
  @Response<ErrorBody>(404, 'Not found')
  public async updateApplicationCredential(@Request() req: ExpressRequest, @Path() id: string, @Body() body: UpdateApplicationCredentialBody): Promise<ApplicationCredentialRecord> {
    const services = servicesOf(req);
    const principal = principalOf(req);
    const record = await new ApplicationCredentialService(services.db, services.box).update(principal, id, body);
    await afterCommit(services, registryChange(principal, 'credentials', { connector_slug: record.connector }));
    return record;
  }

  /** Deletes the application credential and every user credential obtained through it. */
  @Security('session', ['manage_connectors'])
  @Security('access_key', ['management:all'])
  @Delete('{id}')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorBody>(404, 'Not found')
  public async deleteApplicationCredential(@Request() req: ExpressRequest, @Path() id: string): Promise<void> {
    const services = servicesOf(req);
    const principal = principalOf(req);
    const { connectorSlug } = await new ApplicationCredentialService(services.db, services.box).delete(principal, id);
    // The user credentials issued through it went with it.
    await afterCommit(services, registryChange(principal, 'credentials', { connector_slug: connectorSlug }));
    this.setStatus(204);
  }
}
