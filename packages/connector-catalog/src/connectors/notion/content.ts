/** Notion's rich text, block and property shapes, turned into plain values a model reads easily. */

export interface RichText {
  plain_text?: string;
  text?: { content: string };
}

export function plainText(items: RichText[] | undefined): string {
  return (items ?? []).map((t) => t.plain_text ?? t.text?.content ?? '').join('');
}

/** Notion caps one text object at 2,000 characters, so longer text is sent as several. */
const TEXT_LIMIT = 2000;

export function richText(text: string): Array<{ type: 'text'; text: { content: string } }> {
  if (text === '') return [];
  const parts: Array<{ type: 'text'; text: { content: string } }> = [];
  for (let i = 0; i < text.length; i += TEXT_LIMIT) parts.push({ type: 'text', text: { content: text.slice(i, i + TEXT_LIMIT) } });
  return parts;
}

export function paragraphBlock(text: string) {
  return { object: 'block', type: 'paragraph', paragraph: { rich_text: richText(text) } };
}

interface NamedRef {
  id: string;
  name?: string | null;
}

/** One property value as a plain JSON value: text, number, names, dates as {start, end}. */
export function simplifyProperty(property: Record<string, unknown>): unknown {
  const type = property.type as string;
  const value = property[type];
  switch (type) {
    case 'title':
    case 'rich_text':
      return plainText(value as RichText[]);
    case 'number':
    case 'checkbox':
    case 'url':
    case 'email':
    case 'phone_number':
    case 'created_time':
    case 'last_edited_time':
      return value ?? null;
    case 'select':
    case 'status':
      return (value as { name: string } | null)?.name ?? null;
    case 'multi_select':
      return ((value as Array<{ name: string }>) ?? []).map((o) => o.name);
    case 'date': {
      const d = value as { start: string; end: string | null } | null;
      return d ? { start: d.start, end: d.end ?? null } : null;
    }
    case 'people':
      return ((value as NamedRef[]) ?? []).map((p) => p.name ?? p.id);
    case 'created_by':
    case 'last_edited_by':
      return (value as NamedRef | null)?.name ?? (value as NamedRef | null)?.id ?? null;
    case 'relation':
      return ((value as NamedRef[]) ?? []).map((r) => r.id);
    case 'files':
      return ((value as Array<{ name: string }>) ?? []).map((f) => f.name);
    case 'formula': {
      const f = value as Record<string, unknown> | null;
      return f ? (f[f.type as string] ?? null) : null;
    }
    case 'rollup': {
      const r = value as Record<string, unknown> | null;
      if (!r) return null;
      if (r.type === 'array') return ((r.array as Array<Record<string, unknown>>) ?? []).map(simplifyProperty);
      return r[r.type as string] ?? null;
    }
    case 'unique_id': {
      const u = value as { prefix: string | null; number: number | null } | null;
      return u?.number === null || u?.number === undefined ? null : u.prefix ? `${u.prefix}-${u.number}` : u.number;
    }
    default:
      return null;
  }
}

export interface NotionParent {
  type: string;
  database_id?: string;
  page_id?: string;
  block_id?: string;
  workspace?: boolean;
}

export function toParent(parent: NotionParent | undefined) {
  if (!parent) return { type: 'workspace', id: null };
  const id = parent.database_id ?? parent.page_id ?? parent.block_id ?? null;
  return { type: parent.type, id };
}

export interface NotionPage {
  object: 'page';
  id: string;
  url: string;
  created_time: string;
  last_edited_time: string;
  archived?: boolean;
  in_trash?: boolean;
  parent: NotionParent;
  properties: Record<string, Record<string, unknown>>;
}

export function toPage(page: NotionPage) {
  const properties: Record<string, unknown> = {};
  let title = '';
  for (const [name, property] of Object.entries(page.properties ?? {})) {
    properties[name] = simplifyProperty(property);
    if (property.type === 'title') title = plainText(property.title as RichText[]);
  }
  return {
    id: page.id,
    url: page.url,
    title,
    parent: toParent(page.parent),
    archived: Boolean(page.archived ?? page.in_trash),
    created_time: page.created_time,
    last_edited_time: page.last_edited_time,
    properties,
  };
}
