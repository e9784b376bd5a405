import { READ_ONLY, arr, inputSchema, limit, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { notionRequest } from './client';
import { plainText, toPage, toParent, type NotionPage, type NotionParent, type RichText } from './content';
import { nextCursor, parentSchema, startCursor } from './schemas';

interface NotionDatabase {
  object: 'database';
  id: string;
  url: string;
  title: RichText[];
  parent: NotionParent;
  last_edited_time: string;
  archived?: boolean;
  in_trash?: boolean;
}

interface SearchInput {
  query?: string;
  object?: 'page' | 'database';
  sort_direction?: 'ascending' | 'descending';
  page_size?: number;
  start_cursor?: string;
}

function toResult(item: NotionPage | NotionDatabase) {
  if (item.object === 'database') {
    return { object: 'database', id: item.id, title: plainText(item.title), url: item.url, parent: toParent(item.parent), last_edited_time: item.last_edited_time, archived: Boolean(item.archived ?? item.in_trash) };
  }
  const page = toPage(item);
  return { object: 'page', id: page.id, title: page.title, url: page.url, parent: page.parent, last_edited_time: page.last_edited_time, archived: page.archived };
}

export const search: ToolDefinition<SearchInput> = {
  name: 'search',
  description: 'Search the Notion pages and databases shared with the integration by title, most recently edited first; page through with next_cursor.',
  input_schema: inputSchema({
    query: str('Text to look for in titles; omit to list everything shared'),
    object: str('Only pages or only databases', { enum: ['page', 'database'] }),
    sort_direction: str('By last edited time: descending (default) or ascending', { enum: ['ascending', 'descending'], default: 'descending' }),
    page_size: limit(100, 20),
    start_cursor: startCursor,
  }),
  output_schema: objectSchema(
    {
      results: arr(
        objectSchema(
          { object: str('page or database'), id: str('ID'), title: str('Plain-text title'), url: str('Web URL'), parent: parentSchema, last_edited_time: str('ISO 8601'), archived: { type: 'boolean' } },
          ['object', 'id', 'title', 'url'],
        ),
        'Matching pages and databases',
      ),
      next_cursor: nextCursor,
    },
    ['results', 'next_cursor'],
  ),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await notionRequest<{ results: Array<NotionPage | NotionDatabase>; next_cursor: string | null; has_more: boolean }>(ctx, {
      method: 'POST',
      path: '/v1/search',
      json: {
        ...(input.query ? { query: input.query } : {}),
        ...(input.object ? { filter: { property: 'object', value: input.object } } : {}),
        sort: { direction: input.sort_direction ?? 'descending', timestamp: 'last_edited_time' },
        page_size: input.page_size ?? 20,
        ...(input.start_cursor ? { start_cursor: input.start_cursor } : {}),
      },
    });
    return { results: res.data.results.map(toResult), next_cursor: res.data.has_more ? res.data.next_cursor : null };
  },
};
