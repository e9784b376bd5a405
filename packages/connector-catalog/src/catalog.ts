import { github } from './connectors/github';
import { gmail } from './connectors/gmail';
import { googleCalendar } from './connectors/google-calendar';
import { hubspot } from './connectors/hubspot';
import { http } from './connectors/http';
import { jira } from './connectors/jira';
import { linear } from './connectors/linear';
import { notion } from './connectors/notion';
import { postgresql } from './connectors/postgresql';
import { slack } from './connectors/slack';
import { zendesk } from './connectors/zendesk';
import type { ConnectorDefinition, ToolDefinition } from './core/types';

/**
 * Every built-in connector. Add a connector by importing it here (one line each, alphabetical).
 */
export const BUILTIN_CONNECTORS: readonly ConnectorDefinition[] = [
  github,
  gmail,
  googleCalendar,
  hubspot,
  http,
  jira,
  linear,
  notion,
  postgresql,
  slack,
  zendesk,
];

const bySlug = new Map(BUILTIN_CONNECTORS.map((c) => [c.slug, c]));

export function getBuiltinConnector(slug: string): ConnectorDefinition | undefined {
  return bySlug.get(slug);
}

export function findTool(connector: ConnectorDefinition, name: string): ToolDefinition | undefined {
  return connector.tools.find((t) => t.name === name);
}
