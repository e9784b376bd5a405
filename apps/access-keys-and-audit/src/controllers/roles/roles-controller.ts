import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { sessionOf } from '../../authentication';
import type { RoleRecord } from '../../domain/members/roles';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

export interface CreateRoleBody {
  name: string;
  description?: string;
  /** Permission codenames from GET /api/v1/permissions (may be empty). */
  permissions: string[];
}

export interface UpdateRoleBody {
  name?: string;
  description?: string;
  permissions?: string[];
}

export interface RoleList {
  results: RoleRecord[];
}

@Route('api/v1/roles')
@Tags('Roles')
@Response<ErrorBody>(401, 'No session, or it has ended')
@Response<ErrorBody>(403, 'The member lacks the permission the message names, or a cross-site request')
export class RolesController extends Controller {
  /** The built-in roles, then the organization's custom roles by name. */
  @Get('/')
  @Security('session', ['view_roles'])
  public async listRoles(@Request() req: ExpressRequest): Promise<RoleList> {
    return { results: await servicesOf(req).roles.list(sessionOf(req).organizationId) };
  }

  @Get('{role_id}')
  @Security('session', ['view_roles'])
  @Response<ErrorBody>(404, 'No such role')
  public async getRole(@Request() req: ExpressRequest, @Path() role_id: string): Promise<RoleRecord> {
    return servicesOf(req).roles.get(sessionOf(req).organizationId, role_id);
  }

  /** Creates a custom role made of any permissions of the catalog. */
  @Post('/')
  @Security('session', ['manage_roles'])
  @SuccessResponse(201, 'Created')
  @Response<ErrorBody>(400, 'Missing name, unknown permission, or a built-in role\'s name')
  @Response<ErrorBody>(409, 'A role of that name exists')
  public async createRole(@Request() req: ExpressRequest, @Body() body: CreateRoleBody): Promise<RoleRecord> {
    const role = await servicesOf(req).roles.create(sessionOf(req), body);
    this.setStatus(201);
    return role;
  }

  /** Changes a custom role; members holding it gain or lose the permissions at once. Built-in roles cannot change. */
  @Patch('{role_id}')
  @Security('session', ['manage_roles'])
  @Response<ErrorBody>(400, 'Built-in role, unknown permission')
  @Response<ErrorBody>(404, 'No such role')
  public async updateRole(@Request() req: ExpressRequest, @Path() role_id: string, @Body() body: UpdateRoleBody): Promise<RoleRecord> {
    return servicesOf(req).roles.update(sessionOf(req), role_id, body);
  }

  /** Deletes a custom role; members holding it lose it. */
  @Delete('{role_id}')
  @Security('session', ['manage_roles'])
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorBody>(400, 'Built-in role')
  @Response<ErrorBody>(404, 'No such role')
  public async deleteRole(@Request() req: ExpressRequest, @Path() role_id: string): Promise<void> {
    await servicesOf(req).roles.delete(sessionOf(req), role_id);
    this.setStatus(204);
  }
}
