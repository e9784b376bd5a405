import { nextLink, pageOf } from '../../core/link-header';
import { encodePath } from '../../core/provider-http';
import { READ_ONLY, arr, bool, inputSchema, int, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { githubRequest } from './client';
import { nextPageSchema, pageParams, repoParams } from './params';

interface GithubRepository {
  name: string;
  full_name: string;
  owner: { login: string };
  description: string | null;
  private: boolean;
  visibility?: string;
  fork: boolean;
  archived: boolean;
  html_url: string;
  default_branch: string;
  language: string | null;
  topics?: string[];
  stargazers_count: number;
  forks_count: number;
  open_issues_count: number;
  created_at: string;
  updated_at: string;
  pushed_at: string | null;
  permissions?: { admin?: boolean; push?: boolean; pull?: boolean };
}

const repositorySchema = objectSchema(
  {
    full_name: str('owner/name'),
    owner: str('Owner login'),
    name: str('Repository name'),
    description: { type: ['string', 'null'] },
    private: bool('Whether the repository is private'),
    visibility: str('public, private or internal'),
    fork: bool('Whether it is a fork'),
    archived: bool('Archived repositories are read-only'),
    url: str('Web URL'),
    default_branch: str('Default branch'),
    language: { type: ['string', 'null'] },
    topics: arr(str('Topic'), 'Topics'),
    stars: int('Stargazers'),
    forks: int('Forks'),
    open_issues: int('Open issues and pull requests'),
    can_push: { type: ['boolean', 'null'], description: 'Whether the credential may push (null when GitHub does not say)' },
    created_at: str('ISO 8601'),
    updated_at: str('ISO 8601'),
    pushed_at: { type: ['string', 'null'] },
  },
  ['full_name', 'owner', 'name', 'private', 'url', 'default_branch'],
);

function toRepository(repo: GithubRepository) {
  return {
    full_name: repo.full_name,
    owner: repo.owner.login,
    name: repo.name,
    description: repo.description,
    private: repo.private,
    visibility: repo.visibility ?? (repo.private ? 'private' : 'public'),
    fork: repo.fork,
    archived: repo.archived,
    url: repo.html_url,
    default_branch: repo.default_branch,
    language: repo.language,
    topics: repo.topics ?? [],
    stars: repo.stargazers_count,
    forks: repo.forks_count,
    open_issues: repo.open_issues_count,
    can_push: repo.permissions?.push ?? null,
    created_at: repo.created_at,
    updated_at: repo.updated_at,
    pushed_at: repo.pushed_at,
  };
}

type ListRepositoriesInput = {
  visibility?: 'all' | 'public' | 'private';
  affiliation?: Array<'owner' | 'collaborator' | 'organization_member'>;
  sort?: 'created' | 'updated' | 'pushed' | 'full_name';
  direction?: 'asc' | 'desc';
  per_page?: number;
  page?: number;
};

export const listRepositories: ToolDefinition<ListRepositoriesInput> = {
  name: 'list_repositories',
  description:
    'List the GitHub repositories the connected user can access (owned, collaborator, organization member), most recently updated first by default. Filter by visibility and affiliation; page through with next_page.',
  input_schema: inputSchema({
    visibility: str('all, public or private', { enum: ['all', 'public', 'private'] }),
    affiliation: arr(str('owner, collaborator or organization_member', { enum: ['owner', 'collaborator', 'organization_member'] }), 'Only repositories the user relates to in these ways', { minItems: 1 }),
    sort: str('created, updated, pushed or full_name', { enum: ['created', 'updated', 'pushed', 'full_name'], default: 'updated' }),
    direction: str('asc or desc (GitHub: asc for full_name, else desc)', { enum: ['asc', 'desc'] }),
    ...pageParams,
  }),
  output_schema: objectSchema({ repositories: arr(repositorySchema, 'Repositories'), next_page: nextPageSchema }, ['repositories', 'next_page']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await githubRequest<GithubRepository[]>(ctx, {
      path: '/user/repos',
      query: {
        visibility: input.visibility,
        affiliation: input.affiliation?.join(','),
        sort: input.sort ?? 'updated',
        direction: input.direction,
        per_page: input.per_page ?? 30,
        page: input.page,
      },
    });
    return { repositories: res.data.map(toRepository), next_page: pageOf(nextLink(res.headers.get('link'))) };
  },
};

export const getRepository: ToolDefinition<{ owner: string; repo: string }> = {
  name: 'get_repository',
  description: 'Get one GitHub repository: description, visibility, default branch, language, topics, stars and whether the credential can push.',
  input_schema: inputSchema({ ...repoParams }, ['owner', 'repo']),
  output_schema: repositorySchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await githubRequest<GithubRepository>(ctx, { path: encodePath('/repos/{owner}/{repo}', input) });
    return toRepository(res.data);
  },
};
