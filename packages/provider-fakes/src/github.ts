import { createHash } from 'node:crypto';
import { FakeRoutes, bearerToken, startFakeServer, type FakeBehaviour, type FakeReply, type FakeRequest, type FakeServer } from './fake-server';

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

/** The login the valid token authenticates as. */
export const GITHUB_FAKE_LOGIN = 'octocat';

interface PullDetails {
  head_ref: string;
  head_sha: string;
  base_ref: string;
  draft: boolean;
  merged_at: string | null;
  requested_reviewers: string[];
  commits: number;
  additions: number;
  deletions: number;
  changed_files: number;
}

interface Issue {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  state_reason: string | null;
  labels: Array<{ name: string }>;
  assignees: Array<{ login: string }>;
  author: string;
  comments: Array<{ id: number; body: string; user: string; created_at: string }>;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  /** Set for pull requests, which GitHub also serves as issues. */
  pull?: PullDetails;
}

interface Repo {
  owner: string;
  name: string;
  description: string | null;
  private: boolean;
  fork: boolean;
  archived: boolean;
  language: string | null;
  topics: string[];
  stars: number;
  /** How the authenticated user relates to the repository (the `affiliation` filter of /user/repos). */
  affiliation: 'owner' | 'collaborator' | 'organization_member';
  created_at: string;
  pushed_at: string;
}

export interface FakeGithubSeed {
  /** The repository that holds the issues, pull requests and files. */
  owner: string;
  repo: string;
  issues: number;
  /** Pull requests, numbered after the issues (they share GitHub's number space). */
  pulls?: number;
  /** More repositories the authenticated user can see, for /user/repos. */
  extraRepos?: number;
  /** Files of the default branch `main`, by path. */
  files?: Record<string, string | Buffer>;
}

const DOCS = 'https://docs.github.com/rest';
const notFound: FakeReply = { status: 404, body: { message: 'Not Found', documentation_url: DOCS } };
const validationFailed = (errors: unknown[]): FakeReply => ({ status: 422, body: { message: 'Validation Failed', errors, documentation_url: DOCS } });
const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString();
const sha = (text: string) => createHash('sha1').update(text).digest('hex');

/** Page of a list and the Link header GitHub sends with it (`rel="next"` and `rel="last"`). */
function paginate<T>(base: string, req: FakeRequest, items: T[], maxPerPage = 100): { slice: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max(Number(req.query.get('per_page') ?? 30), 1), maxPerPage);
  const page = Math.max(Number(req.query.get('page') ?? 1), 1);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const lastPage = Math.max(Math.ceil(items.length / perPage), 1);
  const link = (p: number, rel: string) => {
    const url = new URL(`${base}${req.path}`);
    req.query.forEach((v, k) => url.searchParams.set(k, v));
    url.searchParams.set('page', String(p));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < lastPage) links.push(link(page + 1, 'next'), link(lastPage, 'last'));
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
  return { slice, headers: links.length > 0 ? { link: links.join(', ') } : {} };
}

