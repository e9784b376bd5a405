import { READ_ONLY, arr, inputSchema, int, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { jiraRequest } from './client';

interface JiraProject {
  id: string;
  key: string;
  name: string;
  projectTypeKey?: string;
  style?: string;
  isPrivate?: boolean;
  lead?: { displayName?: string };
}

interface ProjectPage {
  startAt: number;
  maxResults: number;
  total?: number;
  isLast: boolean;
  values: JiraProject[];
}

const projectSchema = objectSchema(
  {
    id: str('Project ID'),
    key: str('Project key, used in JQL and create_issue'),
    name: str('Name'),
    type: { type: ['string', 'null'], description: 'software, service_desk or business' },
    style: { type: ['string', 'null'], description: 'classic (company-managed) or next-gen (team-managed)' },
  },
  ['id', 'key', 'name'],
);

export const listProjects: ToolDefinition<{ query?: string; max_results?: number; start_at?: number }> = {
  name: 'list_projects',
  description: 'List the Jira projects the user can browse, optionally filtered by a text matching the key or name. Page through with next_start_at.',
  input_schema: inputSchema({
    query: str('Only projects whose key or name contains this text', { minLength: 1 }),
    max_results: { type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'How many projects to return (1 to 100, default 50).' },
    start_at: int('Index to start at, from next_start_at of an earlier call', { minimum: 0 }),
  }),
  output_schema: objectSchema(
    {
      projects: arr(projectSchema, 'Projects'),
      total: { type: ['integer', 'null'], description: 'How many projects match' },
      next_start_at: { type: ['integer', 'null'], description: 'Pass as start_at for the next page; null on the last page' },
    },
    ['projects', 'next_start_at'],
  ),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await jiraRequest<ProjectPage>(ctx, {
      path: '/rest/api/3/project/search',
      query: { query: input.query, startAt: input.start_at ?? 0, maxResults: input.max_results ?? 50, orderBy: 'key' },
    });
    const page = res.data;
    return {
      projects: page.values.map((p) => ({ id: p.id, key: p.key, name: p.name, type: p.projectTypeKey ?? null, style: p.style ?? null })),
      total: page.total ?? null,
      next_start_at: page.isLast ? null : page.startAt + page.values.length,
    };
  },
};
