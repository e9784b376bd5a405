import { encodePath } from '../../core/provider-http';
import { READ_ONLY, arr, inputSchema, limit, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { notionId, notionRequest } from './client';
import { toPage, type NotionPage } from './content';
import { nextCursor, pageSchema, startCursor } from './schemas';

interface QueryInput {
  database_id: string;
  filter?: Record<string, unknown>;
  sorts?: Array<Record<string, unknown>>;
  page_size?: number;
  start_cursor?: string;
}

export const queryDatabase: ToolDefinition<QueryInput> = {
  name: 'query_database',
  description:
    'List the pages (rows) of a Notion database, optionally filtered and sorted with Notion\'s filter and sort objects; page through with next_cursor.',
  input_schema: inputSchema(
    {
      database_id: str('Database ID (dashes optional) or database URL', { minLength: 1 }),
      filter: {
        type: 'object',
        description:
          'A Notion database filter, e.g. {"property": "Status", "status": {"equals": "Done"}} or {"and": [{"property": "Done", "checkbox": {"equals": false}}, {"property": "Name", "title": {"contains": "report"}}]}.',
      },
      sorts: arr({ type: 'object' }, 'Notion sort objects, e.g. [{"property": "Due", "direction": "ascending"}] or [{"timestamp": "last_edited_time", "direction": "descending"}]'),
      page_size: limit(100, 25),
      start_cursor: startCursor,
    },
    ['database_id'],
  ),
  output_schema: objectSchema({ pages: arr(pageSchema, 'Matching pages'), next_cursor: nextCursor }, ['pages', 'next_cursor']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await notionRequest<{ results: NotionPage[]; next_cursor: string | null; has_more: boolean }>(ctx, {
      method: 'POST',
      path: encodePath('/v1/databases/{id}/query', { id: notionId(input.database_id, 'database_id') }),
      json: {
        ...(input.filter ? { filter: input.filter } : {}),
        ...(input.sorts ? { sorts: input.sorts } : {}),
        page_size: input.page_size ?? 25,
        ...(input.start_cursor ? { start_cursor: input.start_cursor } : {}),
      },
    });
    return { pages: res.data.results.map(toPage), next_cursor: res.data.has_more ? res.data.next_cursor : null };
  },
};
