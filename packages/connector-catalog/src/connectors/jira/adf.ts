/**
 * Atlassian Document Format: Jira REST v3 takes and returns rich text (descriptions, comments) as an
 * ADF tree. Models read and write plain text, so tools convert at the edge.
 */
export interface AdfNode {
  type: string;
  text?: string;
  attrs?: Record<string, unknown>;
  content?: AdfNode[];
}

export interface AdfDocument extends AdfNode {
  type: 'doc';
  version: 1;
  content: AdfNode[];
}

/** Plain text to ADF: blank lines separate paragraphs, single newlines become hard breaks. */
export function textToAdf(text: string): AdfDocument {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== '');
  return {
    type: 'doc',
    version: 1,
    content: paragraphs.map((paragraph) => {
      const content: AdfNode[] = [];
      paragraph.split('\n').forEach((line, i) => {
        if (i > 0) content.push({ type: 'hardBreak' });
        if (line !== '') content.push({ type: 'text', text: line });
      });
      return { type: 'paragraph', content };
    }),
  };
}

const BLOCKS = new Set(['paragraph', 'heading', 'blockquote', 'codeBlock', 'rule', 'panel', 'table', 'tableRow', 'mediaSingle', 'mediaGroup', 'expand', 'nestedExpand']);

function render(node: AdfNode, out: string[], listPrefix: string): void {
  switch (node.type) {
    case 'text':
      out.push(node.text ?? '');
      return;
    case 'hardBreak':
      out.push('\n');
      return;
    case 'mention':
    case 'emoji':
    case 'status':
    case 'date': {
      const a = node.attrs ?? {};
      const shown = a.text ?? a.shortName ?? a.timestamp;
      if (typeof shown === 'string') out.push(shown);
      return;
    }
    case 'inlineCard':
    case 'blockCard':
      if (typeof node.attrs?.url === 'string') out.push(node.attrs.url);
      return;
    case 'bulletList':
    case 'orderedList':
      (node.content ?? []).forEach((item, i) => {
        out.push(node.type === 'orderedList' ? `${listPrefix}${i + 1}. ` : `${listPrefix}- `);
        for (const child of item.content ?? []) {
          if (child.type === 'bulletList' || child.type === 'orderedList') {
            out.push('\n');
            render(child, out, `${listPrefix}  `);
          } else {
            const inner: string[] = [];
            render(child, inner, listPrefix);
            out.push(inner.join('').trim());
          }
        }
        out.push('\n');
      });
      out.push('\n');
      return;
    case 'tableCell':
    case 'tableHeader':
      for (const child of node.content ?? []) render(child, out, listPrefix);
      out.push(' | ');
      return;
    default:
      for (const child of node.content ?? []) render(child, out, listPrefix);
      if (BLOCKS.has(node.type)) out.push('\n\n');
  }
}

/** ADF to readable plain text (lists as "- ", mentions by name, links by URL). Null stays null. */
export function adfToText(doc: unknown): string | null {
  if (doc === null || doc === undefined) return null;
  // Some fields and older sites still hold wiki-markup strings.
  if (typeof doc === 'string') return doc;
  if (typeof doc !== 'object') return null;
  const out: string[] = [];
  render(doc as AdfNode, out, '');
  return out
    .join('')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
