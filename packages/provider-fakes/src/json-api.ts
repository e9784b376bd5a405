import { FakeRoutes, bearerToken, startFakeServer, type FakeReply, type FakeServer } from './fake-server';

/** Tokens the fake JSON API understands (sent as `Authorization: Bearer <token>`). */
export const JSON_API_FAKE_TOKENS = {
  valid: 'jsonapi_fake_valid_token',
  /** Authenticated, but over the rate limit: 429 with Retry-After. */
  rateLimited: 'jsonapi_fake_rate_limited',
  /** Authenticated, but a 503 on every call. */
  failing: 'jsonapi_fake_failing',
  /** Authenticated, but not allowed to write (403 on POST/PUT/PATCH/DELETE). */
  readOnly: 'jsonapi_fake_read_only',
} as const;

interface Item {
  id: number;
  name: string;
  tags: string[];
  done: boolean;
}

/**
 * A small, ordinary REST/JSON API of the kind users point the generic HTTP connector at: bearer
 * auth with a 401 and WWW-Authenticate, a JSON 404 and 422, limit/offset pagination, a text
 * endpoint, a redirect, a large response, 429 with Retry-After and a failing token. Served under
 * `/api` so tests can use a base URL with a path.
 */
export async function startFakeJsonApi(seed: { items: number } = { items: 5 }): Promise<FakeServer & { items: Item[] }> {
  const items: Item[] = Array.from({ length: seed.items }, (_, i) => ({ id: i + 1, name: `Item ${i + 1}`, tags: i % 2 === 0 ? ['even'] : [], done: false }));
  let nextId = items.length + 1;
  const notFound = (what: string): FakeReply => ({ status: 404, body: { error: 'not_found', message: `No ${what}.` } });
  const find = (id: string | undefined) => items.find((i) => i.id === Number(id));
  const invalid = (message: string): FakeReply => ({ status: 422, body: { error: 'validation_failed', message } });

  const routes = new FakeRoutes()
    .route('GET', '/api/items', (req) => {
      const limit = Math.min(Number(req.query.get('limit') ?? 10), 100);
      const offset = Number(req.query.get('offset') ?? 0);
      const tag = req.query.get('tag');
      const matching = items.filter((i) => !tag || i.tags.includes(tag));
      const page = matching.slice(offset, offset + limit);
      return { headers: { 'x-total-count': String(matching.length), 'set-cookie': 'session=abc; HttpOnly' }, body: { items: page, next_offset: offset + limit < matching.length ? offset + limit : null } };
    })
    .route('GET', '/api/items/:id', (req) => {
      const item = find(req.params.id);
      return item ? { headers: { etag: `"item-${item.id}"` }, body: item } : notFound(`item ${req.params.id}`);
    })
    .route('POST', '/api/items', (req) => {
      const body = req.json as Partial<Item> | undefined;
      if (typeof body?.name !== 'string' || !body.name.trim()) return invalid('name is required');
      const item: Item = { id: nextId++, name: body.name, tags: body.tags ?? [], done: body.done ?? false };
      items.push(item);
      return { status: 201, headers: { location: `/api/items/${item.id}` }, body: item };
    })
    .route('PUT', '/api/items/:id', (req) => {
      const item = find(req.params.id);
      if (!item) return notFound(`item ${req.params.id}`);
      const body = req.json as Partial<Item> | undefined;
      if (typeof body?.name !== 'string') return invalid('name is required');
      Object.assign(item, { name: body.name, tags: body.tags ?? [], done: body.done ?? false });
      return { body: item };
    })
    .route('PATCH', '/api/items/:id', (req) => {
      const item = find(req.params.id);
      if (!item) return notFound(`item ${req.params.id}`);
      Object.assign(item, req.json as Partial<Item>, { id: item.id });
      return { body: item };
    })
    .route('DELETE', '/api/items/:id', (req) => {
      const index = items.findIndex((i) => i.id === Number(req.params.id));
      if (index === -1) return notFound(`item ${req.params.id}`);
      items.splice(index, 1);
      return { status: 204 };
    })
    .route('GET', '/api/echo', (req) => ({ body: { method: req.method, query: Object.fromEntries(req.query), headers: req.headers } }))
    .route('GET', '/api/readme', () => ({ headers: { 'content-type': 'text/markdown; charset=utf-8' }, body: '# Items API\n\nHello.' }))
    .route('GET', '/api/logo', () => ({ headers: { 'content-type': 'image/png' }, body: '\u0089PNG fake bytes' }))
    .route('GET', '/api/big', (req) => {
      const count = Number(req.query.get('count') ?? 1000);
      return { body: { rows: Array.from({ length: count }, (_, i) => ({ i, text: 'x'.repeat(50) })) } };
    })
    .route('GET', '/api/moved', () => ({ status: 301, headers: { location: '/api/items' }, body: '' }));

  return Object.assign(
    await startFakeServer({
      routes,
      notFound: { status: 404, body: { error: 'not_found', message: 'No such route.' } },
      before: (req): FakeReply | undefined => {
        const token = bearerToken(req);
        if (!token || !Object.values(JSON_API_FAKE_TOKENS).includes(token as never)) {
          return { status: 401, headers: { 'www-authenticate': 'Bearer realm="items"' }, body: { error: 'unauthorized', message: 'Invalid or missing bearer token.' } };
        }
        if (token === JSON_API_FAKE_TOKENS.rateLimited) return { status: 429, headers: { 'retry-after': '12' }, body: { error: 'rate_limited', message: 'Slow down.' } };
        if (token === JSON_API_FAKE_TOKENS.failing) return { status: 503, body: { error: 'unavailable', message: 'Down for maintenance.' } };
        if (token === JSON_API_FAKE_TOKENS.readOnly && req.method !== 'GET') return { status: 403, body: { error: 'forbidden', message: 'This token can only read.' } };
        return undefined;
      },
    }),
    { items },
  );
}
