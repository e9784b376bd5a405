import { splitIdentifiers } from './text';
import type { SearchableTool } from './tool-index';

/** Words written in capitals in a human name. */
const ACRONYMS = new Set(['http', 'https', 'sql', 'api', 'url', 'id', 'ids', 'json', 'crm', 'pr', 'prs', 'jql', 'dm', 'csv', 'ssl', 'ui', 'sms', 'pdf', 'html', 'xml', 'ci', 'cd', 'aws', 'gcp', 'ip', 'dns', 'ssh', 'mcp']);
const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/**
 * A readable name from the tool's name and its connector: `send_message` of Gmail is
 * "Send message (Gmail)", `http_get` is "HTTP GET (Generic HTTP/JSON)".
 */
export function humanName(tool: Pick<SearchableTool, 'name' | 'connector_name'>): string {
  const words = splitIdentifiers(tool.name)
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
  const shown = words.map((word, i) => {
    if (ACRONYMS.has(word)) return word.toUpperCase();
    if (HTTP_METHODS.has(word) && words[i - 1] === 'http') return word.toUpperCase();
    return i === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : word;
  });
  const base = shown.join(' ') || tool.name;
  const connector = tool.connector_name.trim();
  return connector ? `${base} (${connector})` : base;
}
