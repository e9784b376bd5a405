import { humanName } from './human-name';

describe('humanName', () => {
  it.each([
    [{ name: 'send_message', connector_name: 'Gmail' }, 'Send message (Gmail)'],
    [{ name: 'list_pull_requests', connector_name: 'GitHub' }, 'List pull requests (GitHub)'],
    [{ name: 'http_get', connector_name: 'Generic HTTP/JSON' }, 'HTTP GET (Generic HTTP/JSON)'],
    [{ name: 'run_query', connector_name: 'PostgreSQL' }, 'Run query (PostgreSQL)'],
    [{ name: 'search', connector_name: 'Notion' }, 'Search (Notion)'],
    [{ name: 'getUserById', connector_name: 'Acme' }, 'Get user by ID (Acme)'],
    [{ name: 'create_pr', connector_name: '' }, 'Create PR'],
  ])('%o → %s', (tool, expected) => {
    expect(humanName(tool)).toBe(expected);
  });
});
