import { github } from './connectors/github';
import { slack } from './connectors/slack';
import type { ConnectorDefinition, ToolDefinition } from './core/types';

/**
 * Every built-in connector. Add a connector by importing it here (one line each, alphabetical).
 */
export const BUILTIN_CONNECTORS: readonly ConnectorDefinition[] = [
  github,
  slack,
];

const bySlug = new Map(BUILTIN_CONNECTORS.map((c) => [c.slug, c]));

export function getBuiltinConnector(slug: string): ConnectorDefinition | undefined {
  return bySlug.get(slug);
}

export function findTool(connector: ConnectorDefinition, name: string): ToolDefinition | undefined {
  return connector.tools.find((t) => t.name === name);
}
