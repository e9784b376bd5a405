import { READ_ONLY, arr, inputSchema, limit, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { linearGraphql } from './client';

interface LinearTeam {
  id: string;
  key: string;
  name: string;
  description: string | null;
}

export const listTeams: ToolDefinition<{ first?: number; after?: string }> = {
  name: 'list_teams',
  description: 'List the Linear teams the credential can see, with the ID and key that create_issue and list_issues take; page through with next_cursor.',
  input_schema: inputSchema({
    first: limit(100, 50),
    after: str('next_cursor from an earlier call, to get the following page', { minLength: 1 }),
  }),
  output_schema: objectSchema(
    {
      teams: arr(objectSchema({ id: str('Team ID'), key: str('Team key, the prefix of its issue keys'), name: str('Name'), description: { type: ['string', 'null'] } }, ['id', 'key', 'name']), 'Teams'),
      next_cursor: { type: ['string', 'null'], description: 'Pass as `after` to get the next page; null on the last page' },
    },
    ['teams', 'next_cursor'],
  ),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const data = await linearGraphql<{ teams: { nodes: LinearTeam[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } }>(
      ctx,
      `query ListTeams($first: Int, $after: String) {
  teams(first: $first, after: $after) {
    nodes { id key name description }
    pageInfo { hasNextPage endCursor }
  }
}`,
      { first: input.first ?? 50, after: input.after },
    );
    const { nodes, pageInfo } = data.teams;
    return { teams: nodes.map((t) => ({ id: t.id, key: t.key, name: t.name, description: t.description })), next_cursor: pageInfo.hasNextPage ? pageInfo.endCursor : null };
  },
};
