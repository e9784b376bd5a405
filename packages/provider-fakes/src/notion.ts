import { randomUUID } from 'node:crypto';
import { FakeRoutes, bearerToken, startFakeServer, type FakeReply, type FakeServer } from './fake-server';

/** Tokens the fake Notion understands. */
export const NOTION_FAKE_TOKENS = {
  valid: 'ntn_fake_valid_token',
  /** Authenticated, but every call answers 429 rate_limited with Retry-After: 17. */
  rateLimited: 'ntn_fake_rate_limited',
  /** Authenticated, but every call answers 503 service_unavailable. */
  failing: 'ntn_fake_failing',
} as const;

type Json = Record<string, unknown>;

interface PropertySchema {
  id: string;
  type: string;
  options?: string[];
}

interface FakeDatabase {
  id: string;
  title: string;
  parentPageId: string;
  properties: Record<string, PropertySchema>;
  last_edited_time: string;
}

interface FakePage {
  id: string;
  parent: Json;
  /** Property values as Notion returns them, by property name. */
  properties: Record<string, Json>;
  archived: boolean;
  created_time: string;
  last_edited_time: string;
}

interface FakeBlock {
  id: string;
  parentId: string;
  type: string;
  text: string;
  created_time: string;
}

const notionError = (status: number, code: string, message: string): FakeReply => ({
  status,
  body: { object: 'error', status, code, message, request_id: randomUUID() },
});

const validation = (message: string) => notionError(400, 'validation_error', message);

