import { useState } from 'react';
import { modelApi } from '../../api/model-client';
import { ErrorText } from '../../components/error-text';
import { useFormSubmit } from '../../components/use-form-submit';
import { ApiError } from '../../api/client';
import { useChatModels } from './routing-policies';

type Surface = 'native' | 'openai' | 'anthropic';
const SURFACES: Record<Surface, { label: string; path: '/v1/responses' | '/v1/chat/completions' | '/v1/messages' }> = {
  native: { label: 'Native (POST /v1/responses)', path: '/v1/responses' },
  openai: { label: 'OpenAI-compatible (POST /v1/chat/completions)', path: '/v1/chat/completions' },
  anthropic: { label: 'Anthropic-compatible (POST /v1/messages)', path: '/v1/messages' },
};

/** The headers the gateway sets on a model answer that a member wants to read, grouped as the page shows them. */
const HEADER_GROUPS: Array<[string, string[]]> = [
  ['Gateway', ['x-request-id', 'x-gateway-overhead-ms', 'x-guardrails-alert']],
  ['Rate limit', ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']],
  ['Budgets', ['x-key-limit-usd', 'x-key-limit-remaining-usd', 'x-key-limit-warning', 'x-budget-limit-usd', 'x-budget-warning', 'x-project-budget-limit-usd', 'x-project-budget-remaining-usd', 'x-project-budget-warning', 'x-credit-balance-usd']],
];

interface Exchange {
  surface: Surface;
  status: number;
  totalMs: number;
  headers: Array<[string, string | null]>;
  body: unknown;
}

function bodyFor(surface: Surface, model: string, message: string, maxTokens: number): Record<string, unknown> {
  const messages = [{ role: 'user', content: message }];
  if (surface === 'native') return { model, input: message, max_tokens: maxTokens, include_routing_metadata: true };
  if (surface === 'openai') return { model, messages, max_tokens: maxTokens };
  return { model, messages, max_tokens: maxTokens };
}

/** What the page reads of an answer on any of the three surfaces (each field only where that surface has it). */
interface AnswerBody {
  choices?: Array<{ message?: { content?: string | null } }>;
  output?: Array<{ content?: Array<{ text?: unknown }> }>;
  content?: Array<{ text?: unknown }>;
  error?: { type?: string; code?: string | null; message?: string };
  warnings?: Array<{ code?: string; type?: string; message?: string }> | null;
  routing?: { model_used?: string | null; vendor_used?: string | null; routing_reason?: string; strategy?: string; resolved_by?: string } | null;
}

/** The answer's text, wherever the surface puts it. */
function answerText(surface: Surface, body: unknown): string | null {
  const b = body as AnswerBody | null;
  if (!b || typeof b !== 'object') return null;
  if (surface === 'openai') return b.choices?.[0]?.message?.content ?? null;
  const blocks = surface === 'native' ? (b.output ?? []).flatMap((o) => o?.content ?? []) : (b.content ?? []);
  const text = blocks.map((c) => (typeof c?.text === 'string' ? c.text : '')).join('');
  return text || null;
}

/**
 * /request-tester: one model request with a gateway key the member pastes (kept in this page's memory
 * only, never stored or sent anywhere but the gateway), through the same endpoints an application calls;
 * the answer, its routing metadata and warnings, and the budget, rate-limit and overhead headers.
 */
export function RequestTesterPage() {
  const models = useChatModels();
  const [surface, setSurface] = useState<Surface>('native');
  const [exchange, setExchange] = useState<Exchange | null>(null);
  const { submit, error, busy } = useFormSubmit(async (form) => {
    const key = String(form.get('gateway_key') ?? '').trim();
    if (!key) throw new ApiError(400, 'key_required', 'Paste a gateway key: the request is made with it, as your application would make it.');
    const body = bodyFor(surface, String(form.get('model')).trim(), String(form.get('message')), Number(form.get('max_tokens')) || 256);
    const started = performance.now();
    let response: Response;
    let data: unknown;
    try {
      const result = await modelApi.POST(SURFACES[surface].path, { body, headers: { authorization: `Bearer ${key}` }, parseAs: 'text' });
      response = result.response;
      // parseAs text: a body that is not JSON is still shown; an error body openapi-fetch has already parsed.
      const raw: unknown = response.ok ? result.data : result.error;
      if (typeof raw !== 'string') data = raw ?? null;
      else {
        try {
          data = raw ? JSON.parse(raw) : null;
        } catch {
          data = raw;
        }
      }
    } catch {
      throw new ApiError(0, 'network_error', 'The gateway could not be reached.');
    }
    const totalMs = Math.round(performance.now() - started);
    const headers = HEADER_GROUPS.flatMap(([, names]) => names.map((n): [string, string | null] => [n, response.headers.get(n)]));
    setExchange({ surface, status: response.status, totalMs, headers, body: data });
  }, 'The request could not be sent.');
  const b = (exchange && typeof exchange.body === 'object' ? exchange.body : null) as AnswerBody | null;
  const text = exchange ? answerText(exchange.surface, exchange.body) : null;
  const overhead = exchange?.headers.find(([n]) => n === 'x-gateway-overhead-ms')?.[1];
  return (
    <section>
      <h1>Request tester</h1>
      <p className="muted">
        Send one model request as an application would, with a gateway key you paste. The key stays in this page only: the console never stores it, and your console session cannot make model
        calls. The request is billed to the key like any other.
      </p>
      <form className="card" aria-label="Model request" onSubmit={submit} autoComplete="off">
        <div className="grid">
          <label>
            Gateway key
            <input name="gateway_key" type="password" autoComplete="off" spellCheck={false} placeholder="pb_…" required />
          </label>
          <label>
            Surface
            <select value={surface} onChange={(e) => setSurface(e.target.value as Surface)}>
              {(Object.keys(SURFACES) as Surface[]).map((s) => (
                <option key={s} value={s}>
                  {SURFACES[s].label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Model (provider/model or @alias/…)
            <input name="model" list="tester-models" required defaultValue="openai/gpt-4o-mini" />
          </label>
          <datalist id="tester-models">
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
          <label>
            Max output tokens
            <input name="max_tokens" type="number" min="1" defaultValue="256" />
          </label>
        </div>
        <label>
          Message
          <textarea name="message" rows={4} required defaultValue="Say hello in five words." />
        </label>
        <button type="submit" disabled={busy} aria-disabled={busy || undefined}>
          {busy ? 'Sending…' : 'Send request'}
        </button>
      </form>
      <ErrorText error={error} />
      {exchange && (
        <div role="region" aria-label="Answer">
          <h2>
            Answer: {exchange.status} {exchange.status < 400 ? 'OK' : 'refused'}
          </h2>
          <p>
            Gateway overhead <strong>{overhead ? `${overhead} ms` : 'not reported'}</strong> · round trip from this browser {exchange.totalMs} ms
          </p>
          {text && <blockquote className="card">{text}</blockquote>}
          {b?.error && (
            <p role="alert" className="error">
              {String(b.error.type ?? '')} {b.error.code ? <code>{String(b.error.code)}</code> : null}: {String(b.error.message ?? '')}
            </p>
          )}
          <div className="table-scroll">
            <table>
              <caption>Headers the gateway set</caption>
              <thead>
                <tr>
                  <th scope="col">Header</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {exchange.headers
                  .filter(([, v]) => v !== null)
                  .map(([name, value]) => (
                    <tr key={name}>
                      <th scope="row">
                        <code>{name}</code>
                      </th>
                      <td>{value}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
          {b?.warnings && b.warnings.length > 0 && (
            <>
              <h3>Warnings</h3>
              <ul>
                {b.warnings.map((w, i) => (
                  <li key={i}>
                    <code>{String(w.code ?? w.type ?? 'warning')}</code> {String(w.message ?? JSON.stringify(w))}
                  </li>
                ))}
              </ul>
            </>
          )}
          {b?.routing ? (
            <>
              <h3>Routing</h3>
              <p>
                {String(b.routing.model_used ?? '')} on {String(b.routing.vendor_used ?? '')}: {String(b.routing.routing_reason ?? '')} (strategy {String(b.routing.strategy ?? '')}, resolved by{' '}
                {String(b.routing.resolved_by ?? '')})
              </p>
              <pre className="scroll">{JSON.stringify(b.routing, null, 2)}</pre>
            </>
          ) : (
            exchange.surface !== 'native' && <p className="muted">Routing metadata comes with the native surface’s answers (include_routing_metadata).</p>
          )}
          <details>
            <summary>Whole answer (JSON)</summary>
            <pre className="scroll">{typeof exchange.body === 'string' ? exchange.body : JSON.stringify(exchange.body, null, 2)}</pre>
          </details>
        </div>
      )}
    </section>
  );
}
