import { catalogSearchableTools } from './catalog-tools';
import { ToolIndex, type SearchableTool } from './tool-index';

const catalog = catalogSearchableTools();
const index = new ToolIndex(catalog);
const names = (intent: string, options?: Parameters<ToolIndex['search']>[1]) => index.search(intent, options).hits.map((h) => h.tool.fully_qualified_name);

describe('ranking', () => {
  it.each([
    ['send an email to bob@acme.com saying the invoice is paid', 'gmail__send_message'],
    ['whats on my calendar this afternoon', 'google-calendar__list_events'],
    ['set up a meeting with the design team on Thursday at 2pm', 'google-calendar__create_event'],
    ['open a ticket in Jira for the login bug', 'jira__create_issue'],
    ['which PRs are still open in acme/api?', 'github__list_pull_requests'],
    ['message the #ops channel that the backup finished', 'slack__post_message'],
    ['which deals are closing this quarter in the CRM', 'hubspot__list_deals'],
    ['find the wiki page about vacation policy', 'notion__search'],
    ['what columns are in the invoices table', 'postgresql__describe_table'],
    ['fetch the /health endpoint of our API', 'http__http_get'],
  ])('ranks by meaning, not substring: "%s" → %s first', (intent, expected) => {
    expect(names(intent)[0]).toBe(expected);
  });

  it('offers both HTTP tools first for a neutral "call", the general one first', () => {
    expect(names('call the /health endpoint of our API').slice(0, 2)).toEqual(['http__http_request', 'http__http_get']);
  });

  it('does not suggest deleting for a request to show: delete_event ranks below the reading tools', () => {
    const order = names('show my events', { maxResults: 50 });
    expect(order[0]).toBe('google-calendar__list_events');
    expect(order.indexOf('google-calendar__delete_event')).toBeGreaterThan(order.indexOf('google-calendar__get_event'));
    expect(order.indexOf('google-calendar__delete_event')).toBeGreaterThan(order.indexOf('google-calendar__list_calendars'));
  });

  it('finds the deleting tool when the intent asks to delete', () => {
    expect(names('delete the standup from my calendar')[0]).toBe('google-calendar__delete_event');
    expect(names('cancel the 1:1 with Priya')[0]).toBe('google-calendar__delete_event');
  });

  it('prefers the connector the intent names: "in Linear" beats Jira and GitHub for the same request', () => {
    expect(names('create an issue in Linear for the flaky test')[0]).toBe('linear__create_issue');
    expect(names('create an issue in Jira for the flaky test')[0]).toBe('jira__create_issue');
    expect(names('create an issue on GitHub for the flaky test')[0]).toBe('github__create_issue');
  });

  it('offers every product that fits when the intent names none', () => {
    const top = names('file a bug about the checkout crash', { maxResults: 5 });
    expect(top).toEqual(expect.arrayContaining(['github__create_issue', 'jira__create_issue', 'linear__create_issue']));
  });

  it('reads an ID in the intent as a request for one item', () => {
    expect(names('show me Zendesk ticket 4512')[0]).toBe('zendesk__get_ticket');
    expect(names('show me open Zendesk tickets about refunds')[0]).toBe('zendesk__search_tickets');
  });

  it('gives the same answer to the same intent every time', () => {
    const first = index.search('post the release notes to #general');
    const second = index.search('post the release notes to #general');
    expect(second).toEqual(first);
  });

  it('returns nothing, and total_results 0, for an intent no tool matches', () => {
    expect(index.search('what is the weather in Paris')).toEqual({ hits: [], total_results: 0 });
    expect(index.search('')).toEqual({ hits: [], total_results: 0 });
  });
});