/** Notion accepts IDs with or without dashes; the fake keys everything by the dashed lower-case form. */
function canonicalId(raw: string): string | null {
  const hex = raw.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function textItems(text: string) {
  return text === '' ? [] : [{ type: 'text', text: { content: text, link: null }, annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default' }, plain_text: text, href: null }];
}

/** Reads rich text the way Notion validates it: each text object at most 2,000 characters. */
function readRichText(items: unknown, where: string): string | FakeReply {
  if (!Array.isArray(items)) return validation(`body failed validation: ${where} should be an array, instead was \`${JSON.stringify(items)}\`.`);
  let out = '';
  for (const [i, item] of items.entries()) {
    const content = (item as { text?: { content?: unknown } }).text?.content;
    if (typeof content !== 'string') return validation(`body failed validation: ${where}[${i}].text.content should be a string, instead was \`${JSON.stringify(content)}\`.`);
    if (content.length > 2000) return validation(`body failed validation: ${where}[${i}].text.content.length should be ≤ \`2000\`, instead was \`${content.length}\`.`);
    out += content;
  }
  return out;
}

// A property value can itself have a `status` key (status properties), so a reply is told apart by its numeric status and body.
const isReply = (v: unknown): v is FakeReply => typeof v === 'object' && v !== null && typeof (v as FakeReply).status === 'number' && 'body' in v;

/**
 * A fake of Notion's API (version 2022-06-28) for search, pages, database queries and block
 * children: Bearer auth with Notion's `{"object": "error"}` bodies (401 unauthorized, 404
 * object_not_found, 400 validation_error and missing_version, 429 rate_limited with Retry-After),
 * IDs with or without dashes, and start_cursor/next_cursor pagination.
 */
export async function startFakeNotion(seed: { tasks: number } = { tasks: 5 }): Promise<FakeServer & { pages: FakePage[]; databases: FakeDatabase[]; blocks: FakeBlock[]; ids: { home: string; tasks: string } }> {
  let clock = Date.UTC(2026, 0, 1);
  const now = () => new Date((clock += 60_000)).toISOString().replace(/\.\d{3}Z$/, '.000Z');
  const home = '11111111-1111-4111-8111-111111111111';
  const tasksDb = '22222222-2222-4222-8222-222222222222';
  const pages: FakePage[] = [];
  const blocks: FakeBlock[] = [];
  const databases: FakeDatabase[] = [
    {
      id: tasksDb,
      title: 'Tasks',
      parentPageId: home,
      last_edited_time: now(),
      properties: {
        Name: { id: 'title', type: 'title' },
        Status: { id: 'a%3Fb1', type: 'status', options: ['Not started', 'In progress', 'Done'] },
        Tags: { id: 'c%3Ad2', type: 'multi_select', options: ['urgent', 'later'] },
        Due: { id: 'e%5Bf3', type: 'date' },
        Points: { id: 'g%40h4', type: 'number' },
        Done: { id: 'i%3Bj5', type: 'checkbox' },
      },
    },
  ];
  pages.push({ id: home, parent: { type: 'workspace', workspace: true }, properties: { title: { id: 'title', type: 'title', title: textItems('Team Home') } }, archived: false, created_time: now(), last_edited_time: now() });
  blocks.push({ id: randomUUID(), parentId: home, type: 'heading_1', text: 'Welcome', created_time: now() });
  blocks.push({ id: randomUUID(), parentId: home, type: 'paragraph', text: 'This is the team home page.', created_time: now() });
  const statuses = databases[0]!.properties.Status!.options!;
  for (let i = 1; i <= seed.tasks; i++) {
    const at = now();
    pages.push({
      id: randomUUID(),
      parent: { type: 'database_id', database_id: tasksDb },
      properties: {
        Name: { id: 'title', type: 'title', title: textItems(`Task ${i}`) },
        Status: { id: 'a%3Fb1', type: 'status', status: { id: `s${i % 3}`, name: statuses[i % 3], color: 'default' } },
        Tags: { id: 'c%3Ad2', type: 'multi_select', multi_select: i % 2 === 0 ? [{ id: 't1', name: 'urgent', color: 'red' }] : [] },
        Due: { id: 'e%5Bf3', type: 'date', date: i % 2 === 0 ? { start: `2026-03-${String(i).padStart(2, '0')}`, end: null, time_zone: null } : null },
        Points: { id: 'g%40h4', type: 'number', number: i },
        Done: { id: 'i%3Bj5', type: 'checkbox', checkbox: i % 3 === 2 },
      },
      archived: false,
      created_time: at,
      last_edited_time: at,
    });
  }

  const pageUrl = (p: FakePage) => `https://www.notion.so/${titleOf(p).replace(/[^A-Za-z0-9]+/g, '-')}-${p.id.replace(/-/g, '')}`;
  const titleOf = (p: FakePage) => {
    const title = Object.values(p.properties).find((v) => v.type === 'title');
    return ((title?.title as Array<{ plain_text: string }>) ?? []).map((t) => t.plain_text).join('');
  };
  const renderPage = (p: FakePage) => ({
    object: 'page',
    id: p.id,
    created_time: p.created_time,
    last_edited_time: p.last_edited_time,
    created_by: { object: 'user', id: 'u1' },
    last_edited_by: { object: 'user', id: 'u1' },
    cover: null,
    icon: null,
    parent: p.parent,
    archived: p.archived,
    in_trash: p.archived,
    properties: p.properties,
    url: pageUrl(p),
    public_url: null,
  });
  const renderDatabase = (d: FakeDatabase) => ({
    object: 'database',
    id: d.id,
    created_time: d.last_edited_time,
    last_edited_time: d.last_edited_time,
    title: textItems(d.title),
    description: [],
    parent: { type: 'page_id', page_id: d.parentPageId },
    url: `https://www.notion.so/${d.id.replace(/-/g, '')}`,
    archived: false,
    in_trash: false,
    is_inline: false,
    properties: Object.fromEntries(Object.entries(d.properties).map(([name, s]) => [name, { id: s.id, name, type: s.type, [s.type]: {} }])),
  });
  const renderBlock = (b: FakeBlock) => ({
    object: 'block',
    id: b.id,
    parent: { type: 'page_id', page_id: b.parentId },
    created_time: b.created_time,
    last_edited_time: b.created_time,
    has_children: false,
    archived: false,
    in_trash: false,
    type: b.type,
    [b.type]: { rich_text: textItems(b.text), color: 'default' },
  });

  /** start_cursor/page_size over an ordered list, with Notion's list envelope; cursors are the next item's ID. */
  const list = <T extends { id: string }>(items: T[], body: { start_cursor?: unknown; page_size?: unknown }, render: (t: T) => unknown, type: string): FakeReply => {
    const size = body.page_size === undefined ? 100 : Number(body.page_size);
    if (!Number.isInteger(size) || size < 1 || size > 100) return validation(`body failed validation: body.page_size should be ≤ \`100\`, instead was \`${String(body.page_size)}\`.`);
    let start = 0;
    if (body.start_cursor !== undefined) {
      start = items.findIndex((i) => i.id === body.start_cursor);
      if (start < 0) return validation(`body failed validation: body.start_cursor should be a valid cursor, instead was \`${JSON.stringify(body.start_cursor)}\`.`);
    }
    const slice = items.slice(start, start + size);
    const next = items[start + size];
    return { body: { object: 'list', results: slice.map(render), next_cursor: next?.id ?? null, has_more: next !== undefined, type, [type]: {} } };
  };

  const findPage = (raw: string) => {
    const id = canonicalId(raw);
    return id ? pages.find((p) => p.id === id) : undefined;
  };
  const pageNotFound = (raw: string) => notionError(404, 'object_not_found', `Could not find page with ID: ${raw}. Make sure the relevant pages and databases are shared with your integration.`);
  const invalidPathId = (name: string, raw: string) => validation(`path failed validation: path.${name} should be a valid uuid, instead was \`"${raw}"\`.`);

  /** Checks one property value against the database schema and returns it in Notion's stored shape. */
  const propertyValue = (schema: PropertySchema, name: string, value: unknown): Json | FakeReply => {
    const v = value as Json;
    if (typeof v !== 'object' || v === null || !(schema.type in v)) {
      return validation(`body failed validation. Fix one:\nbody.properties.${name}.${schema.type} should be defined, instead was \`undefined\`.`);
    }
    const inner = v[schema.type];
    const base = { id: schema.id, type: schema.type };
    switch (schema.type) {
      case 'title':
      case 'rich_text': {
        const text = readRichText(inner, `body.properties.${name}.${schema.type}`);
        return isReply(text) ? text : { ...base, [schema.type]: textItems(text) };
      }
      case 'status':
      case 'select': {
        const optionName = (inner as { name?: unknown } | null)?.name;
        if (inner !== null && (typeof optionName !== 'string' || (schema.type === 'status' && !schema.options?.includes(optionName)))) {
          return validation(`Invalid status option. Status option "${String(optionName)}" does not exist".`);
        }
        return { ...base, [schema.type]: inner === null ? null : { id: `opt-${String(optionName)}`, name: optionName, color: 'default' } };
      }
      case 'multi_select':
        if (!Array.isArray(inner)) return validation(`body failed validation: body.properties.${name}.multi_select should be an array.`);
        return { ...base, multi_select: inner.map((o: { name?: string }) => ({ id: `opt-${o.name}`, name: o.name, color: 'default' })) };
      case 'date': {
        const start = (inner as { start?: unknown } | null)?.start;
        if (inner !== null && (typeof start !== 'string' || Number.isNaN(Date.parse(start)))) return validation(`body failed validation: body.properties.${name}.date.start should be a valid ISO 8601 date string.`);
        return { ...base, date: inner === null ? null : { start, end: (inner as { end?: string }).end ?? null, time_zone: null } };
      }
      case 'number':
        if (inner !== null && typeof inner !== 'number') return validation(`body failed validation: body.properties.${name}.number should be a number or \`null\`, instead was \`${JSON.stringify(inner)}\`.`);
        return { ...base, number: inner };
      case 'checkbox':
        if (typeof inner !== 'boolean') return validation(`body failed validation: body.properties.${name}.checkbox should be a boolean, instead was \`${JSON.stringify(inner)}\`.`);
        return { ...base, checkbox: inner };
      default:
        return { ...base, [schema.type]: inner };
    }
  };

  /** Applies property values keyed by name or property ID; unknown keys are Notion's validation error. */
  const applyProperties = (page: FakePage, given: unknown): FakeReply | undefined => {
    if (typeof given !== 'object' || given === null) return validation('body failed validation: body.properties should be an object.');
    const db = page.parent.type === 'database_id' ? databases.find((d) => d.id === page.parent.database_id) : undefined;
    const schema: Record<string, PropertySchema> = db ? db.properties : { title: { id: 'title', type: 'title' } };
    const next: Record<string, Json> = { ...page.properties };
    for (const [key, value] of Object.entries(given as Json)) {
      const entry = Object.entries(schema).find(([name, s]) => name === key || s.id === key);
      if (!entry) return validation(`${key} is not a property that exists.`);
      const rendered = propertyValue(entry[1], entry[0], value);
      if (isReply(rendered)) return rendered;
      next[entry[0]] = rendered;
    }
    page.properties = next;
    return undefined;
  };

  const readBlocks = (children: unknown, parentId: string): FakeBlock[] | FakeReply => {
    if (!Array.isArray(children)) return validation('body failed validation: body.children should be an array.');
    if (children.length > 100) return validation(`body failed validation: body.children.length should be ≤ \`100\`, instead was \`${children.length}\`.`);
    const out: FakeBlock[] = [];
    for (const [i, child] of children.entries()) {
      const c = child as { type?: string } & Json;
      const body = c.type ? (c[c.type] as { rich_text?: unknown } | undefined) : undefined;
      if (!c.type || !body) return validation(`body failed validation: body.children[${i}].${c.type ?? 'type'} should be defined, instead was \`undefined\`.`);
      const text = readRichText(body.rich_text ?? [], `body.children[${i}].${c.type}.rich_text`);
      if (isReply(text)) return text;
      out.push({ id: randomUUID(), parentId, type: c.type, text, created_time: now() });
    }
    return out;
  };

  const matchesFilter = (page: FakePage, db: FakeDatabase, filter: Json | undefined): boolean | FakeReply => {
    if (!filter) return true;
    if (Array.isArray(filter.and) || Array.isArray(filter.or)) {
      const parts = ((filter.and ?? filter.or) as Json[]).map((f) => matchesFilter(page, db, f));
      const bad = parts.find(isReply);
      if (bad) return bad;
      return Array.isArray(filter.and) ? parts.every(Boolean) : parts.some(Boolean);
    }
    const name = filter.property as string;
    const entry = Object.entries(db.properties).find(([n, s]) => n === name || s.id === name);
    if (!entry) return validation(`Could not find property with name or id: ${name}`);
    const [propName, schema] = entry;
    const condition = filter[schema.type] as Json | undefined;
    if (!condition) return validation(`body failed validation: body.filter.${schema.type} should be defined, instead was \`undefined\`.`);
    const value = page.properties[propName]?.[schema.type];
    const simple =
      schema.type === 'title' || schema.type === 'rich_text'
        ? ((value as Array<{ plain_text: string }>) ?? []).map((t) => t.plain_text).join('')
        : schema.type === 'status' || schema.type === 'select'
          ? ((value as { name: string } | null)?.name ?? null)
          : schema.type === 'date'
            ? ((value as { start: string } | null)?.start ?? null)
            : schema.type === 'multi_select'
              ? ((value as Array<{ name: string }>) ?? []).map((o) => o.name)
              : value;
    const [op, expected] = Object.entries(condition)[0] ?? [];
    switch (op) {
      case 'equals':
        return simple === expected;
      case 'does_not_equal':
        return simple !== expected;
      case 'contains':
        return Array.isArray(simple) ? simple.includes(expected as string) : typeof simple === 'string' && simple.toLowerCase().includes(String(expected).toLowerCase());
      case 'is_empty':
        return simple === null || simple === '' || (Array.isArray(simple) && simple.length === 0);
      case 'is_not_empty':
        return !(simple === null || simple === '' || (Array.isArray(simple) && simple.length === 0));
      case 'greater_than':
        return simple !== null && (simple as number | string) > (expected as number | string);
      case 'less_than':
        return simple !== null && (simple as number | string) < (expected as number | string);
      default:
        return validation(`body failed validation: body.filter.${schema.type}.${String(op)} is not a supported condition.`);
    }
  };

  const routes = new FakeRoutes()
    .route('POST', '/v1/search', (req) => {
      const body = (req.json ?? {}) as { query?: string; filter?: { property?: string; value?: string }; sort?: { direction?: string; timestamp?: string }; start_cursor?: unknown; page_size?: unknown };
      if (body.filter && (body.filter.property !== 'object' || !['page', 'database'].includes(body.filter.value ?? ''))) {
        return validation('body failed validation: body.filter.value should be `"page"` or `"database"`, and body.filter.property should be `"object"`.');
      }
      if (body.sort && (body.sort.timestamp !== 'last_edited_time' || !['ascending', 'descending'].includes(body.sort.direction ?? ''))) {
        return validation('body failed validation: body.sort.timestamp should be `"last_edited_time"`, and body.sort.direction should be `"ascending"` or `"descending"`.');
      }
      const q = (body.query ?? '').toLowerCase();
      const items: Array<{ id: string; edited: string; render: () => unknown }> = [
        ...(body.filter?.value === 'database' ? [] : pages.filter((p) => !p.archived && titleOf(p).toLowerCase().includes(q)).map((p) => ({ id: p.id, edited: p.last_edited_time, render: () => renderPage(p) }))),
        ...(body.filter?.value === 'page' ? [] : databases.filter((d) => d.title.toLowerCase().includes(q)).map((d) => ({ id: d.id, edited: d.last_edited_time, render: () => renderDatabase(d) }))),
      ];
      const dir = body.sort?.direction === 'ascending' ? 1 : -1;
      items.sort((a, b) => dir * a.edited.localeCompare(b.edited) || a.id.localeCompare(b.id));
      return list(items, body, (i) => i.render(), 'page_or_database');
    })
    .route('GET', '/v1/pages/:id', (req) => {
      if (!canonicalId(req.params.id!)) return invalidPathId('page_id', req.params.id!);
      const page = findPage(req.params.id!);
      return page ? { body: renderPage(page) } : pageNotFound(req.params.id!);
    })
    .route('POST', '/v1/pages', (req) => {
      const body = (req.json ?? {}) as { parent?: { database_id?: string; page_id?: string }; properties?: unknown; children?: unknown };
      if (!body.parent || (!body.parent.database_id && !body.parent.page_id)) return validation('body failed validation. Fix one:\nbody.parent.page_id should be defined, instead was `undefined`.\nbody.parent.database_id should be defined, instead was `undefined`.');
      if (body.properties === undefined) return validation('body failed validation: body.properties should be defined, instead was `undefined`.');
      let parent: Json;
      if (body.parent.database_id) {
        const id = canonicalId(body.parent.database_id);
        if (!id || !databases.some((d) => d.id === id)) return notionError(404, 'object_not_found', `Could not find database with ID: ${body.parent.database_id}. Make sure the relevant pages and databases are shared with your integration.`);
        parent = { type: 'database_id', database_id: id };
      } else {
        const target = findPage(body.parent.page_id!);
        if (!target) return pageNotFound(body.parent.page_id!);
        parent = { type: 'page_id', page_id: target.id };
      }
      const at = now();
      const page: FakePage = { id: randomUUID(), parent, properties: {}, archived: false, created_time: at, last_edited_time: at };
      const db = parent.type === 'database_id' ? databases.find((d) => d.id === parent.database_id)! : undefined;
      // A new row shows every database property, empty unless given.
      if (db) for (const [name, s] of Object.entries(db.properties)) page.properties[name] = { id: s.id, type: s.type, [s.type]: s.type === 'title' || s.type === 'rich_text' || s.type === 'multi_select' ? [] : s.type === 'checkbox' ? false : null };
      else page.properties.title = { id: 'title', type: 'title', title: [] };
      const failed = applyProperties(page, body.properties);
      if (failed) return failed;
      const children = body.children === undefined ? [] : readBlocks(body.children, page.id);
      if (isReply(children)) return children;
      pages.push(page);
      blocks.push(...children);
      return { body: renderPage(page) };
    })
    .route('PATCH', '/v1/pages/:id', (req) => {
      if (!canonicalId(req.params.id!)) return invalidPathId('page_id', req.params.id!);
      const page = findPage(req.params.id!);
      if (!page) return pageNotFound(req.params.id!);
      const body = (req.json ?? {}) as { properties?: unknown };
      const copy: FakePage = { ...page };
      const failed = body.properties === undefined ? undefined : applyProperties(copy, body.properties);
      if (failed) return failed;
      Object.assign(page, copy, { last_edited_time: now() });
      return { body: renderPage(page) };
    })
    .route('POST', '/v1/databases/:id/query', (req) => {
      const id = canonicalId(req.params.id!);
      if (!id) return invalidPathId('database_id', req.params.id!);
      const db = databases.find((d) => d.id === id);
      if (!db) return notionError(404, 'object_not_found', `Could not find database with ID: ${req.params.id}. Make sure the relevant pages and databases are shared with your integration.`);
      const body = (req.json ?? {}) as { filter?: Json; sorts?: Array<{ property?: string; timestamp?: string; direction?: string }>; start_cursor?: unknown; page_size?: unknown };
      const rows: FakePage[] = [];
      for (const page of pages.filter((p) => p.parent.database_id === db.id && !p.archived)) {
        const ok = matchesFilter(page, db, body.filter);
        if (isReply(ok)) return ok;
        if (ok) rows.push(page);
      }
      const sorts = body.sorts ?? [{ timestamp: 'created_time', direction: 'descending' }];
      for (const s of sorts) if (s.property && !db.properties[s.property]) return validation(`Could not find sort property with name or id: ${s.property}`);
      const key = (p: FakePage, s: { property?: string; timestamp?: string }): string | number => {
        if (s.timestamp) return (p as unknown as Record<string, string>)[s.timestamp] ?? '';
        const prop = p.properties[s.property!]!;
        const v = prop[prop.type as string];
        if (prop.type === 'title') return (v as Array<{ plain_text: string }>).map((t) => t.plain_text).join('');
        if (prop.type === 'date') return (v as { start: string } | null)?.start ?? '';
        if (prop.type === 'status' || prop.type === 'select') return (v as { name: string } | null)?.name ?? '';
        return (v as number | null) ?? -Infinity;
      };
      rows.sort((a, b) => {
        for (const s of sorts) {
          const [x, y] = [key(a, s), key(b, s)];
          if (x !== y) return (x < y ? -1 : 1) * (s.direction === 'descending' ? -1 : 1);
        }
        return a.id.localeCompare(b.id);
      });
      return list(rows, body, renderPage, 'page_or_database');
    })
    .route('GET', '/v1/blocks/:id/children', (req) => {
      if (!canonicalId(req.params.id!)) return invalidPathId('block_id', req.params.id!);
      const page = findPage(req.params.id!);
      if (!page) return notionError(404, 'object_not_found', `Could not find block with ID: ${req.params.id}. Make sure the relevant pages and databases are shared with your integration.`);
      const query = { start_cursor: req.query.get('start_cursor') ?? undefined, page_size: req.query.get('page_size') ?? undefined };
      return list(blocks.filter((b) => b.parentId === page.id), query, renderBlock, 'block');
    })
    .route('PATCH', '/v1/blocks/:id/children', (req) => {
      if (!canonicalId(req.params.id!)) return invalidPathId('block_id', req.params.id!);
      const page = findPage(req.params.id!);
      if (!page) return notionError(404, 'object_not_found', `Could not find block with ID: ${req.params.id}. Make sure the relevant pages and databases are shared with your integration.`);
      const added = readBlocks((req.json as { children?: unknown } | undefined)?.children, page.id);
      if (isReply(added)) return added;
      blocks.push(...added);
      page.last_edited_time = now();
      return { body: { object: 'list', results: added.map(renderBlock), next_cursor: null, has_more: false, type: 'block', block: {} } };
    });

  const server = await startFakeServer({
    routes,
    notFound: notionError(400, 'invalid_request_url', 'Invalid request URL.'),
    before: (req): FakeReply | undefined => {
      const token = bearerToken(req);
      if (!token || !Object.values(NOTION_FAKE_TOKENS).includes(token as never)) return notionError(401, 'unauthorized', 'API token is invalid.');
      if (!req.headers['notion-version']) return notionError(400, 'missing_version', 'Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.');
      if (token === NOTION_FAKE_TOKENS.rateLimited) return { ...notionError(429, 'rate_limited', 'You have been rate limited. Please try again in a few minutes.'), headers: { 'retry-after': '17' } };
      if (token === NOTION_FAKE_TOKENS.failing) return notionError(503, 'service_unavailable', 'Notion is unavailable, please try again later.');
      return undefined;
    },
  });
  return Object.assign(server, { pages, databases, blocks, ids: { home, tasks: tasksDb } });
}
