import { IDEMPOTENT_WRITE, bool, inputSchema, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { ToolDefinition } from '../../core/types';
import { slackCall, type SlackEnvelope } from './client';
import { channelParam, tsParam } from './params';

export const addReaction: ToolDefinition<{ channel: string; timestamp: string; name: string }> = {
  name: 'add_reaction',
  description: 'Add an emoji reaction from the bot to a Slack message, e.g. name "eyes" or "white_check_mark". Reacting again with the same emoji is not an error.',
  input_schema: inputSchema(
    {
      channel: channelParam,
      timestamp: tsParam('ts of the message to react to'),
      name: str('Emoji name without colons (":thumbsup:" is accepted too)', { minLength: 1, maxLength: 100 }),
    },
    ['channel', 'timestamp', 'name'],
  ),
  output_schema: objectSchema(
    { channel: str('Channel ID'), timestamp: str('Message ts'), name: str('Emoji name'), already_reacted: bool('True when the bot had already added this reaction') },
    ['channel', 'timestamp', 'name', 'already_reacted'],
  ),
  annotations: IDEMPOTENT_WRITE,
  async execute(ctx, input) {
    const name = input.name.replace(/^:|:$/g, '');
    try {
      await slackCall<SlackEnvelope>(ctx, 'reactions.add', { json: { channel: input.channel, timestamp: input.timestamp, name } });
    } catch (err) {
      // The reaction the caller wants is there: the goal is met, so this is a success.
      if (err instanceof ToolError && err.kind === 'conflict' && err.message.includes('already_reacted')) {
        return { channel: input.channel, timestamp: input.timestamp, name, already_reacted: true };
      }
      throw err;
    }
    return { channel: input.channel, timestamp: input.timestamp, name, already_reacted: false };
  },
};
