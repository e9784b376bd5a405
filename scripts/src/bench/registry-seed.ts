import { Client } from 'pg';
import type Redis from 'ioredis';
import { percentile } from './load';

/** connector-registry's schema: its migrations create it when the service starts. */
const SCHEMA = 'connector_registry';

/** What the benchmark puts in an organization before measuring its lists. */
export interface SeedPlan {
  /** Users inserted with SQL, oldest first. */
  sqlUsers: number;
  /** Users that share credentials: user n belongs to company n mod companies. */
  companies: number;
}

export interface SeededConnections {
  total: number;
  /** e.g. "2,000 INDIVIDUAL github" */
  parts: string[];
}

/** A stand-in for a sealed credential: the lists never open it, and the rows are deleted at the end. */
const NOT_A_SECRET = 'bench:not-a-sealed-value';

export const benchOriginUserId = (n: number) => `bench-user-${n}`;
export const benchCompanyId = (n: number) => `bench-company-${n}`;

/** A client on the registry's schema, so the SQL below reads like the service's own tables. */
export async function connectRegistryDb(databaseUrl: string): Promise<Client> {
  const client = new Client({ connectionString: databaseUrl, options: `-c search_path=${SCHEMA}` });
  await client.connect();
  return client;
}

/**
 * Registered users 1..sqlUsers in one INSERT, created a second apart going back in time (user 1 oldest),
 * as if they had signed up over the past days. Columns as the service writes them.
 */
export async function seedRegisteredUsers(db: Client, organizationId: string, plan: SeedPlan): Promise<void> {
  await db.query(
    `INSERT INTO registered_users (id, organization_id, environment, origin_user_id, origin_user_name, user_type,
                                   origin_company_id, origin_company_name, custom_groupings, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'production', 'bench-user-' || n, 'Bench user ' || n, 'HUMAN',
            'bench-company-' || (n % $3), 'Bench company ' || (n % $3), jsonb_build_object('team', 'team-' || (n % 7)),
            now() - make_interval(secs => ($2 - n + 3600)), now() - make_interval(secs => ($2 - n + 3600))
     FROM generate_series(1, $2::int) AS n`,
    [organizationId, plan.sqlUsers, plan.companies],
  );
}

/** Connectors users connect one by one, in the order they are handed out (the first n to every user). */
export const INDIVIDUAL_CONNECTORS = ['github', 'slack', 'linear', 'gmail', 'google-calendar', 'hubspot', 'zendesk', 'postgresql', 'http', 'notion'];

/**
 * Connections of the kinds the lists join: `perUser` INDIVIDUAL ones for every user (github, then slack,
 * ...; every 10th user's slack one in ERROR), SHARED ones for a fifth of the companies (jira), and one
 * ORGANIZATION credential (notion), which every user's `authenticated_connectors` then includes.
 */
export async function seedConnections(db: Client, organizationId: string, options: { perUser: number; companies: number }): Promise<SeededConnections> {
  const parts: string[] = [];
  let total = 0;
  const n = (x: number) => x.toLocaleString('en-US');
  for (const slug of INDIVIDUAL_CONNECTORS.slice(0, options.perUser)) {
    const errorEvery = slug === 'slack' ? 10 : 0;
    const { rowCount } = await db.query(
      `INSERT INTO connections (id, organization_id, environment, connector_slug, auth_scope, registered_user_id, subject_key,
                                auth_type, credential_sealed, status, status_reason, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'production', $2, 'INDIVIDUAL', id, id::text, 'oauth2', $3,
              CASE WHEN rn % NULLIF($4::int, 0) = 0 THEN 'ERROR'::"ConnectionStatus" ELSE 'ACTIVE'::"ConnectionStatus" END,
              CASE WHEN rn % NULLIF($4::int, 0) = 0 THEN 'bench: refresh token revoked' END,
              created_at + interval '1 minute', created_at + interval '1 minute'
       FROM (SELECT id, created_at, row_number() OVER (ORDER BY created_at, id) AS rn
             FROM registered_users WHERE organization_id = $1::uuid AND environment = 'production') AS u`,
      [organizationId, slug, NOT_A_SECRET, errorEvery],
    );
    total += rowCount ?? 0;
    parts.push(`${n(rowCount ?? 0)} INDIVIDUAL ${slug}${errorEvery > 0 ? ` (every ${errorEvery}th in ERROR)` : ''}`);
  }
  const shared = await db.query(
    `INSERT INTO connections (id, organization_id, environment, connector_slug, auth_scope, company_id, subject_key,
                              auth_type, credential_sealed, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'production', 'jira', 'SHARED', 'bench-company-' || c, 'bench-company-' || c,
            'api_key', $2, now() - make_interval(mins => c), now() - make_interval(mins => c)
     FROM generate_series(0, $3::int - 1) AS c WHERE c % 5 = 0`,
    [organizationId, NOT_A_SECRET, options.companies],
  );
  total += shared.rowCount ?? 0;
  parts.push(`${n(shared.rowCount ?? 0)} SHARED jira`);
  await db.query(
    `INSERT INTO connections (id, organization_id, environment, connector_slug, auth_scope, subject_key, auth_type,
                              credential_sealed, created_at, updated_at)
     VALUES (gen_random_uuid(), $1::uuid, 'production', 'notion', 'ORGANIZATION', 'organization', 'bearer_token', $2, now(), now())`,
    [organizationId, NOT_A_SECRET],
  );
  total += 1;
  parts.push('1 ORGANIZATION notion');
  return { total, parts };
}

