import { pageNumberList, parsePageParams, publicRequestUrl } from '@patchbay/pagination';
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { sessionOf } from '../../authentication';
import type { InvitationLink, MemberRecord } from '../../domain/members/members';
import { servicesOf } from '../../services';
import type { ErrorBody, PaginatedList } from '../schemas';

export interface InviteMemberBody {
  email: string;
  /** Built-in role ids (admin, developer, security, read_only) and/or custom role ids; at least one. */
  role_ids: string[];
}

export interface UpdateMemberBody {
  /** The member's new roles (replaces them all). */
  role_ids?: string[];
  /** disabled ends the member's sessions at once; active re-enables a disabled member. */
  status?: 'active' | 'disabled';
}

export interface InvitedMember {
  member: MemberRecord;
  /** The single-use link to hand over (valid 7 days); shown only now. */
  invitation: InvitationLink;
}

@Route('api/v1/members')
@Tags('Members')
@Response<ErrorBody>(401, 'No session, or it has ended')
@Response<ErrorBody>(403, 'The member lacks the permission the message names, or a cross-site request')
export class MembersController extends Controller {
  /**
   * The organization's members and open invitations, oldest first.
   * @param search Part of an email or name (case-insensitive).
   * @param status invited, active or disabled.
   * @param page Page number, from 1.
   * @param page_size Items per page, 1 to 100 (default 20).
   */
  @Get('/')
  @Security('session', ['view_members'])
  public async listMembers(@Request() req: ExpressRequest, @Query() search?: string, @Query() status?: string, @Query() page?: string, @Query() page_size?: string): Promise<PaginatedList<MemberRecord>> {
    const params = parsePageParams(page, page_size);
    const { members, publicBaseUrl } = servicesOf(req);
    const { count, results } = await members.list(sessionOf(req).organizationId, { search, status }, params);
    return pageNumberList(req, params, count, results, publicBaseUrl);
  }

  /** Invites a person with roles: returns the invited member and a copyable single-use link (7 days). */
  @Post('/')
  @Security('session', ['manage_members'])
  @SuccessResponse(201, 'Invited')
  @Response<ErrorBody>(400, 'Invalid email or unknown role')
  @Response<ErrorBody>(409, 'Already a member')
  public async inviteMember(@Request() req: ExpressRequest, @Body() body: InviteMemberBody): Promise<InvitedMember> {
    const principal = sessionOf(req);
    const { members, publicBaseUrl } = servicesOf(req);
    const baseUrl = publicRequestUrl(req, publicBaseUrl).origin;
    const invited = await members.invite({ kind: 'member', principal }, principal.organizationId, body, baseUrl);
    this.setStatus(201);
    return invited;
  }

  @Get('{member_id}')
  @Security('session', ['view_members'])
  @Response<ErrorBody>(404, 'No such member')
  public async getMember(@Request() req: ExpressRequest, @Path() member_id: string): Promise<MemberRecord> {
    return servicesOf(req).members.get(sessionOf(req).organizationId, member_id);
  }

  /**
   * Changes a member's roles, or disables / re-enables them. The owner cannot be demoted or disabled,
   * and no change may leave the organization without an active member able to manage members.
   */
  @Patch('{member_id}')
  @Security('session', ['manage_members'])
  @Response<ErrorBody>(400, 'Owner, self-disable, last member manager, or unknown role')
  @Response<ErrorBody>(404, 'No such member')
  public async updateMember(@Request() req: ExpressRequest, @Path() member_id: string, @Body() body: UpdateMemberBody): Promise<MemberRecord> {
    return servicesOf(req).members.update(sessionOf(req), member_id, body);
  }

  /** Removes a member or cancels an invitation; their sessions in this organization end at once. */
  @Delete('{member_id}')
  @Security('session', ['manage_members'])
  @SuccessResponse(204, 'Removed')
  @Response<ErrorBody>(400, 'The owner, yourself, or the last member able to manage members')
  @Response<ErrorBody>(404, 'No such member')
  public async removeMember(@Request() req: ExpressRequest, @Path() member_id: string): Promise<void> {
    await servicesOf(req).members.remove(sessionOf(req), member_id);
    this.setStatus(204);
  }
}
