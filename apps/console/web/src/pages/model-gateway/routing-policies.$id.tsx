import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ApiError } from '../../api/client';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { useFormSubmit } from '../../components/use-form-submit';
import { PolicyForm, routingPoliciesQueryKey, STRATEGIES } from './routing-policies';

type DryRun = GatewaySchemas['DryRun'];
type DryRunSurface = NonNullable<GatewaySchemas['DryRunRequest']['surface']>;

const SAMPLES: Record<DryRunSurface, [string, unknown]> = {
  native: ['Native (POST /v1/responses)', { input: 'Summarise our refund policy in one sentence.', max_tokens: 200 }],
  openai_chat: ['OpenAI chat (POST /v1/chat/completions)', { messages: [{ role: 'user', content: 'Summarise our refund policy in one sentence.' }], max_tokens: 200 }],
  openai_responses: ['OpenAI responses (POST /v1/openai/responses)', { input: 'Summarise our refund policy in one sentence.', max_output_tokens: 200 }],
  anthropic: ['Anthropic (POST /v1/messages)', { messages: [{ role: 'user', content: 'Summarise our refund policy in one sentence.' }], max_tokens: 200 }],
};

/** The dry run's answer: the routes in the order they would be tried and why, and what was left out. */
function DryRunResult({ result }: { result: DryRun }) {
  return (
    <div aria-label="Dry run result" role="region">
      {result.outcome === 'refused' && result.refusal ? (
        <p role="status">
          A request would be refused: <strong>{result.refusal.status}</strong> <code>{result.refusal.code}</code> {result.refusal.message}
        </p>
      ) : (
        <p role="status">
          {result.routes.length} route{result.routes.length === 1 ? '' : 's'} by {STRATEGIES.find(([s]) => s === result.strategy)?.[1] ?? result.strategy}, resolved by {result.resolved_by}
          {result.failover ? '; a failed route fails over to the next' : ''}. No vendor was called.
        </p>
      )}
      <p className="muted">
        Estimated {result.request.estimated_input_tokens} input and {result.request.expected_output_tokens} output tokens; needs {result.request.needs.input.join(', ')}
        {result.request.needs.tools ? ', tools' : ''}
        {result.request.needs.structured_outputs ? ', structured outputs' : ''}
        {result.request.needs.stream ? ', streaming' : ''}; service tier {result.request.service_tier}.
      </p>
      {result.routes.length > 0 && (
        <div className="table-scroll">
          <table>
            <caption>Routes in the order they would be tried</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Model</th>
                <th scope="col">Vendor</th>
                <th scope="col">Estimated cost</th>
                <th scope="col">Circuit breaker</th>
                <th scope="col">Latency</th>
                <th scope="col">Why here</th>
              </tr>
            </thead>
            <tbody>
              {result.routes.map((r) => (
                <tr key={`${r.model}|${r.vendor}`}>
                  <td>{r.position}</td>
                  <th scope="row">{r.model}</th>
                  <td>
                    {r.vendor}
                    {r.service_tier !== 'standard' ? ` (${r.service_tier})` : ''}
                  </td>
                  <td>{r.estimated_cost_usd === null ? 'self-hosted' : `$${r.estimated_cost_usd.toFixed(6)}`}</td>
                  <td>{r.breaker}</td>
                  <td>{r.latency_ms === null ? 'not measured' : `${r.latency_ms} ms`}</td>
                  <td>{r.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {result.skipped_unhealthy.length > 0 && (
        <>
          <h3>Skipped: circuit breaker open</h3>
          <ul>
            {result.skipped_unhealthy.map((r) => (
              <li key={`${r.model}|${r.vendor}`}>
                {r.model} on {r.vendor}: {r.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      {result.excluded.length > 0 && (
        <>
          <h3>Left out</h3>
          <ul>
            {result.excluded.map((r) => (
              <li key={`${r.model}|${r.vendor ?? ''}`}>
                {r.model}
                {r.vendor ? ` on ${r.vendor}` : ''}: {r.reason}
              </li>
            ))}
          </ul>
        </>
      )}
      {result.notes.length > 0 && (
        <ul className="muted">
          {result.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A request through the policy without calling a vendor (POST /v1/routing-policies/{id}/dry-run, view_routing). */
function DryRunPanel({ policyId }: { policyId: string }) {
  const [surface, setSurface] = useState<DryRunSurface>('native');
  const [text, setText] = useState(() => JSON.stringify(SAMPLES.native[1], null, 2));
  const [result, setResult] = useState<DryRun | null>(null);
  const { submit, error, busy } = useFormSubmit(async () => {
    let request: Record<string, unknown>;
    try {
      request = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON; fix it and try again.');
    }
    setResult(await unwrap(api.POST('/v1/routing-policies/{policy_id}/dry-run', { params: { path: { policy_id: policyId } }, body: { surface, request } })));
  }, 'The dry run failed.');
  return (
    <form className="card" aria-label="Dry run" onSubmit={submit}>
      <h2>Dry run</h2>
      <p className="muted">Which routes a request would take through this policy and why. Nothing is sent to a vendor, billed or recorded.</p>
      <label>
        Surface
        <select
          value={surface}
          onChange={(e) => {
            const next = e.target.value as DryRunSurface;
            setSurface(next);
            setText(JSON.stringify(SAMPLES[next][1], null, 2));
          }}
        >
          {(Object.keys(SAMPLES) as DryRunSurface[]).map((s) => (
            <option key={s} value={s}>
              {SAMPLES[s][0]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Request body (JSON; its model is set aside, the policy routes)
        <textarea rows={8} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} />
      </label>
      <GuardedButton type="submit" permission="view_routing" busy={busy}>
        Run dry run
      </GuardedButton>
      <ErrorText error={error} />
      {result && <DryRunResult result={result} />}
    </form>
  );
}

/** /routing-policies/$id: one policy: its editor, set default, delete, and a dry run. */
export function RoutingPolicyPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [actionError, setActionError] = useState<Error | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const policy = useQuery({
    queryKey: [...routingPoliciesQueryKey, 'one', id],
    queryFn: () => unwrap(api.GET('/v1/routing-policies/{policy_id}', { params: { path: { policy_id: id } } })),
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: routingPoliciesQueryKey });
  };
  const act = async (what: string, call: () => Promise<unknown>) => {
    setActionError(null);
    setSaved(null);
    try {
      await call();
      setSaved(what);
    } catch (err) {
      setActionError(err instanceof Error ? err : new Error(String(err)));
    }
  };
  const p = policy.data;
  return (
    <section>
      <p>
        <Link to="/routing-policies">← Routing policies</Link>
      </p>
      <h1>{p ? `Routing policy: ${p.name}` : 'Routing policy'}</h1>
      <ErrorText error={policy.error} />
      {p && (
        <>
          <p className="muted">
            {p.model ? (
              <>
                Alias <code>{p.model}</code> ·{' '}
              </>
            ) : null}
            {p.project_id ? `project ${p.project_id}` : p.customer_id ? `customer ${p.customer_id}` : 'organization'} · {p.is_default ? 'the default of its scope' : 'not the default'} · updated {formatTime(p.updated_at)}
          </p>
          <div className="row">
            <GuardedButton
              permission="manage_routing"
              disabledReason={p.is_default ? 'Already the default of its scope' : undefined}
              onClick={() => void act('Set as default.', async () => { await unwrap(api.POST('/v1/routing-policies/{policy_id}/set-default', { params: { path: { policy_id: id } } })); await refresh(); })}
            >
              Set as default
            </GuardedButton>
            <GuardedButton
              permission="manage_routing"
              className="danger"
              onClick={() =>
                void act('Deleted.', async () => {
                  if (!window.confirm(`Delete the routing policy “${p.name}”?`)) return;
                  await unwrap(api.DELETE('/v1/routing-policies/{policy_id}', { params: { path: { policy_id: id } } }));
                  await refresh();
                  await navigate({ to: '/routing-policies' });
                })
              }
            >
              Delete policy
            </GuardedButton>
          </div>
          {saved && <p role="status">{saved}</p>}
          <ErrorText error={actionError} />
          <DryRunPanel policyId={id} />
          <h2>Edit</h2>
          <PolicyForm
            key={p.updated_at}
            policy={p}
            submitLabel="Save policy"
            onSave={async (body) => {
              const { project_id: _project, customer_id: _customer, ...update } = body;
              void _project;
              void _customer;
              setSaved(null);
              await unwrap(api.PATCH('/v1/routing-policies/{policy_id}', { params: { path: { policy_id: id } }, body: update }));
              await refresh();
              setSaved('Saved.');
            }}
          />
        </>
      )}
    </section>
  );
}
