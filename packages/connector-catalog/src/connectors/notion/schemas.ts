import { objectSchema, str } from '../../core/schema';
import type { JsonSchema } from '../../core/types';

export const parentSchema = objectSchema(
  { type: str('database_id, page_id, block_id or workspace'), id: { type: ['string', 'null'], description: 'ID of the parent database, page or block' } },
  ['type', 'id'],
);

export const pageProperties: Record<string, JsonSchema> = {
  id: str('Page ID'),
  url: str('Web URL'),
  title: str('Plain-text title'),
  parent: parentSchema,
  archived: { type: 'boolean', description: 'True when the page is archived (in the trash)' },
  created_time: str('ISO 8601'),
  last_edited_time: str('ISO 8601'),
  properties: { type: 'object', additionalProperties: true, description: 'Property values by name, as plain values (text, number, names, {start, end} dates)' },
};

export const pageSchema = objectSchema(pageProperties, ['id', 'url', 'title', 'parent', 'properties']);

export const nextCursor: JsonSchema = { type: ['string', 'null'], description: 'Pass as start_cursor to get the next page; null on the last page' };

export const startCursor = str('next_cursor from an earlier call, to get the following page', { minLength: 1 });

export const propertyValues: JsonSchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: { type: 'object' },
  description:
    'Property values in Notion\'s format, keyed by property name or ID, e.g. {"Status": {"status": {"name": "Done"}}, "Due": {"date": {"start": "2026-05-01"}}, "Tags": {"multi_select": [{"name": "urgent"}]}, "Points": {"number": 3}}.',
};
