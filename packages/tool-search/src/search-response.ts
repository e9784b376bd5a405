import type { SearchResult } from './tool-index';

/** One tool of the search response, with the fields of the spec's "Tool search" response. */
export interface SearchResponseTool {
  name: string;
  fully_qualified_name: string;
  human_name: string;
  description: string;
  input_schema: Record<string, unknown>;
  relevance_score: number;
  reasoning: string;
}

/** The 200 body of POST .../search: tools, total_results and the intent as sent. */
export interface SearchResponse {
  tools: SearchResponseTool[];
  total_results: number;
  intent: string;
}

export function toSearchResponse(intent: string, result: SearchResult): SearchResponse {
  return {
    tools: result.hits.map((hit) => ({
      name: hit.tool.name,
      fully_qualified_name: hit.tool.fully_qualified_name,
      human_name: hit.human_name,
      description: hit.tool.description,
      input_schema: hit.tool.input_schema,
      relevance_score: hit.relevance_score,
      reasoning: hit.reasoning,
    })),
    total_results: result.total_results,
    intent,
  };
}
