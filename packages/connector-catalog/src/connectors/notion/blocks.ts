import { encodePath } from '../../core/provider-http';
import { WRITE, arr, inputSchema, objectSchema, str } from '../../core/schema';
import type { ToolContext, ToolDefinition } from '../../core/types';
import { notionId, notionRequest } from './client';
import { paragraphBlock, plainText, type RichText } from './content';

interface NotionBlock {
  id: string;
  type: string;
  has_children?: boolean;
  [type: string]: unknown;
}

interface BlockList {
  results: NotionBlock[];
  next_cursor: string | null;
  has_more: boolean;
}

export const paragraphsSchema = arr(str('Paragraph text (plain text; long text is split to fit Notion\'s 2,000-character limit)'), 'Paragraphs to add, in order', { minItems: 1, maxItems: 100 });

/** The text of a block that holds rich text (paragraphs, headings, list items, to-dos, quotes...). */
export function blockText(block: NotionBlock): { type: string; text: string } {
  const body = block[block.type] as { rich_text?: RichText[]; checked?: boolean } | undefined;
  const text = plainText(body?.rich_text);
  return { type: block.type, text: block.type === 'to_do' ? `[${body?.checked ? 'x' : ' '}] ${text}` : text };
}

/** The first page (up to 100) of a block's children, as text. */
export async function readContent(ctx: ToolContext, blockId: string) {
  const res = await notionRequest<BlockList>(ctx, { path: encodePath('/v1/blocks/{id}/children', { id: blockId }), query: { page_size: 100 } });
  return { content: res.data.results.map(blockText), content_has_more: res.data.has_more };
}

export const appendBlockChildren: ToolDefinition<{ block_id: string; paragraphs: string[] }> = {
  name: 'append_block_children',
  description: 'Append paragraphs of text to the end of a Notion page (or inside another block), given its ID or URL.',
  input_schema: inputSchema(
    {
      block_id: str('ID or URL of the page (or block) to append to', { minLength: 1 }),
      paragraphs: paragraphsSchema,
    },
    ['block_id', 'paragraphs'],
  ),
  output_schema: objectSchema({ block_ids: arr(str('Block ID'), 'IDs of the new paragraph blocks, in order') }, ['block_ids']),
  annotations: WRITE,
  async execute(ctx, input) {
    const res = await notionRequest<BlockList>(ctx, {
      method: 'PATCH',
      path: encodePath('/v1/blocks/{id}/children', { id: notionId(input.block_id, 'block_id') }),
      json: { children: input.paragraphs.map(paragraphBlock) },
    });
    return { block_ids: res.data.results.map((b) => b.id) };
  },
};