describe('relevance_score', () => {
  it.each(['send an email', 'list my jira projects', 'query the database', 'thumbs up that message', 'what is on the agenda'])(
    'is in [0, 1] and sorted best first for "%s"',
    (intent) => {
      const { hits } = index.search(intent, { maxResults: 50 });
      expect(hits.length).toBeGreaterThan(1);
      for (const hit of hits) {
        expect(hit.relevance_score).toBeGreaterThanOrEqual(0);
        expect(hit.relevance_score).toBeLessThanOrEqual(1);
      }
      const scores = hits.map((h) => h.relevance_score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    },
  );

  it('is higher for a precise intent than for a vague one', () => {
    const precise = index.search('send an email from my Gmail to bob').hits[0]!;
    const vague = index.search('text').hits[0]!;
    expect(precise.relevance_score).toBeGreaterThan(vague.relevance_score);
  });
});

describe('max_results and total_results', () => {
  it('returns 10 tools by default', () => {
    const result = index.search('list');
    expect(result.hits).toHaveLength(10);
    expect(result.total_results).toBeGreaterThan(10);
  });

  it('returns at most max_results tools, the best ones', () => {
    const all = index.search('update an issue', { maxResults: 50 });
    const three = index.search('update an issue', { maxResults: 3 });
    expect(three.hits).toHaveLength(3);
    expect(three.hits).toEqual(all.hits.slice(0, 3));
  });

  it('total_results counts every tool that matched before max_results cuts the list', () => {
    const one = index.search('slack', { maxResults: 1 });
    expect(one.hits).toHaveLength(1);
    // Every Slack tool matches "slack"; no other connector's tool does.
    expect(one.total_results).toBe(catalog.filter((t) => t.connector_slug === 'slack').length);
  });
});

describe('connector_slugs filter', () => {
  it('returns only tools of the given connectors, and counts only those', () => {
    const result = index.search('create an issue', { connectorSlugs: ['linear', 'github'], maxResults: 50 });
    expect(result.hits.length).toBeGreaterThan(0);
    for (const hit of result.hits) expect(['linear', 'github']).toContain(hit.tool.connector_slug);
    expect(result.total_results).toBe(result.hits.length);
    expect(result.hits[0]!.tool.fully_qualified_name).toMatch(/^(linear|github)__create_issue$/);
  });

  it('returns nothing when the intent only fits other connectors', () => {
    expect(index.search('send an email', { connectorSlugs: ['postgresql'] }).total_results).toBe(0);
  });

  it('an empty list filters nothing', () => {
    expect(index.search('send an email', { connectorSlugs: [] })).toEqual(index.search('send an email'));
  });

  it('an unknown slug matches no tool', () => {
    expect(index.search('send an email', { connectorSlugs: ['no-such-connector'] })).toEqual({ hits: [], total_results: 0 });
  });
});

describe('reasoning', () => {
  it('names the matched words, the action and the product in a sentence', () => {
    const hit = index.search('send an email to the team').hits[0]!;
    expect(hit.tool.fully_qualified_name).toBe('gmail__send_message');
    expect(hit.reasoning).toContain("'email'");
    expect(hit.reasoning).toContain("'send'");
    expect(hit.reasoning).toMatch(/asks to create, as this tool does/);
    expect(hit.reasoning).toContain('The tool: Send a plain-text email');
  });

  it('says which word of the tool a synonym matched', () => {
    const hit = index.search('reschedule my meeting with Ana').hits[0]!;
    expect(hit.tool.fully_qualified_name).toBe('google-calendar__update_event');
    expect(hit.reasoning).toContain("'meeting' as 'event'");
  });

  it('says when the intent names the connector', () => {
    const hit = index.search('post a message on Slack').hits[0]!;
    expect(hit.reasoning).toContain('The intent names Slack.');
  });

  it('warns when the tool does something else than asked', () => {
    const deleteHit = index.search('show my events', { maxResults: 50 }).hits.find((h) => h.tool.name === 'delete_event')!;
    expect(deleteHit.reasoning).toContain("Note: 'show' asks to read, but this tool deletes.");
  });
});

describe('human_name', () => {
  it('is built from the tool name and its connector', () => {
    const hits = index.search('send an email').hits;
    expect(hits.find((h) => h.tool.fully_qualified_name === 'gmail__send_message')!.human_name).toBe('Send message (Gmail)');
  });
});

describe('custom MCP tools', () => {
  const custom: SearchableTool[] = [
    {
      fully_qualified_name: 'acme-weather__get_forecast',
      connector_slug: 'acme-weather',
      connector_name: 'Acme Weather',
      name: 'get_forecast',
      description: 'Returns the weather forecast (temperature, rain, wind) for a city for the next days.',
      input_schema: { type: 'object', properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer' } }, required: ['city'] },
    },
    {
      fully_qualified_name: 'invoicer__createInvoice',
      connector_slug: 'invoicer',
      connector_name: 'Invoicer',
      name: 'createInvoice',
      description: 'Creates an invoice for a customer with line items and sends it by email.',
      input_schema: { type: 'object', properties: { input: { type: 'object', properties: { customer_id: { type: 'string' }, line_items: { type: 'array' } } } } },
    },
  ];
  const mixed = new ToolIndex([...catalog, ...custom]);

  it('are found by words of their description', () => {
    expect(mixed.search('will it rain in Lyon tomorrow?').hits[0]!.tool.fully_qualified_name).toBe('acme-weather__get_forecast');
  });

  it('are found by words of their camelCase name', () => {
    expect(mixed.search('create an invoice for customer 42').hits[0]!.tool.fully_qualified_name).toBe('invoicer__createInvoice');
  });

  it('are found when the intent names their connector', () => {
    const hit = mixed.search('ask Acme for the forecast').hits[0]!;
    expect(hit.tool.fully_qualified_name).toBe('acme-weather__get_forecast');
    expect(hit.reasoning).toContain('The intent names Acme Weather.');
    expect(hit.human_name).toBe('Get forecast (Acme Weather)');
  });

  it('are searched by their current definition when it changes (a refreshed MCP server)', () => {
    const before = new ToolIndex(custom);
    expect(before.search('snow').total_results).toBe(0);
    const changed = custom.map((t) => (t.name === 'get_forecast' ? { ...t, description: 'Returns the snow depth at ski resorts.' } : t));
    const after = new ToolIndex(changed);
    expect(after.search('snow').hits[0]!.tool.fully_qualified_name).toBe('acme-weather__get_forecast');
    expect(after.search('rain').total_results).toBe(0);
  });

  it('can be searched alone, without any catalog tool', () => {
    const only = new ToolIndex(custom);
    const result = only.search('weather forecast for Paris');
    expect(result.hits.map((h) => h.tool.fully_qualified_name)).toEqual(['acme-weather__get_forecast']);
    expect(result.total_results).toBe(1);
  });
});
