import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap, type RuntimeSchemas } from '../../api/api';
import { ApiError } from '../../api/client';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { useSession } from '../../components/use-session';
import { Pager } from '../members';

const rulesQueryKey = ['security-rules'] as const;

type Rule = RuntimeSchemas['SecurityRuleRecord'];
type RuleBody = RuntimeSchemas['SecurityRuleBody'];
type TestResult = RuntimeSchemas['RuleTestResult'];

const DETECTORS = ['EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'US_SSN', 'IBAN', 'IP_ADDRESS', 'SECRET', 'CUSTOM'] as const;
const DIRECTIONS = [
  ['both', 'Both ways'],
  ['inbound', 'Inbound: arguments sent to tools'],
  ['outbound', 'Outbound: results returned to the model'],
] as const;
const ACTIONS = [
  ['redact', 'Redact: replace with [REDACTED:<KIND>]'],
  ['block', 'Block: fail the call'],
  ['allow', 'Allow: record the detection only'],
] as const;

/** A rule's fields as a form holds them; CUSTOM's pattern, flags and label only when CUSTOM. */
function ruleFromForm(f: FormData): RuleBody {
  const detector = String(f.get('detector') ?? 'EMAIL_ADDRESS');
  const custom = detector === 'CUSTOM';
  return {
    name: String(f.get('name') ?? ''),
    detector,
    direction: String(f.get('direction') ?? 'both'),
    action: String(f.get('action') ?? 'redact'),
    enabled: f.get('enabled') !== null,
    pattern: custom ? String(f.get('pattern') ?? '') : null,
    flags: custom ? String(f.get('flags') ?? '') || null : null,
    label: custom ? String(f.get('label') ?? '') : null,
  };
}

/**
 * /security-rules: the environment's security-scanning rules (oldest first, the order they apply),
 * created, edited and deleted; and the rule tester, which runs them over pasted text or a tool call
 * through POST /api/v1/security-rules/test and shows what each would redact or block.
 */
export function SecurityRulesPage() {
  const session = useSession();
  const [page, setPage] = useState(1);
  const rules = useQuery({
    queryKey: [...rulesQueryKey, session?.environment, page],
    queryFn: () => unwrap(api.GET('/api/v1/security-rules', { params: { query: { page: String(page), page_size: '20' } } })),
  });
  return (
    <section>
      <h1>Security rules</h1>
      <p className="muted">Rules scan every tool call of the {session?.environment} environment: arguments on their way to a tool (inbound) and results on their way to the model (outbound).</p>
      <RuleForm />
      <ErrorText error={rules.error} />
      {rules.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{rules.data.count} rules, in the order they apply</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Detects</th>
                  <th scope="col">Direction</th>
                  <th scope="col">Action</th>
                  <th scope="col">Enabled</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {rules.data.results.map((r) => (
                  <RuleRow key={r.id} rule={r} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={rules.data.next !== null} onPage={setPage} />
        </>
      )}
      <RuleTester />
    </section>
  );
}

function RuleFields({ rule }: { rule?: Rule }) {
  const [detector, setDetector] = useState(rule?.detector ?? 'EMAIL_ADDRESS');
  return (
    <div className="grid fields">
      <label>
        Rule name
        <input name="name" required maxLength={255} defaultValue={rule?.name} />
      </label>
      <label>
        Detector
        <select name="detector" value={detector} onChange={(e) => setDetector(e.target.value)}>
          {DETECTORS.map((d) => (
            <option key={d} value={d}>
              {d === 'CUSTOM' ? 'Custom pattern' : d}
            </option>
          ))}
        </select>
      </label>
      {detector === 'CUSTOM' && (
        <>
          <label>
            Pattern (JavaScript regular expression)
            <input name="pattern" required maxLength={500} defaultValue={rule?.pattern ?? ''} />
          </label>
          <label>
            Flags (i, m, s, u)
            <input name="flags" maxLength={4} defaultValue={rule?.flags ?? ''} />
          </label>
          <label>
            Label ([REDACTED:LABEL])
            <input name="label" required pattern="[A-Z0-9_]{1,40}" defaultValue={rule?.label ?? ''} />
          </label>
        </>
      )}
      <label>
        Direction
        <select name="direction" defaultValue={rule?.direction ?? 'both'}>
          {DIRECTIONS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Action
        <select name="action" defaultValue={rule?.action ?? 'redact'}>
          {ACTIONS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label className="check">
        <input type="checkbox" name="enabled" defaultChecked={rule?.enabled ?? true} /> Enabled
      </label>
    </div>
  );
}

function RuleForm() {
  const queryClient = useQueryClient();
  const [formKey, setFormKey] = useState(0);
  const create = useMutation({
    mutationFn: (body: RuleBody) => unwrap(api.POST('/api/v1/security-rules', { body })),
    onSuccess: async () => {
      setFormKey((k) => k + 1);
      await queryClient.invalidateQueries({ queryKey: rulesQueryKey });
    },
  });
  return (
    <form
      key={formKey}
      className="card"
      aria-label="Create a security rule"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate(ruleFromForm(new FormData(event.currentTarget)));
      }}
    >
      <h2>Create a security rule</h2>
      <RuleFields />
      <GuardedButton permission="manage_security_rules" type="submit" busy={create.isPending}>
        Create rule
      </GuardedButton>
      <ErrorText error={create.error} />
    </form>
  );
}

function RuleRow({ rule }: { rule: Rule }) {
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: rulesQueryKey });
  const update = useMutation({
    mutationFn: (body: RuleBody) => unwrap(api.PATCH('/api/v1/security-rules/{rule_id}', { params: { path: { rule_id: rule.id } }, body })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/security-rules/{rule_id}', { params: { path: { rule_id: rule.id } } })),
    onSuccess: refresh,
  });
  return (
    <tr>
      <th scope="row">{rule.name}</th>
      <td>
        {rule.detector === 'CUSTOM' ? (
          <>
            {rule.label} <code className="muted">/{rule.pattern}/{rule.flags ?? ''}</code>
          </>
        ) : (
          rule.detector
        )}
      </td>
      <td>{rule.direction}</td>
      <td>{rule.action}</td>
      <td>{rule.enabled ? 'Yes' : 'No'}</td>
      <td>{formatTime(rule.updated_at)}</td>
      <td>
        <details className="roles-editor">
          <summary aria-label={`Edit ${rule.name}`}>Edit</summary>
          <form
            aria-label={`Edit rule ${rule.name}`}
            onSubmit={(event) => {
              event.preventDefault();
              update.mutate(ruleFromForm(new FormData(event.currentTarget)));
            }}
          >
            <RuleFields rule={rule} />
            <GuardedButton permission="manage_security_rules" type="submit" busy={update.isPending}>
              Save rule
            </GuardedButton>
          </form>
        </details>
        {confirm ? (
          <div className="row">
            <button type="button" className="danger" aria-label={`Confirm delete of ${rule.name}`} onClick={() => remove.mutate()}>
              Confirm delete
            </button>
            <button type="button" className="secondary" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </div>
        ) : (
          <GuardedButton permission="manage_security_rules" className="danger" aria-label={`Delete ${rule.name}`} onClick={() => setConfirm(true)}>
            Delete
          </GuardedButton>
        )}
        <ErrorText error={update.error ?? remove.error} />
      </td>
    </tr>
  );
}

const SAMPLE_KINDS = [
  ['text', 'Text (scanned both ways)'],
  ['arguments', 'Tool call, JSON: a tools/call request or its arguments (inbound)'],
  ['result', 'Tool result, JSON (outbound)'],
] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The arguments of a pasted tool call: a JSON-RPC tools/call request, its params ({name, arguments}), or the arguments themselves. */
function argumentsOf(parsed: unknown): Record<string, unknown> {
  const params = isObject(parsed) && isObject(parsed.params) ? parsed.params : parsed;
  if (isObject(params) && typeof params.name === 'string' && isObject(params.arguments)) return params.arguments;
  return parsed as Record<string, unknown>;
}

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** The rule tester: sample input in, what the rules would do out. Runs on the server with the runtime's own scanner. */
function RuleTester() {
  const sampleId = useId();
  const [kind, setKind] = useState<'text' | 'arguments' | 'result'>('text');
  const [sample, setSample] = useState('');
  const [toolPackId, setToolPackId] = useState('');
  const [parseError, setParseError] = useState<string | null>(null);
  const run = useMutation({
    mutationFn: (body: RuntimeSchemas['RuleTestBody']) => unwrap(api.POST('/api/v1/security-rules/test', { body })),
  });
  return (
    <section className="card tester" aria-labelledby="rule-tester">
      <h2 id="rule-tester">Rule tester</h2>
      <p className="muted">Paste sample text or a tool call and see what each rule would redact or block. Nothing is stored, no tool is called and no credit is used.</p>
      <form
        aria-label="Test the rules"
        onSubmit={(event) => {
          event.preventDefault();
          setParseError(null);
          let body: RuntimeSchemas['RuleTestBody'];
          if (kind === 'text') body = { text: sample };
          else {
            let parsed: unknown;
            try {
              parsed = JSON.parse(sample);
            } catch (err) {
              setParseError(`The sample is not valid JSON: ${(err as Error).message}`);
              return;
            }
            body = kind === 'arguments' ? { arguments: argumentsOf(parsed) } : { result: parsed as Record<string, unknown> };
          }
          if (toolPackId.trim()) body.tool_pack_id = toolPackId.trim();
          run.mutate(body);
        }}
      >
        <div className="grid fields">
          <label>
            Sample kind
            <select value={kind} onChange={(e) => setKind(e.target.value as typeof kind)}>
              {SAMPLE_KINDS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            As this tool pack runs them (id, optional)
            <input value={toolPackId} onChange={(e) => setToolPackId(e.target.value)} placeholder="the organization’s rules" />
          </label>
        </div>
        {/* A label beside the field, not around it: a label around a textarea would name it with its contents too. */}
        <label htmlFor={sampleId}>Sample</label>
        <textarea id={sampleId} rows={6} value={sample} onChange={(e) => setSample(e.target.value)} required placeholder={kind === 'text' ? 'Contact ada@example.com about invoice 4111 1111 1111 1111' : '{"input": {"body": "..."}}'} />
        <GuardedButton permission="view_security_rules" type="submit" busy={run.isPending}>
          Test rules
        </GuardedButton>
      </form>
      {parseError && (
        <p role="alert" className="error">
          {parseError}
        </p>
      )}
      <ErrorText error={run.error instanceof ApiError ? run.error : null} />
      {run.data && <TestResults result={run.data} />}
    </section>
  );
}

function TestResults({ result }: { result: TestResult }) {
  return (
    <div aria-label="Test results" role="region">
      <h3>With every enabled rule</h3>
      {result.samples.map((s) => (
        <div key={`${s.sample}-${s.direction}`} className="sample">
          <p>
            <strong>{s.direction === 'inbound' ? 'Inbound (to the tool)' : 'Outbound (to the model)'}</strong>{' '}
            {s.blocked ? (
              <span className="status error-status">
                Blocked by “{s.blocked.rule_name}” ({s.blocked.kind})
              </span>
            ) : s.detections.length > 0 ? (
              <span className="status ok-status">Passes with {s.detections.length} detection{s.detections.length === 1 ? '' : 's'}</span>
            ) : (
              <span className="status ok-status">Passes unchanged</span>
            )}
          </p>
          <div role="group" aria-label={`Output ${s.direction}`}>
            <pre className="schema">{show(s.output)}</pre>
          </div>
        </div>
      ))}
      <h3>Each rule on its own</h3>
      {result.rules.length === 0 ? (
        <p>This environment has no rules yet.</p>
      ) : (
        <div className="table-scroll">
          <table>
            <caption className="sr-only">What each rule would do</caption>
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Would</th>
                <th scope="col">Where</th>
                <th scope="col">Sample after this rule</th>
              </tr>
            </thead>
            <tbody>
              {result.rules.map((r) => (
                <tr key={r.rule_id}>
                  <th scope="row">
                    {r.rule_name} <span className="muted">({r.kind}, {r.action}{r.enabled ? '' : ', disabled'})</span>
                  </th>
                  <td>{r.outcome === 'nothing' ? 'No match' : r.outcome === 'recorded' ? 'Record only' : r.outcome === 'redacted' ? 'Redact' : 'Block'}</td>
                  <td>
                    {r.matches.length === 0
                      ? '—'
                      : r.matches.map((m) => (
                          <div key={`${m.sample}-${m.direction}-${m.path}`}>
                            {m.direction} <code>{m.path}</code> ×{m.count}
                          </div>
                        ))}
                  </td>
                  <td>
                    {r.outputs.length === 0
                      ? '—'
                      : r.outputs.map((o) => (
                          <pre key={`${o.sample}-${o.direction}`} className="schema">
                            {o.direction}: {show(o.output)}
                          </pre>
                        ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
