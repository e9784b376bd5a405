import { principalOf } from '@patchbay/auth';
import { Controller, Delete, Path, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { deleteUserCredential } from '../../domain/credentials';
import { afterCommit, registryChange, servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

@Route('api/v1/credentials')
@Tags('Credentials')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks the management:all scope, or the member lacks the permission the route names')
export class CredentialsController extends Controller {
  /**
   * Removes the registered user's stored credential for the connector (its INDIVIDUAL connection).
   * Tool calls that need it fail until the user authenticates again; the registered user and its
   * history stay.
   */
  @Security('session', ['manage_registered_users'])
  @Security('access_key', ['management:all'])
  @Delete('registered-users/{registered_user_id}/connectors/{connector_slug}')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorBody>(404, 'Unknown user, Resource not in API key scope., or no credential for this connector')
  public async deleteRegisteredUserCredential(@Request() req: ExpressRequest, @Path() registered_user_id: string, @Path() connector_slug: string): Promise<void> {
    const services = servicesOf(req);
    const principal = principalOf(req);
    await deleteUserCredential(services.db, principal, registered_user_id, connector_slug);
    await afterCommit(services, registryChange(principal, 'credentials', { registered_user_id, connector_slug }));
    this.setStatus(204);
  }
}
