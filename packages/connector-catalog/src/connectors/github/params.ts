import { int, limit, str } from '../../core/schema';
import type { JsonSchema } from '../../core/types';

/** The owner/repo pair every repository-scoped GitHub endpoint takes. */
export const repoParams: Record<string, JsonSchema> = {
  owner: str('Repository owner (user or organization login)', { minLength: 1 }),
  repo: str('Repository name', { minLength: 1 }),
};

/** GitHub's page-number pagination: `per_page` up to 100 and the `next_page` of an earlier call. */
export const pageParams: Record<string, JsonSchema> = {
  per_page: limit(100, 30),
  page: int('Page to fetch, from next_page of an earlier call', { minimum: 1 }),
};

export const nextPageSchema: JsonSchema = { type: ['integer', 'null'], description: 'Pass as page to get the next page; null on the last page.' };
