import { NOTION_FAKE_TOKENS, startFakeNotion } from '@patchbay/provider-fakes';
import { findTool, getBuiltinConnector } from '../src/catalog';
import type { InjectedCredential } from '../src/core/types';
import { validateToolArguments } from '../src/core/validate';
import { expectToolError, runTool } from './run-tool';

let fake: Awaited<ReturnType<typeof startFakeNotion>>;
const bearer = (token: string): InjectedCredential => ({ auth_type: 'bearer_token', values: { token } });
const lastRequest = () => fake.requests.at(-1)!;

/** Runs a tool and checks its output against the tool's output_schema. */
async function run(tool: string, input: unknown, credential: InjectedCredential = bearer(NOTION_FAKE_TOKENS.valid)): Promise<unknown> {
  const output = await runTool('notion', tool, { input }, { credential, baseUrl: fake.url });
  expect(validateToolArguments({ input_schema: findTool(getBuiltinConnector('notion')!, tool)!.output_schema }, output)).toEqual([]);
  return output;
}

interface Page {
  id: string;
  title: string;
  url: string;
  parent: { type: string; id: string | null };
  properties: Record<string, unknown>;
}

const undashed = (id: string) => id.replace(/-/g, '');

beforeAll(async () => {
  fake = await startFakeNotion({ tasks: 25 });
});
afterAll(async () => {
  await fake.close();
});

