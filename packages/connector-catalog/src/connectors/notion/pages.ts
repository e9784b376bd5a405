import { encodePath } from '../../core/provider-http';
import { IDEMPOTENT_WRITE, READ_ONLY, WRITE, arr, bool, inputSchema, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { ToolDefinition } from '../../core/types';
import { paragraphsSchema, readContent } from './blocks';
import { notionId, notionRequest } from './client';
import { paragraphBlock, richText, toPage, type NotionPage } from './content';
import { pageProperties, pageSchema, propertyValues } from './schemas';

export const getPage: ToolDefinition<{ page_id: string; include_content?: boolean }> = {
  name: 'get_page',
  description: 'Get a Notion page by ID or URL: title, parent, and property values as plain values; with include_content, also the text of its first 100 blocks.',
  input_schema: inputSchema(
    {
      page_id: str('Page ID (dashes optional) or page URL', { minLength: 1 }),
      include_content: bool('Also return the text of the page\'s blocks (one more request)', { default: false }),
    },
    ['page_id'],
  ),
  output_schema: objectSchema(
    {
      ...pageProperties,
      content: arr(objectSchema({ type: str('Block type'), text: str('Plain text') }, ['type', 'text']), 'The page\'s first 100 blocks (only with include_content)'),
      content_has_more: { type: 'boolean', description: 'More blocks follow the ones in content' },
    },
    ['id', 'url', 'title', 'parent', 'properties'],
  ),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const id = notionId(input.page_id, 'page_id');
    const res = await notionRequest<NotionPage>(ctx, { path: encodePath('/v1/pages/{id}', { id }) });
    const page = toPage(res.data);
    if (!input.include_content) return page;
    return { ...page, ...(await readContent(ctx, id)) };
  },
};

interface CreatePageInput {
  parent_page_id?: string;
  parent_database_id?: string;
  title: string;
  paragraphs?: string[];
  properties?: Record<string, unknown>;
}

export const createPage: ToolDefinition<CreatePageInput> = {
  name: 'create_page',
  description:
    'Create a Notion page with a title and optional plain-text paragraphs, either as a row of a database (parent_database_id, optionally with more property values) or under a page (parent_page_id).',
  input_schema: inputSchema(
    {
      parent_database_id: str('ID or URL of the database to add the page to', { minLength: 1 }),
      parent_page_id: str('ID or URL of the page to create the page under', { minLength: 1 }),
      title: str('Page title', { minLength: 1 }),
      paragraphs: { ...paragraphsSchema, minItems: 0 },
      properties: { ...propertyValues, description: `Other property values, for a database parent only. ${String(propertyValues.description)}` },
    },
    ['title'],
  ),
  output_schema: pageSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    if (Boolean(input.parent_database_id) === Boolean(input.parent_page_id)) {
      throw new ToolError('invalid_input', 'Give exactly one of input.parent_database_id and input.parent_page_id.');
    }
    if (input.parent_page_id && input.properties) {
      throw new ToolError('invalid_input', 'input.properties applies only to pages in a database; a page under a page has only a title.');
    }
    const parent = input.parent_database_id ? { database_id: notionId(input.parent_database_id, 'parent_database_id') } : { page_id: notionId(input.parent_page_id!, 'parent_page_id') };
    const res = await notionRequest<NotionPage>(ctx, {
      method: 'POST',
      path: '/v1/pages',
      json: {
        parent,
        // "title" is the ID of every database's title property, whatever its name, and the only property of a page under a page.
        properties: { ...input.properties, title: { title: richText(input.title) } },
        ...(input.paragraphs?.length ? { children: input.paragraphs.map(paragraphBlock) } : {}),
      },
    });
    return toPage(res.data);
  },
};

export const updatePageProperties: ToolDefinition<{ page_id: string; properties: Record<string, unknown> }> = {
  name: 'update_page_properties',
  description: 'Set property values of a Notion page (a database row): status, dates, selects, numbers, text... Properties not named are left as they are.',
  input_schema: inputSchema(
    {
      page_id: str('Page ID (dashes optional) or page URL', { minLength: 1 }),
      properties: propertyValues,
    },
    ['page_id', 'properties'],
  ),
  output_schema: pageSchema,
  annotations: IDEMPOTENT_WRITE,
  async execute(ctx, input) {
    const res = await notionRequest<NotionPage>(ctx, {
      method: 'PATCH',
      path: encodePath('/v1/pages/{id}', { id: notionId(input.page_id, 'page_id') }),
      json: { properties: input.properties },
    });
    return toPage(res.data);
  },
};
