import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { seedConnections, seedRegisteredUsers } from './registry-seed';

/** How much `pnpm bench console` puts in its organization (the issue's "large organization"). */
export interface ConsoleSeedPlan {
  gatewayKeys: number;
  toolCalls: number;
  usageRecords: number;
  events: number;
  registeredUsers: number;
  linkedAccounts: number;
}

export const DEFAULT_SEED: ConsoleSeedPlan = { gatewayKeys: 100_000, toolCalls: 1_000_000, usageRecords: 1_000_000, events: 100_000, registeredUsers: 5_000, linkedAccounts: 10 };

/** What the bench remembers in its own database, so --keep can measure the same organization again. */
const STATE = `CREATE SCHEMA IF NOT EXISTS bench_console;
  CREATE TABLE IF NOT EXISTS bench_console.seeded (organization_id uuid PRIMARY KEY, owner_email text NOT NULL, plan jsonb NOT NULL, seeded_at timestamptz NOT NULL DEFAULT now())`;

export interface SeededOrganization {
  organizationId: string;
  /** Set once the owner signed up (a rerun signs in with it). */
  ownerEmail: string | null;
  plan: ConsoleSeedPlan;
}

/** The linked account holding most events: md5('bench-account-' || organization || 1) as a UUID, as seeded below. */
export function bigAccountId(organizationId: string): string {
  const hex = createHash('md5').update(`bench-account-${organizationId}1`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export async function seededOrganization(db: Client): Promise<SeededOrganization | null> {
  await db.query(STATE);
  const { rows } = await db.query<{ organization_id: string; owner_email: string; plan: ConsoleSeedPlan }>('SELECT organization_id, owner_email, plan FROM bench_console.seeded ORDER BY seeded_at DESC LIMIT 1');
  const row = rows[0];
  return row ? { organizationId: row.organization_id, ownerEmail: row.owner_email, plan: row.plan } : null;
}

export async function rememberSeed(db: Client, organizationId: string, ownerEmail: string, plan: ConsoleSeedPlan): Promise<void> {
  await db.query(STATE);
  await db.query('INSERT INTO bench_console.seeded (organization_id, owner_email, plan) VALUES ($1, $2, $3)', [organizationId, ownerEmail, JSON.stringify(plan)]);
}

/**
 * A value shaped like @patchbay/secrets' sealed format (v1.<key id>.<iv>.<tag>.<ciphertext>, base64url) for
 * row `seed`: lists never open it, and a page that tried would get the service's "could not be decrypted".
 */
function sealedLooking(seed: string): string {
  const b64url = (bytes: string) => `translate(rtrim(encode(${bytes}, 'base64'), '='), E'+/\\n', '-_')`;
  return `'v1.bench.' || ${b64url(`substr(sha256(convert_to(${seed} || 'iv', 'UTF8')), 1, 12)`)} || '.' || ${b64url(`substr(sha256(convert_to(${seed} || 'tag', 'UTF8')), 1, 16)`)} || '.' || ${b64url(`sha256(convert_to(${seed} || 'ct', 'UTF8')) || sha256(convert_to(${seed} || 'ct2', 'UTF8'))`)}`;
}

/** Bulk INSERT … SELECT generate_series per table: the rows the services would have written, minutes instead of hours through the APIs. */
export async function seedConsoleOrganization(db: Client, organizationId: string, plan: ConsoleSeedPlan, say: (message: string) => void): Promise<void> {
  const timed = async (what: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    say(`seeded ${what} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  // Bulk loads: the WAL flush per statement is what matters, not per row; these rows can be written again.
  await db.query('SET synchronous_commit = off');

  await timed(`${plan.registeredUsers.toLocaleString('en-US')} registered users and their connections`, async () => {
    await db.query('SET search_path = connector_registry');
    await seedRegisteredUsers(db, organizationId, { sqlUsers: plan.registeredUsers, companies: Math.max(1, Math.floor(plan.registeredUsers / 10)) });
    await seedConnections(db, organizationId, { perUser: 2, companies: Math.max(1, Math.floor(plan.registeredUsers / 10)) });
    await db.query(`UPDATE connections SET credential_sealed = ${sealedLooking('id::text')} WHERE organization_id = $1::uuid`, [organizationId]);
  });

  await timed(`${plan.gatewayKeys.toLocaleString('en-US')} gateway keys`, async () => {
    await db.query('SET search_path = model_gateway');
    await db.query(
      `INSERT INTO projects (id, organization_id, environment, name, budget_micros, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'production', 'Project ' || p, CASE WHEN p % 3 = 0 THEN 500000000 END, now() - make_interval(days => 400 - p), now()
       FROM generate_series(1, 50) AS p`,
      [organizationId],
    );
    // The raw key is thrown away as the service does: only its SHA-256 and its label (first 9 and last 4 characters) are kept.
    await db.query(
      `CREATE TEMP TABLE bench_keys ON COMMIT PRESERVE ROWS AS
       SELECT n, raw, encode(sha256(convert_to(raw, 'UTF8')), 'hex') AS hash
       FROM (SELECT n, 'pbgw_' || translate(rtrim(encode(sha256(convert_to('console-bench-' || $1 || '-' || n, 'UTF8')), 'base64'), '='), '+/', '-_') AS raw
             FROM generate_series(1, $2::int) AS n) AS k`,
      [organizationId, plan.gatewayKeys],
    );
    await db.query('CREATE UNIQUE INDEX ON bench_keys (n)');
    await db.query(
      `INSERT INTO api_keys (hash, organization_id, environment, name, label, limit_micros, limit_reset, allowed_models, allowed_models_set,
                             routing_policy_id, disabled, creator_user_id, project_id, customer_id, rate_limit_rpm, expires_at, created_at, updated_at)
       SELECT k.hash, $1::uuid, 'production', 'Key ' || k.n || CASE WHEN k.n % 4 = 0 THEN ' (staging)' ELSE ' (prod)' END,
              left(k.raw, 9) || '...' || right(k.raw, 4),
              CASE WHEN k.n % 2 = 0 THEN (10 + k.n % 90) * 1000000::bigint END, CASE WHEN k.n % 2 = 0 THEN 'monthly'::"LimitReset" END,
              CASE WHEN k.n % 5 = 0 THEN ARRAY['openai/gpt-4o-mini', 'anthropic/*'] ELSE ARRAY[]::text[] END, k.n % 5 = 0,
              NULL, k.n % 50 = 0, 'bench', p.id, NULL, CASE WHEN k.n % 7 = 0 THEN 600 END,
              CASE WHEN k.n % 3 = 0 THEN now() + make_interval(days => k.n % 365) END,
              now() - make_interval(mins => ($2::int - k.n) * 5), now() - make_interval(mins => ($2::int - k.n) * 5)
       FROM bench_keys k
       JOIN (SELECT id, row_number() OVER (ORDER BY created_at, id) - 1 AS i FROM projects WHERE organization_id = $1::uuid) AS p ON p.i = k.n % 50`,
      [organizationId, plan.gatewayKeys],
    );
  });

  await timed(`${plan.usageRecords.toLocaleString('en-US')} gateway usage records`, async () => {
    // Spread over the last 45 days, a few seconds apart, on the keys above; 3% failed; costs in micro-USD.
    await db.query(
      `INSERT INTO usage_records (id, organization_id, environment, key_hash, project_id, customer_id, surface, model, vendor, outcome, error_code, status,
                                  stream, byok, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, usage_estimated,
                                  cost_micros, tags, latency_ms, ttft_ms, created_at, day)
       SELECT gen_random_uuid(), $1::uuid, 'production', k.hash, NULL, NULL,
              (ARRAY['openai-chat', 'native-responses', 'anthropic-messages', 'openai-responses', 'openai-embeddings'])[1 + g % 5],
              m.model, m.vendor,
              CASE WHEN g % 33 = 0 THEN 'failed' ELSE 'finished' END, CASE WHEN g % 33 = 0 THEN 'upstream_error' END, CASE WHEN g % 33 = 0 THEN 502 ELSE 200 END,
              g % 2 = 0, false, 200 + g % 1800, (g % 4) * 50, 0, CASE WHEN g % 33 = 0 THEN 0 ELSE 50 + g % 700 END, 0, false,
              CASE WHEN g % 33 = 0 THEN 0 ELSE round((200 + g % 1800) * m.in_price + (50 + g % 700) * m.out_price)::bigint END,
              CASE WHEN g % 10 = 0 THEN '[{"key": "team", "value": "search"}]'::jsonb ELSE '[]'::jsonb END,
              300 + g % 2500, CASE WHEN g % 2 = 0 THEN 150 + g % 400 END, t.at, (t.at AT TIME ZONE 'UTC')::date
       FROM generate_series(1, $2::int) AS g
       CROSS JOIN LATERAL (SELECT now() - make_interval(secs => (g::double precision * 45 * 86400) / $2::int) AS at) AS t
       JOIN bench_keys k ON k.n = 1 + (g::bigint * 7919) % $3::int
       JOIN (VALUES (0, 'openai/gpt-4o-mini', 'openai', 0.15, 0.6), (1, 'openai/gpt-4o', 'openai', 2.5, 10.0), (2, 'anthropic/claude-sonnet-4-5', 'anthropic', 3.0, 15.0),
                    (3, 'anthropic/claude-haiku-4-5', 'anthropic', 1.0, 5.0), (4, 'google/gemini-2.5-flash', 'google', 0.3, 2.5)) AS m(i, model, vendor, in_price, out_price)
         ON m.i = g % 5`,
      [organizationId, plan.usageRecords, plan.gatewayKeys],
    );
    await db.query('DROP TABLE bench_keys');
  });

  await timed(`${plan.toolCalls.toLocaleString('en-US')} tool-call records`, async () => {
    await db.query('SET search_path = mcp_runtime');
    // On the registered users seeded above, 20 tool packs, over the last 45 days; 3% error, 1% blocked; one credit each.
    await db.query(
      `CREATE TEMP TABLE bench_users AS
       SELECT id, row_number() OVER (ORDER BY created_at, id) - 1 AS i FROM connector_registry.registered_users WHERE organization_id = $1::uuid AND environment = 'production'`,
      [organizationId],
    );
    const users = (await db.query<{ n: string }>('SELECT count(*) AS n FROM bench_users')).rows[0]?.n ?? '0';
    await db.query(
      `INSERT INTO tool_call_records (id, organization_id, environment, tool_pack_id, registered_user_id, access_key_id, tool_name, connector_slug, status, error_code,
                                      duration_ms, credits, billing_cycle, overage, meter_epoch, detections, occurred_at)
       SELECT gen_random_uuid(), $1::uuid, 'production', pk.id, u.id, $4::uuid, t.tool, t.slug,
              (CASE WHEN g % 100 = 0 THEN 'blocked' WHEN g % 33 = 0 THEN 'error' ELSE 'success' END)::"ToolCallStatus",
              CASE WHEN g % 100 = 0 THEN 'security_rule_blocked' WHEN g % 33 = 0 THEN 'tool_error' END,
              40 + g % 900, 1, to_char(o.at AT TIME ZONE 'UTC', 'YYYY-MM'), false, NULL,
              CASE WHEN g % 100 = 0 THEN '[{"rule": "bench", "kind": "EMAIL_ADDRESS", "direction": "inbound", "action": "block", "path": "$.to", "count": 1}]'::jsonb ELSE '[]'::jsonb END,
              o.at
       FROM generate_series(1, $2::int) AS g
       CROSS JOIN LATERAL (SELECT now() - make_interval(secs => (g::double precision * 45 * 86400) / $2::int) AS at) AS o
       JOIN bench_users u ON u.i = (g * 31) % $3::int
       JOIN (SELECT p, md5('bench-pack-' || p)::uuid AS id FROM generate_series(0, 19) AS p) AS pk ON pk.p = g % 20
       JOIN (VALUES (0, 'github_create_issue', 'github'), (1, 'github_list_pull_requests', 'github'), (2, 'slack_post_message', 'slack'),
                    (3, 'slack_search_messages', 'slack'), (4, 'linear_create_issue', 'linear'), (5, 'notion_search', 'notion')) AS t(i, tool, slug)
         ON t.i = g % 6`,
      [organizationId, plan.toolCalls, Number(users), '00000000-0000-4000-8000-00000000b0c0'],
    );
    await db.query('DROP TABLE bench_users');
  });

  await timed(`${plan.events.toLocaleString('en-US')} unified events in ${plan.linkedAccounts} linked accounts`, async () => {
    await db.query('SET search_path = unified_data');
    // Account 1 holds most events (the worst page); one in ten needs a relink and its syncs failed.
    await db.query(
      `INSERT INTO linked_accounts (id, organization_id, environment, platform, status, end_user_origin_id, end_user_organization_name, end_user_email_address,
                                    remote_account_id, remote_account_name, account_token_hash, credentials_sealed, sync_frequency_seconds, status_detail, created_at, updated_at)
       SELECT md5('bench-account-' || $1 || a)::uuid, $1::uuid, 'production', (ARRAY['hubspot', 'zoom', 'eventbrite'])[1 + a % 3],
              CASE WHEN a % 10 = 0 THEN 'RELINK_NEEDED' ELSE 'COMPLETE' END, 'bench-end-user-' || a, 'Bench customer ' || a, 'ops' || a || '@customer.example',
              'remote-' || a, 'Bench portal ' || a, encode(sha256(convert_to('bench-account-token-' || $1 || a, 'UTF8')), 'hex'), ${sealedLooking("($1 || a)")}, 86400,
              CASE WHEN a % 10 = 0 THEN 'The platform refused the stored credentials (401).' END, now() - make_interval(days => 60 - a), now()
       FROM generate_series(1, $2::int) AS a`,
      [organizationId, plan.linkedAccounts],
    );
    await db.query(
      `INSERT INTO sync_statuses (linked_account_id, model, status, last_sync_start, last_sync_finished, last_sync_result, next_sync_start, is_initial_sync)
       SELECT la.id, m.model, CASE WHEN la.status = 'RELINK_NEEDED' THEN 'FAILED' ELSE 'DONE' END, now() - interval '2 hours', now() - interval '1 hour',
              CASE WHEN la.status = 'RELINK_NEEDED' THEN 'FAILED' ELSE 'DONE' END, now() + interval '22 hours', false
       FROM linked_accounts la CROSS JOIN (VALUES ('events'), ('contacts')) AS m(model)
       WHERE la.organization_id = $1::uuid`,
      [organizationId],
    );
    const bigShare = Math.floor(plan.events * 0.91);
    await db.query(
      `INSERT INTO events (id, linked_account_id, remote_id, created_at, modified_at, name, description, remote_created_at, start_time, end_time,
                           emails, messages, field_mappings, remote_data, hash, remote_was_deleted, is_shell, run_writes)
       SELECT gen_random_uuid(), md5('bench-account-' || $1 || CASE WHEN g <= $3::int THEN 1 ELSE 2 + g % ($4::int - 1) END)::uuid, 'bench-' || g,
              now() - make_interval(secs => $2::int - g), now() - make_interval(secs => ($2::int - g) / 2),
              'Webinar ' || g, 'Bench event number ' || g, now() - make_interval(days => 30), now() + make_interval(hours => g % 2000), now() + make_interval(hours => g % 2000, mins => 45),
              '[]'::jsonb, '[]'::jsonb, NULL, jsonb_build_array(jsonb_build_object('path', '/marketing/v3/marketing-events/' || g, 'data', jsonb_build_object('objectId', g::text, 'eventName', 'Webinar ' || g))),
              md5(g::text), false, false, 1
       FROM generate_series(1, $2::int) AS g`,
      [organizationId, plan.events, bigShare, Math.max(2, plan.linkedAccounts)],
    );
  });
  // As autovacuum leaves a table in steady state: statistics, and the visibility map that index-only scans need.
  await timed('VACUUM ANALYZE', async () => {
    for (const table of ['connector_registry.registered_users', 'connector_registry.connections', 'model_gateway.api_keys', 'model_gateway.usage_records', 'mcp_runtime.tool_call_records', 'unified_data.linked_accounts', 'unified_data.events']) {
      await db.query(`VACUUM ANALYZE ${table}`);
    }
  });
  await db.query('RESET search_path');
}