describe('notion connector', () => {
  it('search posts the query, object filter and sort to /v1/search with the bearer token and Notion-Version', async () => {
    const res = (await run('search', { query: 'tasks', object: 'database' })) as { results: Array<{ object: string; id: string; title: string }>; next_cursor: string | null };
    const request = lastRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/search');
    expect(request.headers.authorization).toBe(`Bearer ${NOTION_FAKE_TOKENS.valid}`);
    expect(request.headers['notion-version']).toBe('2022-06-28');
    expect(request.json).toEqual({ query: 'tasks', filter: { property: 'object', value: 'database' }, sort: { direction: 'descending', timestamp: 'last_edited_time' }, page_size: 20 });
    expect(res).toEqual({ results: [expect.objectContaining({ object: 'database', id: fake.ids.tasks, title: 'Tasks', parent: { type: 'page_id', id: fake.ids.home } })], next_cursor: null });
  });

  it('search pages through results with start_cursor and next_cursor', async () => {
    const first = (await run('search', { object: 'page', page_size: 20 })) as { results: Array<{ id: string }>; next_cursor: string | null };
    expect(first.results).toHaveLength(20);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await run('search', { object: 'page', page_size: 20, start_cursor: first.next_cursor })) as { results: Array<{ id: string }>; next_cursor: string | null };
    expect((lastRequest().json as { start_cursor: string }).start_cursor).toBe(first.next_cursor);
    expect(second.results).toHaveLength(6);
    expect(second.next_cursor).toBeNull();
    expect(new Set([...first.results, ...second.results].map((r) => r.id)).size).toBe(26);
  });

  it('get_page accepts a page URL, returns plain property values, and reads the blocks with include_content', async () => {
    const task = fake.pages.find((p) => p.parent.database_id && JSON.stringify(p.properties.Name).includes('Task 2"'))!;
    const page = (await run('get_page', { page_id: `https://www.notion.so/Task-2-${undashed(task.id)}` })) as Page;
    expect(lastRequest().method).toBe('GET');
    expect(lastRequest().path).toBe(`/v1/pages/${task.id}`);
    expect(page).toMatchObject({
      id: task.id,
      title: 'Task 2',
      parent: { type: 'database_id', id: fake.ids.tasks },
      properties: { Name: 'Task 2', Status: 'Done', Tags: ['urgent'], Due: { start: '2026-03-02', end: null }, Points: 2, Done: true },
    });

    const home = (await run('get_page', { page_id: undashed(fake.ids.home), include_content: true })) as Page & { content: Array<{ type: string; text: string }>; content_has_more: boolean };
    expect(lastRequest().path).toBe(`/v1/blocks/${fake.ids.home}/children`);
    expect(lastRequest().query.get('page_size')).toBe('100');
    expect(home).toMatchObject({ title: 'Team Home', parent: { type: 'workspace', id: null }, content_has_more: false });
    expect(home.content).toEqual([
      { type: 'heading_1', text: 'Welcome' },
      { type: 'paragraph', text: 'This is the team home page.' },
    ]);
  });

  it('create_page adds a database row with its title under the "title" property ID, other properties and paragraphs', async () => {
    const long = 'x'.repeat(2500);
    const page = (await run('create_page', {
      parent_database_id: undashed(fake.ids.tasks),
      title: 'Write the report',
      properties: { Status: { status: { name: 'In progress' } }, Points: { number: 5 } },
      paragraphs: ['First paragraph.', long],
    })) as Page;
    expect(lastRequest().method).toBe('POST');
    expect(lastRequest().path).toBe('/v1/pages');
    const body = lastRequest().json as { parent: unknown; properties: Record<string, unknown>; children: Array<{ paragraph: { rich_text: Array<{ text: { content: string } }> } }> };
    expect(body.parent).toEqual({ database_id: fake.ids.tasks });
    expect(body.properties).toEqual({ Status: { status: { name: 'In progress' } }, Points: { number: 5 }, title: { title: [{ type: 'text', text: { content: 'Write the report' } }] } });
    // Notion caps a text object at 2,000 characters, so the long paragraph goes as two.
    expect(body.children[1]!.paragraph.rich_text.map((t) => t.text.content.length)).toEqual([2000, 500]);
    expect(page).toMatchObject({ title: 'Write the report', parent: { type: 'database_id', id: fake.ids.tasks }, properties: { Name: 'Write the report', Status: 'In progress', Points: 5, Done: false } });
    expect(fake.blocks.filter((b) => b.parentId === page.id).map((b) => b.text)).toEqual(['First paragraph.', long]);
  });

  it('create_page creates a page under a page', async () => {
    const page = (await run('create_page', { parent_page_id: fake.ids.home, title: 'Meeting notes' })) as Page;
    expect((lastRequest().json as { parent: unknown }).parent).toEqual({ page_id: fake.ids.home });
    expect(page).toMatchObject({ title: 'Meeting notes', parent: { type: 'page_id', id: fake.ids.home }, properties: { title: 'Meeting notes' } });
  });

  it('create_page needs exactly one parent, checked before calling Notion', async () => {
    const before = fake.requests.length;
    await expectToolError(run('create_page', { title: 'Orphan' }), 'invalid_input');
    await expectToolError(run('create_page', { title: 'Two parents', parent_page_id: fake.ids.home, parent_database_id: fake.ids.tasks }), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('update_page_properties patches the given property values', async () => {
    const task = fake.pages.find((p) => p.parent.database_id)!;
    const page = (await run('update_page_properties', { page_id: task.id, properties: { Status: { status: { name: 'Done' } }, Due: { date: { start: '2026-05-01' } } } })) as Page;
    expect(lastRequest().method).toBe('PATCH');
    expect(lastRequest().path).toBe(`/v1/pages/${task.id}`);
    expect(lastRequest().json).toEqual({ properties: { Status: { status: { name: 'Done' } }, Due: { date: { start: '2026-05-01' } } } });
    expect(page.properties).toMatchObject({ Status: 'Done', Due: { start: '2026-05-01', end: null } });
  });

  it('maps Notion\'s validation_error to invalid input with its message', async () => {
    const task = fake.pages.find((p) => p.parent.database_id)!;
    const err = await expectToolError(run('update_page_properties', { page_id: task.id, properties: { Owner: { rich_text: [] } } }), 'invalid_input');
    expect(err.status).toBe(400);
    expect(err.message).toContain('Owner is not a property that exists. (validation_error)');
  });

  it('query_database sends filter, sorts and page size, and pages through the rows', async () => {
    const filter = { property: 'Status', status: { equals: 'Not started' } };
    const first = (await run('query_database', { database_id: fake.ids.tasks, filter, sorts: [{ property: 'Points', direction: 'ascending' }], page_size: 5 })) as { pages: Page[]; next_cursor: string | null };
    expect(lastRequest().path).toBe(`/v1/databases/${fake.ids.tasks}/query`);
    expect(lastRequest().json).toEqual({ filter, sorts: [{ property: 'Points', direction: 'ascending' }], page_size: 5 });
    expect(first.pages).toHaveLength(5);
    expect(first.pages.every((p) => p.properties.Status === 'Not started')).toBe(true);
    expect(first.pages.map((p) => p.properties.Points)).toEqual([3, 6, 9, 12, 15]);
    const second = (await run('query_database', { database_id: fake.ids.tasks, filter, sorts: [{ property: 'Points', direction: 'ascending' }], page_size: 5, start_cursor: first.next_cursor })) as { pages: Page[]; next_cursor: string | null };
    expect(second.pages.map((p) => p.properties.Points)).toEqual([18, 21, 24]);
    expect(second.next_cursor).toBeNull();
  });

  it('append_block_children appends paragraph blocks to a page', async () => {
    const res = (await run('append_block_children', { block_id: undashed(fake.ids.home), paragraphs: ['Added by the agent.', 'Second line.'] })) as { block_ids: string[] };
    expect(lastRequest().method).toBe('PATCH');
    expect(lastRequest().path).toBe(`/v1/blocks/${fake.ids.home}/children`);
    expect(lastRequest().json).toEqual({
      children: [
        { object: 'block', type: 'paragraph', paragraph: { rich_text: [{ type: 'text', text: { content: 'Added by the agent.' } }] } },
        { object: 'block', type: 'paragraph', paragraph: { rich_text: [{ type: 'text', text: { content: 'Second line.' } }] } },
      ],
    });
    expect(res.block_ids).toHaveLength(2);
    expect(fake.blocks.filter((b) => b.parentId === fake.ids.home).map((b) => b.text).slice(-2)).toEqual(['Added by the agent.', 'Second line.']);
  });

  it('refuses arguments that fail the input schema, or an ID that is not a Notion ID, before calling Notion', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('append_block_children', { block_id: fake.ids.home, paragraphs: [] }), 'invalid_input');
    expect(err.message).toContain('input.paragraphs must NOT have fewer than 1 items');
    await expectToolError(run('query_database', { page_size: 500 }), 'invalid_input');
    const badId = await expectToolError(run('get_page', { page_id: 'my page' }), 'invalid_input');
    expect(badId.message).toContain('input.page_id must be a Notion ID');
    expect(fake.requests.length).toBe(before);
  });

  it('maps 401 unauthorized to a rejected credential, without echoing the token', async () => {
    const err = await expectToolError(run('search', {}, bearer('ntn_wrong_secret')), 'credential_rejected');
    expect(err.message).toContain('API token is invalid');
    expect(err.message).toContain('reconnect Notion');
    expect(err.message).not.toContain('ntn_wrong_secret');
  });

  it('maps 404 object_not_found to not found', async () => {
    const err = await expectToolError(run('get_page', { page_id: '99999999999949998999999999999999' }), 'not_found');
    expect(err.message).toContain('Could not find page with ID');
    await expectToolError(run('query_database', { database_id: fake.ids.home }), 'not_found');
  });

  it('maps 429 rate_limited to rate_limited with Retry-After', async () => {
    const err = await expectToolError(run('search', {}, bearer(NOTION_FAKE_TOKENS.rateLimited)), 'rate_limited');
    expect(err.retryAfterSeconds).toBe(17);
  });

  it('maps 503 service_unavailable to a provider error', async () => {
    const err = await expectToolError(run('search', {}, bearer(NOTION_FAKE_TOKENS.failing)), 'provider_error');
    expect(err.status).toBe(503);
  });
});
