import { PERMISSIONS } from '@patchbay/permissions';
import { Controller, Get, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ErrorBody } from '../schemas';

export interface PermissionEntry {
  codename: string;
  display_name: string;
  /** organization, tool_connectors, model_gateway or unified_data. */
  area: string;
  /** One row of the console's role matrix. */
  resource: string;
  /** view, manage, or action (a single write of its own). */
  kind: string;
  description: string;
}

export interface PermissionCatalog {
  results: PermissionEntry[];
}

@Route('api/v1/permissions')
@Tags('Roles')
export class PermissionsController extends Controller {
  /** The whole permission catalog (the same names are management keys' scopes), grouped by area and resource. */
  @Get('/')
  @Security('session')
  @Response<ErrorBody>(401, 'No session, or it has ended')
  public listPermissions(): PermissionCatalog {
    return { results: PERMISSIONS.map((p) => ({ codename: p.codename, display_name: p.displayName, area: p.area, resource: p.resource, kind: p.kind, description: p.description })) };
  }
}
