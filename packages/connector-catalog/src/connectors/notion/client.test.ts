import { ToolError } from '../../core/tool-error';
import { notionId } from './client';

describe('notionId', () => {
  const id = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
  const plain = id.replace(/-/g, '');

  it.each([
    ['a dashed ID', id],
    ['an ID without dashes', plain],
    ['an upper-case ID', plain.toUpperCase()],
    ['a page URL with the title before the ID', `https://www.notion.so/acme/Quarterly-Plan-2-${plain}`],
    ['a page URL with a query', `https://www.notion.so/${plain}?pvs=4`],
  ])('reads %s', (_what, value) => {
    expect(notionId(value, 'page_id')).toBe(id);
  });

  it('takes a database URL\'s ID, not the ?v= view ID', () => {
    expect(notionId(`https://www.notion.so/acme/${plain}?v=ffffffffffffffffffffffffffffffff`, 'database_id')).toBe(id);
  });

  it('refuses text that holds no Notion ID', () => {
    expect(() => notionId('Quarterly plan', 'page_id')).toThrow(ToolError);
    expect(() => notionId(`${plain}0`, 'page_id')).toThrow('input.page_id must be a Notion ID');
  });
});