/** Fresh statistics, so the planner sees 10,000 rows rather than the empty tables of a new database. */
export async function analyzeSeededTables(db: Client): Promise<void> {
  await db.query('ANALYZE registered_users');
  await db.query('ANALYZE connections');
}

/**
 * Everything the organization has in the registry's schema. access-keys-and-audit has no way to delete
 * an organization, so the organization itself, its keys and its audit events stay in the bench database.
 */
export async function deleteOrganizationRows(db: Client, organizationId: string): Promise<void> {
  for (const table of ['connections', 'link_tokens', 'registered_users', 'tool_packs', 'custom_connectors', 'application_credentials']) {
    await db.query(`DELETE FROM ${table} WHERE organization_id = $1::uuid`, [organizationId]);
  }
}

/**
 * Waits until the audit events of the writes so far have left: the registry's outbox is empty and the
 * audit queue has nothing waiting or running. Otherwise access-keys-and-audit would still be storing
 * them while the lists are measured. False when that takes longer than `timeoutMs`.
 */
export async function waitForAuditBacklog(db: Client, redis: Redis, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM event_outbox');
    // QUEUE_NAMES.auditEvents of @patchbay/queues under BullMQ's default prefix.
    const waiting = await redis.llen('bull:patchbay-audit-events:wait');
    const active = await redis.llen('bull:patchbay-audit-events:active');
    if (Number(rows[0]?.n ?? 0) === 0 && waiting === 0 && active === 0) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

export async function postgresVersion(db: Client): Promise<string> {
  const { rows } = await db.query<{ server_version: string }>('SHOW server_version');
  return rows[0]?.server_version ?? 'unknown';
}

export interface ApiCreates {
  created: number;
  seconds: number;
  /** Per-request latency, ms. */
  p50Ms: number;
  p99Ms: number;
}

/**
 * Users firstUser..firstUser+count-1 through POST /api/v1/registered-users/, `concurrency` at a time,
 * as an application onboarding its users would: each answers 201 (a 200 would mean the user existed).
 */
export async function createUsersThroughApi(
  baseUrl: string,
  masterKey: string,
  options: { firstUser: number; count: number; companies: number; concurrency: number },
): Promise<ApiCreates> {
  const latencies: number[] = [];
  let next = options.firstUser;
  const last = options.firstUser + options.count - 1;
  const worker = async () => {
    while (next <= last) {
      const n = next++;
      const body = {
        origin_user_id: benchOriginUserId(n),
        origin_user_name: `Bench user ${n}`,
        shared_credential_group: { origin_company_id: benchCompanyId(n % options.companies), origin_company_name: `Bench company ${n % options.companies}`, custom_groupings: { team: `team-${n % 7}` } },
      };
      const start = performance.now();
      const res = await fetch(`${baseUrl}/api/v1/registered-users/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${masterKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      latencies.push(performance.now() - start);
      if (res.status !== 201) throw new Error(`POST /api/v1/registered-users/ answered ${res.status}, expected 201:\n${text.slice(0, 500)}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, worker));
  const seconds = (performance.now() - start) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return { created: latencies.length, seconds, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
}
