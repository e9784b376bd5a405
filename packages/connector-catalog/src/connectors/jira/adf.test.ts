import { adfToText, textToAdf } from './adf';

describe('Atlassian Document Format conversion', () => {
  it('turns blank-line-separated text into paragraphs and single newlines into hard breaks', () => {
    expect(textToAdf('one\ntwo\r\n\r\n\nthree')).toEqual({
      type: 'doc',
      version: 1,
      content: [
        { type: 'paragraph', content: [{ type: 'text', text: 'one' }, { type: 'hardBreak' }, { type: 'text', text: 'two' }] },
        { type: 'paragraph', content: [{ type: 'text', text: 'three' }] },
      ],
    });
  });

  it('reads text back through a round trip', () => {
    expect(adfToText(textToAdf('one\ntwo\n\nthree'))).toBe('one\ntwo\n\nthree');
  });

  it('renders headings, lists, mentions, links and code the way a reader sees them', () => {
    const doc = {
      type: 'doc',
      version: 1,
      content: [
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Plan' }] },
        {
          type: 'bulletList',
          content: [
            { type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'ask ' }, { type: 'mention', attrs: { id: '1', text: '@Alana' } }] }] },
            { type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'inlineCard', attrs: { url: 'https://example.com/spec' } }] }] },
          ],
        },
        { type: 'codeBlock', content: [{ type: 'text', text: 'npm test' }] },
      ],
    };
    expect(adfToText(doc)).toBe('Plan\n\n- ask @Alana\n- https://example.com/spec\n\nnpm test');
  });

  it('keeps null and plain strings as they are', () => {
    expect(adfToText(null)).toBeNull();
    expect(adfToText('h1. wiki markup')).toBe('h1. wiki markup');
  });
});
