import { READ_ONLY, arr, bool, inputSchema, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { nextCursor, slackCall, type SlackEnvelope } from './client';
import { cursorParam, nextCursorSchema } from './params';

interface SlackUser {
  id: string;
  name: string;
  real_name?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_admin?: boolean;
  tz?: string;
  profile?: { real_name?: string; display_name?: string; email?: string; title?: string };
}

const nullableString = { type: ['string', 'null'] };

const userSchema = objectSchema(
  {
    id: str('User ID (U… or W…), for mentions as <@ID>'),
    name: str('Username (handle)'),
    real_name: nullableString,
    display_name: nullableString,
    email: { type: ['string', 'null'], description: 'Needs the users:read.email scope; null otherwise' },
    title: nullableString,
    is_bot: bool('Bots and apps'),
    is_admin: bool('Workspace admin'),
    deleted: bool('Deactivated accounts'),
    timezone: nullableString,
  },
  ['id', 'name', 'is_bot', 'deleted'],
);

function toUser(u: SlackUser) {
  return {
    id: u.id,
    name: u.name,
    real_name: u.real_name || u.profile?.real_name || null,
    display_name: u.profile?.display_name || null,
    email: u.profile?.email ?? null,
    title: u.profile?.title || null,
    is_bot: u.is_bot ?? false,
    is_admin: u.is_admin ?? false,
    deleted: u.deleted ?? false,
    timezone: u.tz ?? null,
  };
}

export const listUsers: ToolDefinition<{ limit?: number; cursor?: string }> = {
  name: 'list_users',
  description: 'List the members of the Slack workspace (people and bots, deactivated ones flagged with deleted) with their IDs, names, titles and emails. Page through with next_cursor.',
  input_schema: inputSchema({
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'Most users to return (1 to 1000, default 200); Slack may return fewer before the last page.' },
    cursor: cursorParam,
  }),
  output_schema: objectSchema({ users: arr(userSchema, 'Users'), next_cursor: nextCursorSchema }, ['users', 'next_cursor']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await slackCall<SlackEnvelope & { members: SlackUser[] }>(ctx, 'users.list', { query: { limit: input.limit ?? 200, cursor: input.cursor } });
    return { users: res.members.map(toUser), next_cursor: nextCursor(res) };
  },
};

export const getUser: ToolDefinition<{ user: string }> = {
  name: 'get_user',
  description: 'Get one Slack user by ID (from a message\'s user field or list_users): name, display name, title, email, time zone.',
  input_schema: inputSchema({ user: str('User ID, e.g. U0123ABCD', { minLength: 1 }) }, ['user']),
  output_schema: userSchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await slackCall<SlackEnvelope & { user: SlackUser }>(ctx, 'users.info', { query: { user: input.user } });
    return toUser(res.user);
  },
};
