import { DESTRUCTIVE, WRITE, bool, inputSchema, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { isoFromTs, slackCall, type SlackEnvelope } from './client';
import { tsParam } from './params';

interface PostedMessage extends SlackEnvelope {
  channel: string;
  ts: string;
  text?: string;
  message?: { text?: string; thread_ts?: string };
}

const text = str('Message text; Slack mrkdwn (*bold*, _italic_, <https://example.com|links>, <@U123> mentions)', { minLength: 1, maxLength: 40000 });

const postedSchema = objectSchema(
  {
    channel: str('Channel ID the message is in'),
    ts: str('Message timestamp: its ID, for replies, updates and reactions'),
    time: str('ISO 8601'),
    thread_ts: { type: ['string', 'null'], description: 'Thread parent ts when the message is a reply' },
    text: str('Message text as Slack stored it'),
  },
  ['channel', 'ts', 'text'],
);

export const postMessage: ToolDefinition<{ channel: string; text: string; thread_ts?: string; reply_broadcast?: boolean }> = {
  name: 'post_message',
  description:
    'Post a message to a Slack channel as the bot, or reply in a thread with thread_ts (the ts of the parent message). The bot must be in private channels it posts to. Returns the new message\'s ts.',
  input_schema: inputSchema(
    {
      channel: str('Channel ID (preferred) or name such as #general', { minLength: 1 }),
      text,
      thread_ts: tsParam('Reply in the thread of this parent message ts'),
      reply_broadcast: bool('With thread_ts: also show the reply in the channel'),
    },
    ['channel', 'text'],
  ),
  output_schema: postedSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    const res = await slackCall<PostedMessage>(ctx, 'chat.postMessage', {
      json: { channel: input.channel, text: input.text, thread_ts: input.thread_ts, reply_broadcast: input.thread_ts ? input.reply_broadcast : undefined },
    });
    return { channel: res.channel, ts: res.ts, time: isoFromTs(res.ts), thread_ts: res.message?.thread_ts ?? null, text: res.message?.text ?? input.text };
  },
};

/**
 * Destructive because the previous text is replaced and Slack shows only "(edited)", not the old
 * version; idempotent because sending the same text again changes nothing more.
 */
export const updateMessage: ToolDefinition<{ channel: string; ts: string; text: string }> = {
  name: 'update_message',
  description: 'Replace the text of a message the bot posted earlier in Slack (Slack refuses to edit other users\' messages with cant_update_message).',
  input_schema: inputSchema({ channel: str('Channel ID of the message', { minLength: 1 }), ts: tsParam('ts of the message to change'), text }, ['channel', 'ts', 'text']),
  output_schema: postedSchema,
  annotations: { ...DESTRUCTIVE, idempotentHint: true },
  async execute(ctx, input) {
    const res = await slackCall<PostedMessage>(ctx, 'chat.update', { json: { channel: input.channel, ts: input.ts, text: input.text } });
    return { channel: res.channel, ts: res.ts, time: isoFromTs(res.ts), thread_ts: res.message?.thread_ts ?? null, text: res.text ?? res.message?.text ?? input.text };
  },
};
