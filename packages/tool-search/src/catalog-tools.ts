import { BUILTIN_CONNECTORS } from '@patchbay/connector-catalog';
import type { SearchableTool } from './tool-index';

/** Every tool of the built-in catalog, as search sees it. */
export function catalogSearchableTools(): SearchableTool[] {
  return BUILTIN_CONNECTORS.flatMap((connector) =>
    connector.tools.map((tool) => ({
      fully_qualified_name: `${connector.slug}__${tool.name}`,
      connector_slug: connector.slug,
      connector_name: connector.name,
      name: tool.name,
      description: tool.description,
      input_schema: tool.input_schema,
    })),
  );
}
