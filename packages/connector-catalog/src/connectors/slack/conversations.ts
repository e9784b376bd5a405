import { READ_ONLY, arr, bool, inputSchema, int, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { isoFromTs, nextCursor, slackCall, type SlackEnvelope } from './client';
import { channelParam, cursorParam, nextCursorSchema, tsParam } from './params';

interface SlackChannel {
  id: string;
  name?: string;
  is_private?: boolean;
  is_archived?: boolean;
  is_member?: boolean;
  is_im?: boolean;
  is_mpim?: boolean;
  user?: string;
  topic?: { value: string };
  purpose?: { value: string };
  num_members?: number;
  created: number;
}

interface SlackMessage {
  ts: string;
  type: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  thread_ts?: string;
  reply_count?: number;
  reactions?: Array<{ name: string; count: number }>;
  edited?: unknown;
}

const nullableString = { type: ['string', 'null'] };

const channelSchema = objectSchema(
  {
    id: str('Channel ID'),
    name: nullableString,
    type: str('public_channel, private_channel, mpim or im', { enum: ['public_channel', 'private_channel', 'mpim', 'im'] }),
    is_archived: bool('Archived channels take no new messages'),
    is_member: bool('Whether the bot is in the channel (needed to read history and post)'),
    topic: nullableString,
    purpose: nullableString,
    num_members: { type: ['integer', 'null'] },
    created_at: str('ISO 8601'),
  },
  ['id', 'name', 'type', 'is_member'],
);

function channelType(c: SlackChannel): 'public_channel' | 'private_channel' | 'mpim' | 'im' {
  if (c.is_im) return 'im';
  if (c.is_mpim) return 'mpim';
  return c.is_private ? 'private_channel' : 'public_channel';
}

function toChannel(c: SlackChannel) {
  return {
    id: c.id,
    name: c.name ?? null,
    type: channelType(c),
    is_archived: c.is_archived ?? false,
    is_member: c.is_member ?? c.is_im ?? false,
    topic: c.topic?.value || null,
    purpose: c.purpose?.value || null,
    num_members: c.num_members ?? null,
    created_at: isoFromTs(c.created),
  };
}

export const messageSchema = objectSchema(
  {
    ts: str('Message timestamp: its ID within the channel'),
    time: str('ISO 8601'),
    user: { type: ['string', 'null'], description: 'Author user ID (null for some bot and system messages)' },
    bot_id: nullableString,
    text: str('Message text (Slack mrkdwn)'),
    subtype: { type: ['string', 'null'], description: 'Set for non-ordinary messages (channel_join, bot_message...)' },
    thread_ts: { type: ['string', 'null'], description: 'ts of the thread parent when the message starts or is in a thread' },
    reply_count: int('Replies in the thread this message starts'),
    reactions: arr(objectSchema({ name: str('Emoji name'), count: int('How many reacted') }, ['name', 'count']), 'Reactions'),
    edited: bool('Whether the message was edited'),
  },
  ['ts', 'time', 'text'],
);

export function toMessage(m: SlackMessage) {
  return {
    ts: m.ts,
    time: isoFromTs(m.ts),
    user: m.user ?? null,
    bot_id: m.bot_id ?? null,
    text: m.text ?? '',
    subtype: m.subtype ?? null,
    thread_ts: m.thread_ts ?? null,
    reply_count: m.reply_count ?? 0,
    reactions: (m.reactions ?? []).map((r) => ({ name: r.name, count: r.count })),
    edited: m.edited !== undefined,
  };
}

type ChannelType = 'public_channel' | 'private_channel' | 'mpim' | 'im';

export const listChannels: ToolDefinition<{ types?: ChannelType[]; exclude_archived?: boolean; limit?: number; cursor?: string }> = {
  name: 'list_channels',
  description:
    'List Slack channels in the workspace with their IDs (public channels by default; add private_channel for private channels the bot is in, mpim/im for group and direct messages). Archived channels are left out unless exclude_archived is false. Page through with next_cursor.',
  input_schema: inputSchema({
    types: arr(str('Conversation type', { enum: ['public_channel', 'private_channel', 'mpim', 'im'] }), 'Which kinds of conversations to list (default public_channel)', { minItems: 1, uniqueItems: true }),
    exclude_archived: bool('Leave archived channels out (default true)', { default: true }),
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'Most channels to return (1 to 1000, default 200); Slack may return fewer before the last page.' },
    cursor: cursorParam,
  }),
  output_schema: objectSchema({ channels: arr(channelSchema, 'Channels'), next_cursor: nextCursorSchema }, ['channels', 'next_cursor']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await slackCall<SlackEnvelope & { channels: SlackChannel[] }>(ctx, 'conversations.list', {
      query: { types: (input.types ?? ['public_channel']).join(','), exclude_archived: input.exclude_archived ?? true, limit: input.limit ?? 200, cursor: input.cursor },
    });
    return { channels: res.channels.map(toChannel), next_cursor: nextCursor(res) };
  },
};

export const getChannelHistory: ToolDefinition<{ channel: string; limit?: number; cursor?: string; oldest?: string; latest?: string; inclusive?: boolean }> = {
  name: 'get_channel_history',
  description:
    'Read the messages of a Slack channel, newest first (thread replies stay in their thread; a parent shows reply_count). Optionally between the timestamps oldest and latest. The bot must be a member of the channel. Page through with next_cursor.',
  input_schema: inputSchema(
    {
      channel: channelParam,
      limit: { type: 'integer', minimum: 1, maximum: 999, default: 50, description: 'Most messages to return (1 to 999, default 50).' },
      cursor: cursorParam,
      oldest: tsParam('Only messages after this Slack timestamp (seconds since the epoch, e.g. 1767225600.000000)'),
      latest: tsParam('Only messages before this Slack timestamp'),
      inclusive: bool('Include messages exactly at oldest or latest'),
    },
    ['channel'],
  ),
  output_schema: objectSchema({ messages: arr(messageSchema, 'Messages, newest first'), has_more: bool('Whether older messages remain'), next_cursor: nextCursorSchema }, ['messages', 'has_more', 'next_cursor']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await slackCall<SlackEnvelope & { messages: SlackMessage[]; has_more?: boolean }>(ctx, 'conversations.history', {
      query: { channel: input.channel, limit: input.limit ?? 50, cursor: input.cursor, oldest: input.oldest, latest: input.latest, inclusive: input.inclusive },
    });
    return { messages: res.messages.map(toMessage), has_more: res.has_more ?? false, next_cursor: nextCursor(res) };
  },
};
