import { principalOf } from '@patchbay/auth';
import { pageNumberList, parsePageParams } from '@patchbay/pagination';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { ToolPackService, type ToolPackConnectorInput, type ToolPackRecord } from '../../domain/tool-packs';
import { afterCommit, registryChange, servicesOf } from '../../services';
import { searchQuery } from '../query-params';
import type { ErrorBody, PaginatedList } from '../schemas';

export interface CreateToolPackBody {
  /** 1 to 255 characters. */
  name: string;
  description: string;
  connectors?: ToolPackConnectorInput[];
}

export interface UpdateToolPackBody {
  name?: string;
  description?: string;
  /** Replaces the whole connector list when given. */
  connectors?: ToolPackConnectorInput[];
}

@Route('api/v1/tool-packs')
@Tags('Tool packs')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks the management:all scope, or the member lacks the permission the route names')
export class ToolPacksController extends Controller {
  /**
   * Tool packs of the key's environment that the key may see, newest first.
   * @param search Packs whose name contains it, in either case.
   * @param page Page number, from 1.
   * @param page_size Items per page, 1 to 100 (default 20).
   */
  @Security('session', ['view_tool_packs'])
  @Security('access_key', ['management:all'])
  @Get('/')
  public async listToolPacks(@Request() req: ExpressRequest, @Query() search?: string, @Query() page?: string, @Query() page_size?: string): Promise<PaginatedList<ToolPackRecord>> {
    const params = parsePageParams(page, page_size);
    const { db, config } = servicesOf(req);
    const { count, results } = await new ToolPackService(db).list(principalOf(req), params, searchQuery(search));
    return pageNumberList(req, params, count, results, config.PATCHBAY_PUBLIC_URL);
  }

  /** Creates a tool pack. Each connector entry: connector_id, auth_scope (default INDIVIDUAL), tool_names (empty or omitted: every tool). */
  @Security('session', ['manage_tool_packs'])
  @Security('access_key', ['management:all'])
  @Post('/')
  @SuccessResponse(201, 'Created')
  @Response<ErrorBody>(400, 'Invalid body; unknown connectors or tool names are listed, and a connector listed twice is named')
  public async createToolPack(@Request() req: ExpressRequest, @Body() body: CreateToolPackBody): Promise<ToolPackRecord> {
    const services = servicesOf(req);
    const principal = principalOf(req);
    const pack = await new ToolPackService(services.db).create(principal, body);
    await afterCommit(services, registryChange(principal, 'tool_packs', { tool_pack_id: pack.id }));
    this.setStatus(201);
    return pack;
  }

  @Security('session', ['view_tool_packs'])
  @Security('access_key', ['management:all'])
  @Get('{id}')
  @Response<ErrorBody>(404, 'Not found, or Resource not in API key scope.')
  public async getToolPack(@Request() req: ExpressRequest, @Path() id: string): Promise<ToolPackRecord> {
    return new ToolPackService(servicesOf(req).db).get(principalOf(req), id);
  }

  /**
   * Changes name, description or connectors; omitted fields stay as they are. `connectors` replaces the
   * whole list. Concurrent updates of one pack apply one after the other: the last one wins, whole.
   */
  @Security('session', ['manage_tool_packs'])
  @Security('access_key', ['management:all'])
  @Patch('{id}')
  @Response<ErrorBody>(400, 'Invalid body; unknown connectors or tool names are listed, and a connector listed twice is named')
  @Response<ErrorBody>(404, 'Not found, or Resource not in API key scope.')
  public async updateToolPack(@Request() req: ExpressRequest, @Path() id: string, @Body() body: UpdateToolPackBody): Promise<ToolPackRecord> {
    const services = servicesOf(req);
    const principal = principalOf(req);
    const pack = await new ToolPackService(services.db).update(principal, id, body);
    await afterCommit(services, registryChange(principal, 'tool_packs', { tool_pack_id: pack.id }));
    return pack;
  }

  /** Deletes the tool pack. MCP endpoints of the pack stop answering. */
  @Security('session', ['manage_tool_packs'])
  @Security('access_key', ['management:all'])
  @Delete('{id}')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorBody>(404, 'Not found, or Resource not in API key scope.')
  public async deleteToolPack(@Request() req: ExpressRequest, @Path() id: string): Promise<void> {
    const services = servicesOf(req);
    const principal = principalOf(req);
    await new ToolPackService(services.db).delete(principal, id);
    await afterCommit(services, registryChange(principal, 'tool_packs', { tool_pack_id: id }));
    this.setStatus(204);
  }
}
