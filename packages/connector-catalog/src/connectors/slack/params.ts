import { str } from '../../core/schema';
import type { JsonSchema } from '../../core/types';

export const channelParam = str('Channel ID (C…, G… or D…), as list_channels returns it', { minLength: 1 });

/** Slack message timestamps identify messages: seconds and microseconds, `1767225600.000100`. */
export const tsParam = (description: string): JsonSchema => str(description, { pattern: '^\\d+\\.\\d+$' });

export const cursorParam = str('Cursor from next_cursor of an earlier call, for the next page', { minLength: 1 });

export const nextCursorSchema: JsonSchema = { type: ['string', 'null'], description: 'Pass as cursor to get the next page; null on the last page.' };
