import { FakeRoutes, bearerToken, startFakeServer, type FakeReply, type FakeServer } from './fake-server';

/** Tokens the fake GitHub understands. */
export const GITHUB_FAKE_TOKENS = {
  valid: 'ghp_fake_valid_token',
  /** Authenticated, but every call is over the primary rate limit (403 with x-ratelimit-remaining: 0). */
  rateLimited: 'ghp_fake_rate_limited',
  /** Authenticated, but secondary rate limit (429 with Retry-After). */
  secondaryLimited: 'ghp_fake_secondary_limited',
  /** Authenticated, but a 502 on every call. */
  failing: 'ghp_fake_failing',
} as const;

interface Issue {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  labels: Array<{ name: string }>;
  assignees: Array<{ login: string }>;
  created_at: string;
}

/**
 * A fake of GitHub's REST API for the issue tools: Bearer auth with "Bad credentials" 401s,
 * "Not Found" 404s for unknown repositories, Link-header pagination, 422 validation errors,
 * and both of GitHub's rate-limit answers.
 */
export async function startFakeGithub(seed: { owner: string; repo: string; issues: number } = { owner: 'octo-org', repo: 'hello', issues: 5 }): Promise<FakeServer & { issues: Issue[] }> {
  const issues: Issue[] = Array.from({ length: seed.issues }, (_, i) => ({
    number: i + 1,
    title: `Issue ${i + 1}`,
    body: `Body of issue ${i + 1}`,
    state: i % 4 === 3 ? 'closed' : 'open',
    labels: i % 2 === 0 ? [{ name: 'bug' }] : [],
    assignees: [],
    created_at: new Date(Date.UTC(2026, 0, i + 1)).toISOString(),
  }));
  let base = '';
  const render = (issue: Issue) => ({
    ...issue,
    html_url: `https://github.com/${seed.owner}/${seed.repo}/issues/${issue.number}`,
    user: { login: 'octocat' },
    comments: 0,
    updated_at: issue.created_at,
  });
  const knownRepo = (owner: string, repo: string) => owner === seed.owner && repo === seed.repo;
  const notFound = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };

  const routes = new FakeRoutes()
    .route('GET', '/repos/:owner/:repo/issues', (req) => {
      if (!knownRepo(req.params.owner!, req.params.repo!)) return notFound;
      const state = req.query.get('state') ?? 'open';
      const labels = (req.query.get('labels') ?? '').split(',').filter(Boolean);
      const perPage = Math.min(Number(req.query.get('per_page') ?? 30), 100);
      const page = Number(req.query.get('page') ?? 1);
      const matching = issues
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => labels.every((l) => i.labels.some((x) => x.name === l)))
        .sort((a, b) => b.number - a.number);
      const slice = matching.slice((page - 1) * perPage, page * perPage);
      const headers: Record<string, string> = {};
      if (page * perPage < matching.length) {
        const next = new URL(`${base}${req.path}`);
        req.query.forEach((v, k) => next.searchParams.set(k, v));
        next.searchParams.set('page', String(page + 1));
        headers.link = `<${next.toString()}>; rel="next"`;
      }
      return { headers, body: slice.map(render) };
    })
    .route('GET', '/repos/:owner/:repo/issues/:number', (req) => {
      const issue = knownRepo(req.params.owner!, req.params.repo!) ? issues.find((i) => i.number === Number(req.params.number)) : undefined;
      return issue ? { body: render(issue) } : notFound;
    })
    .route('POST', '/repos/:owner/:repo/issues', (req) => {
      if (!knownRepo(req.params.owner!, req.params.repo!)) return notFound;
      const body = req.json as { title?: string; body?: string; labels?: string[]; assignees?: string[] } | undefined;
      if (!body?.title?.trim()) return { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }] } };
      const issue: Issue = {
        number: issues.length + 1,
        title: body.title,
        body: body.body ?? null,
        state: 'open',
        labels: (body.labels ?? []).map((name) => ({ name })),
        assignees: (body.assignees ?? []).map((login) => ({ login })),
        created_at: new Date().toISOString(),
      };
      issues.push(issue);
      return { status: 201, body: render(issue) };
    });

  const server = await startFakeServer({
    routes,
    before: (req): FakeReply | undefined => {
      const token = bearerToken(req);
      if (!token || !Object.values(GITHUB_FAKE_TOKENS).includes(token as never)) {
        return { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } };
      }
      if (token === GITHUB_FAKE_TOKENS.rateLimited) {
        return { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 60) }, body: { message: 'API rate limit exceeded for user ID 1.' } };
      }
      if (token === GITHUB_FAKE_TOKENS.secondaryLimited) {
        return { status: 429, headers: { 'retry-after': '30' }, body: { message: 'You have exceeded a secondary rate limit.' } };
      }
      if (token === GITHUB_FAKE_TOKENS.failing) return { status: 502, body: 'Server Error' };
      return undefined;
    },
  });
  base = server.url;
  return Object.assign(server, { issues });
}