/** Splits a search query into terms, keeping quoted phrases (`label:"good first issue"`) whole. */
function searchTerms(q: string): string[] {
  return (q.match(/(?:[^\s"]+|"[^"]*")+/g) ?? []).map((t) => t.replace(/"/g, ''));
}

/**
 * A fake of GitHub's REST API for the GitHub connector: Bearer auth with "Bad credentials" 401s,
 * "Not Found" 404s, Link-header pagination, 422 "Validation Failed" errors, both of GitHub's
 * rate-limit answers, and the repositories, issues, comments, pull requests, issue search and
 * repository contents endpoints with GitHub's response shapes.
 */
export async function startFakeGithub(seed: FakeGithubSeed = { owner: 'octo-org', repo: 'hello', issues: 5 }, behaviour: FakeBehaviour = {}): Promise<FakeServer & { issues: Issue[]; repos: Repo[] }> {
  let base = '';
  let nextCommentId = 1000;
  const issues: Issue[] = Array.from({ length: seed.issues }, (_, i) => ({
    number: i + 1,
    title: `Issue ${i + 1}`,
    body: `Body of issue ${i + 1}`,
    state: i % 4 === 3 ? 'closed' : 'open',
    state_reason: i % 4 === 3 ? 'completed' : null,
    labels: i % 2 === 0 ? [{ name: 'bug' }] : [],
    assignees: [],
    author: GITHUB_FAKE_LOGIN,
    comments: [],
    created_at: day(i),
    updated_at: day(i),
    closed_at: i % 4 === 3 ? day(i + 1) : null,
  }));
  for (let i = 0; i < (seed.pulls ?? 0); i++) {
    const number = seed.issues + i + 1;
    const merged = i % 3 === 2;
    issues.push({
      number,
      title: `Pull request ${number}`,
      body: `Changes of pull request ${number}`,
      state: merged ? 'closed' : 'open',
      state_reason: null,
      labels: [],
      assignees: [],
      author: 'hubot',
      comments: [],
      created_at: day(number),
      updated_at: day(number),
      closed_at: merged ? day(number + 1) : null,
      pull: {
        head_ref: `feature-${number}`,
        head_sha: sha(`head-${number}`),
        base_ref: 'main',
        draft: i % 2 === 1,
        merged_at: merged ? day(number + 1) : null,
        requested_reviewers: [GITHUB_FAKE_LOGIN],
        commits: 2,
        additions: 10 * (i + 1),
        deletions: i,
        changed_files: 1 + i,
      },
    });
  }
  const repos: Repo[] = [
    { owner: seed.owner, name: seed.repo, description: 'The seeded repository', private: false, fork: false, archived: false, language: 'TypeScript', topics: ['demo'], stars: 42, affiliation: 'organization_member', created_at: day(0), pushed_at: day(200) },
    ...Array.from({ length: seed.extraRepos ?? 0 }, (_, i): Repo => ({
      owner: GITHUB_FAKE_LOGIN,
      name: `project-${String(i + 1).padStart(2, '0')}`,
      description: null,
      private: i % 2 === 1,
      fork: false,
      archived: false,
      language: 'Go',
      topics: [],
      stars: i,
      affiliation: 'owner',
      created_at: day(i + 1),
      pushed_at: day(100 + i),
    })),
  ];
  const files = new Map(Object.entries(seed.files ?? {}).map(([path, content]) => [path.replace(/^\/+/, ''), Buffer.from(content)]));

  const fullName = (r: Repo) => `${r.owner}/${r.name}`;
  const findRepo = (owner: string, name: string) => repos.find((r) => r.owner.toLowerCase() === owner.toLowerCase() && r.name.toLowerCase() === name.toLowerCase());
  const isSeedRepo = (owner: string, name: string) => findRepo(owner, name) === repos[0];
  const renderUser = (login: string) => ({ login, id: login.length, type: 'User', html_url: `https://github.com/${login}` });

  const renderRepo = (r: Repo) => ({
    id: repos.indexOf(r) + 1,
    name: r.name,
    full_name: fullName(r),
    owner: renderUser(r.owner),
    private: r.private,
    visibility: r.private ? 'private' : 'public',
    html_url: `https://github.com/${fullName(r)}`,
    url: `${base}/repos/${fullName(r)}`,
    description: r.description,
    fork: r.fork,
    archived: r.archived,
    language: r.language,
    topics: r.topics,
    default_branch: 'main',
    stargazers_count: r.stars,
    watchers_count: r.stars,
    forks_count: 0,
    open_issues_count: r === repos[0] ? issues.filter((i) => i.state === 'open').length : 0,
    created_at: r.created_at,
    updated_at: r.pushed_at,
    pushed_at: r.pushed_at,
    permissions: { admin: r.affiliation === 'owner', maintain: r.affiliation === 'owner', push: true, triage: true, pull: true },
  });

  const renderIssue = (issue: Issue) => ({
    id: 10_000 + issue.number,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    state_reason: issue.state_reason,
    labels: issue.labels,
    assignees: issue.assignees,
    assignee: issue.assignees[0] ?? null,
    user: renderUser(issue.author),
    html_url: `https://github.com/${seed.owner}/${seed.repo}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`,
    url: `${base}/repos/${seed.owner}/${seed.repo}/issues/${issue.number}`,
    repository_url: `${base}/repos/${seed.owner}/${seed.repo}`,
    comments: issue.comments.length,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    ...(issue.pull ? { pull_request: { url: `${base}/repos/${seed.owner}/${seed.repo}/pulls/${issue.number}`, html_url: `https://github.com/${seed.owner}/${seed.repo}/pull/${issue.number}`, merged_at: issue.pull.merged_at } } : {}),
  });

  /** The pull request as GET /pulls lists it; the single-PR endpoint adds the merge and diff counts. */
  const renderPull = (issue: Issue, detailed: boolean) => {
    const pull = issue.pull!;
    const repo = renderRepo(repos[0]!);
    return {
      id: 20_000 + issue.number,
      number: issue.number,
      state: issue.state,
      locked: false,
      title: issue.title,
      body: issue.body,
      draft: pull.draft,
      user: renderUser(issue.author),
      html_url: `https://github.com/${seed.owner}/${seed.repo}/pull/${issue.number}`,
      url: `${base}/repos/${seed.owner}/${seed.repo}/pulls/${issue.number}`,
      labels: issue.labels,
      assignees: issue.assignees,
      requested_reviewers: pull.requested_reviewers.map(renderUser),
      head: { label: `${seed.owner}:${pull.head_ref}`, ref: pull.head_ref, sha: pull.head_sha, repo },
      base: { label: `${seed.owner}:${pull.base_ref}`, ref: pull.base_ref, sha: sha(`base-${issue.number}`), repo },
      created_at: issue.created_at,
      updated_at: issue.updated_at,
      closed_at: issue.closed_at,
      merged_at: pull.merged_at,
      merge_commit_sha: pull.merged_at ? sha(`merge-${issue.number}`) : null,
      ...(detailed
        ? {
            merged: pull.merged_at !== null,
            mergeable: issue.state === 'open' ? true : null,
            mergeable_state: issue.state === 'open' ? 'clean' : 'unknown',
            merged_by: pull.merged_at ? renderUser(GITHUB_FAKE_LOGIN) : null,
            comments: issue.comments.length,
            review_comments: 0,
            commits: pull.commits,
            additions: pull.additions,
            deletions: pull.deletions,
            changed_files: pull.changed_files,
          }
        : {}),
    };
  };

  const renderComment = (c: Issue['comments'][number], issue: Issue) => ({
    id: c.id,
    body: c.body,
    user: renderUser(c.user),
    html_url: `https://github.com/${seed.owner}/${seed.repo}/issues/${issue.number}#issuecomment-${c.id}`,
    issue_url: `${base}/repos/${seed.owner}/${seed.repo}/issues/${issue.number}`,
    created_at: c.created_at,
    updated_at: c.created_at,
  });

  const contentEntry = (path: string, type: 'file' | 'dir') => {
    const name = path.split('/').at(-1) ?? path;
    const data = files.get(path);
    return {
      type,
      name,
      path,
      sha: sha(type === 'file' ? (data ?? Buffer.alloc(0)).toString('base64') : `tree:${path}`),
      size: type === 'file' ? (data?.length ?? 0) : 0,
      url: `${base}/repos/${seed.owner}/${seed.repo}/contents/${path}?ref=main`,
      html_url: `https://github.com/${seed.owner}/${seed.repo}/${type === 'file' ? 'blob' : 'tree'}/main/${path}`,
      download_url: type === 'file' ? `https://raw.githubusercontent.com/${seed.owner}/${seed.repo}/main/${path}` : null,
    };
  };

  const routes = new FakeRoutes()
    .route('GET', '/user/repos', (req) => {
      // GitHub refuses `type` together with `visibility` or `affiliation`.
      if (req.query.has('type') && (req.query.has('visibility') || req.query.has('affiliation'))) {
        return validationFailed([{ resource: 'Repository', field: 'type', code: 'invalid', message: 'type cannot be used together with visibility or affiliation' }]);
      }
      const visibility = req.query.get('visibility') ?? 'all';
      const affiliation = (req.query.get('affiliation') ?? 'owner,collaborator,organization_member').split(',');
      const sort = req.query.get('sort') ?? 'full_name';
      const direction = req.query.get('direction') ?? (sort === 'full_name' ? 'asc' : 'desc');
      const key = (r: Repo) => (sort === 'full_name' ? fullName(r).toLowerCase() : sort === 'created' ? r.created_at : r.pushed_at);
      const list = repos
        .filter((r) => visibility === 'all' || (visibility === 'private') === r.private)
        .filter((r) => affiliation.includes(r.affiliation))
        .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (direction === 'asc' ? 1 : -1));
      const { slice, headers } = paginate(base, req, list);
      return { headers, body: slice.map(renderRepo) };
    })
    .route('GET', '/repos/:owner/:repo', (req) => {
      const repo = findRepo(req.params.owner!, req.params.repo!);
      return repo ? { body: renderRepo(repo) } : notFound;
    })
    .route('GET', '/repos/:owner/:repo/issues', (req) => {
      if (!isSeedRepo(req.params.owner!, req.params.repo!)) return notFound;
      const state = req.query.get('state') ?? 'open';
      const labels = (req.query.get('labels') ?? '').split(',').filter(Boolean);
      const matching = issues
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => labels.every((l) => i.labels.some((x) => x.name === l)))
        .sort((a, b) => b.number - a.number);
      const { slice, headers } = paginate(base, req, matching);
      return { headers, body: slice.map(renderIssue) };
    })
    .route('GET', '/repos/:owner/:repo/issues/:number', (req) => {
      const issue = isSeedRepo(req.params.owner!, req.params.repo!) ? issues.find((i) => i.number === Number(req.params.number)) : undefined;
      return issue ? { body: renderIssue(issue) } : notFound;
    })
    .route('POST', '/repos/:owner/:repo/issues', (req) => {
      if (!isSeedRepo(req.params.owner!, req.params.repo!)) return notFound;
      const body = req.json as { title?: string; body?: string; labels?: string[]; assignees?: string[] } | undefined;
      if (!body?.title?.trim()) return validationFailed([{ resource: 'Issue', field: 'title', code: 'missing_field' }]);
      const now = new Date().toISOString();
      const issue: Issue = {
        number: issues.length + 1,
        title: body.title,
        body: body.body ?? null,
        state: 'open',
        state_reason: null,
        labels: (body.labels ?? []).map((name) => ({ name })),
        assignees: (body.assignees ?? []).map((login) => ({ login })),
        author: GITHUB_FAKE_LOGIN,
        comments: [],
        created_at: now,
        updated_at: now,
        closed_at: null,
      };
      issues.push(issue);
      return { status: 201, body: renderIssue(issue) };
    })
    .route('PATCH', '/repos/:owner/:repo/issues/:number', (req) => {
      const issue = isSeedRepo(req.params.owner!, req.params.repo!) ? issues.find((i) => i.number === Number(req.params.number)) : undefined;
      if (!issue) return notFound;
      const body = (req.json ?? {}) as { title?: unknown; body?: unknown; state?: unknown; state_reason?: unknown; labels?: unknown; assignees?: unknown };
      if (body.title !== undefined && (typeof body.title !== 'string' || !body.title.trim())) return validationFailed([{ resource: 'Issue', field: 'title', code: 'missing_field' }]);
      if (body.state !== undefined && body.state !== 'open' && body.state !== 'closed') return validationFailed([{ resource: 'Issue', field: 'state', code: 'invalid' }]);
      if (body.state_reason !== undefined && body.state_reason !== null && !['completed', 'not_planned', 'reopened'].includes(String(body.state_reason))) {
        return validationFailed([{ resource: 'Issue', field: 'state_reason', code: 'invalid' }]);
      }
      if (typeof body.title === 'string') issue.title = body.title;
      if (body.body !== undefined) issue.body = body.body === null ? null : String(body.body);
      if (Array.isArray(body.labels)) issue.labels = body.labels.map((name) => ({ name: String(name) }));
      if (Array.isArray(body.assignees)) issue.assignees = body.assignees.map((login) => ({ login: String(login) }));
      const now = new Date().toISOString();
      if (body.state === 'closed' && issue.state === 'open') {
        issue.state = 'closed';
        issue.closed_at = now;
        issue.state_reason = typeof body.state_reason === 'string' ? body.state_reason : 'completed';
      } else if (body.state === 'open' && issue.state === 'closed') {
        issue.state = 'open';
        issue.closed_at = null;
        issue.state_reason = 'reopened';
      } else if (typeof body.state_reason === 'string') {
        issue.state_reason = body.state_reason;
      }
      issue.updated_at = now;
      return { body: renderIssue(issue) };
    })
    .route('POST', '/repos/:owner/:repo/issues/:number/comments', (req) => {
      const issue = isSeedRepo(req.params.owner!, req.params.repo!) ? issues.find((i) => i.number === Number(req.params.number)) : undefined;
      if (!issue) return notFound;
      const body = (req.json as { body?: unknown } | undefined)?.body;
      if (typeof body !== 'string' || !body.trim()) return validationFailed([{ resource: 'IssueComment', field: 'body', code: 'missing_field' }]);
      const comment = { id: nextCommentId++, body, user: GITHUB_FAKE_LOGIN, created_at: new Date().toISOString() };
      issue.comments.push(comment);
      return { status: 201, body: renderComment(comment, issue) };
    })
    .route('GET', '/repos/:owner/:repo/pulls', (req) => {
      if (!isSeedRepo(req.params.owner!, req.params.repo!)) return notFound;
      const state = req.query.get('state') ?? 'open';
      const head = req.query.get('head');
      const baseRef = req.query.get('base');
      const direction = req.query.get('direction') ?? 'desc';
      const sort = req.query.get('sort') ?? 'created';
      const key = (i: Issue) => (sort === 'updated' ? i.updated_at : i.created_at);
      const pulls = issues
        .filter((i) => i.pull)
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => !head || head === `${seed.owner}:${i.pull!.head_ref}`)
        .filter((i) => !baseRef || baseRef === i.pull!.base_ref)
        .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.number - b.number) * (direction === 'asc' ? 1 : -1));
      const { slice, headers } = paginate(base, req, pulls);
      return { headers, body: slice.map((i) => renderPull(i, false)) };
    })
    .route('GET', '/repos/:owner/:repo/pulls/:number', (req) => {
      const issue = isSeedRepo(req.params.owner!, req.params.repo!) ? issues.find((i) => i.number === Number(req.params.number) && i.pull) : undefined;
      return issue ? { body: renderPull(issue, true) } : notFound;
    })
    .route('GET', '/search/issues', (req) => {
      const q = req.query.get('q');
      if (!q) return validationFailed([{ resource: 'Search', field: 'q', code: 'missing' }]);
      const perPage = Math.min(Number(req.query.get('per_page') ?? 30), 100);
      const page = Number(req.query.get('page') ?? 1);
      // GitHub serves only the first 1000 search results.
      if ((page - 1) * perPage >= 1000) return validationFailed([{ message: 'Only the first 1000 search results are available', resource: 'Search', field: 'q', code: 'invalid' }]);
      let matching = [...issues];
      for (const term of searchTerms(q)) {
        const [qualifier, value] = term.includes(':') ? [term.slice(0, term.indexOf(':')).toLowerCase(), term.slice(term.indexOf(':') + 1)] : [undefined, term];
        if (qualifier === 'repo') {
          const [owner, name] = value.split('/');
          if (!owner || !name || !findRepo(owner, name)) {
            return validationFailed([{ message: 'The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.', resource: 'Search', field: 'q', code: 'invalid' }]);
          }
          if (!isSeedRepo(owner, name)) matching = [];
        } else if ((qualifier === 'is' || qualifier === 'type') && value === 'issue') matching = matching.filter((i) => !i.pull);
        else if ((qualifier === 'is' || qualifier === 'type') && (value === 'pr' || value === 'pull-request')) matching = matching.filter((i) => i.pull);
        else if ((qualifier === 'is' || qualifier === 'state') && (value === 'open' || value === 'closed')) matching = matching.filter((i) => i.state === value);
        else if (qualifier === 'label') matching = matching.filter((i) => i.labels.some((l) => l.name.toLowerCase() === value.toLowerCase()));
        else if (qualifier === 'author') matching = matching.filter((i) => i.author === value);
        else if (qualifier === 'assignee') matching = matching.filter((i) => i.assignees.some((a) => a.login === value));
        else {
          const needle = term.toLowerCase();
          matching = matching.filter((i) => i.title.toLowerCase().includes(needle) || (i.body ?? '').toLowerCase().includes(needle));
        }
      }
      const sort = req.query.get('sort');
      const order = req.query.get('order') ?? 'desc';
      if (sort === 'created' || sort === 'updated') {
        const key = (i: Issue) => (sort === 'created' ? i.created_at : i.updated_at);
        matching.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.number - b.number) * (order === 'asc' ? 1 : -1));
      } else if (sort === 'comments') {
        matching.sort((a, b) => (a.comments.length - b.comments.length) * (order === 'asc' ? 1 : -1));
      } else {
        matching.sort((a, b) => b.number - a.number);
      }
      const { slice, headers } = paginate(base, req, matching);
      return { headers, body: { total_count: matching.length, incomplete_results: false, items: slice.map((i) => ({ ...renderIssue(i), score: 1 })) } };
    });

  const contents = (req: FakeRequest): FakeReply => {
    if (!isSeedRepo(req.params.owner!, req.params.repo!)) return notFound;
    const ref = req.query.get('ref');
    if (ref && ref !== 'main' && ref !== sha('main')) return { status: 404, body: { message: `No commit found for the ref ${ref}`, documentation_url: DOCS } };
    const path = (req.params.path ?? '').replace(/^\/+|\/+$/g, '');
    const data = files.get(path);
    if (data) {
      if (data.length > 1024 * 1024) {
        return { status: 403, body: { message: 'This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, but you can use the Git Data API to request blobs up to 100 MB in size.', errors: [{ resource: 'Blob', field: 'data', code: 'too_large' }], documentation_url: DOCS } };
      }
      // GitHub wraps the base64 content at 60 characters per line.
      const content = (data.toString('base64').match(/.{1,60}/g) ?? []).join('\n');
      return { body: { ...contentEntry(path, 'file'), encoding: 'base64', content: content ? `${content}\n` : '' } };
    }
    const prefix = path ? `${path}/` : '';
    const children = new Map<string, 'file' | 'dir'>();
    for (const filePath of files.keys()) {
      if (!filePath.startsWith(prefix)) continue;
      const rest = filePath.slice(prefix.length);
      const slash = rest.indexOf('/');
      children.set(prefix + (slash === -1 ? rest : rest.slice(0, slash)), slash === -1 ? 'file' : 'dir');
    }
    if (children.size === 0 && path) return notFound;
    const entries = [...children.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([p, type]) => contentEntry(p, type));
    return { body: entries };
  };
  routes.route('GET', '/repos/:owner/:repo/contents', contents).route('GET', '/repos/:owner/:repo/contents/*path', contents);

  const server = await startFakeServer({
    ...behaviour,
    routes,
    notFound,
    before: (req): FakeReply | undefined => {
      const token = bearerToken(req);
      if (!token || !Object.values(GITHUB_FAKE_TOKENS).includes(token as never)) {
        return { status: 401, body: { message: 'Bad credentials', documentation_url: DOCS } };
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
  return Object.assign(server, { issues, repos });
}
