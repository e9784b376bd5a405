import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';

const piQueryKey = ['guardrails', 'pi-settings'] as const;
const dlpQueryKey = ['guardrails', 'dlp-rules'] as const;
const checkQueryKey = ['guardrails', 'pi-check'] as const;
type DlpRule = GatewaySchemas['DlpRule'];
type DlpRuleInput = GatewaySchemas['DlpRulesPut']['rules'][number];

/**
 * /guardrails: the organization's prompt-injection settings (GET/PUT /v1/organization/pi-settings), the
 * check endpoint's switch, and the data-loss prevention rules for prompts and answers
 * (GET/PUT /v1/organization/dlp-rules, saved as a whole list in precedence order).
 */
export function GuardrailsPage() {
  return (
    <section>
      <h1>Guardrails</h1>
      <PromptInjectionSettings />
      <DlpRules />
    </section>
  );
}

function PromptInjectionSettings() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: piQueryKey, queryFn: () => unwrap(api.GET('/v1/organization/pi-settings')) });
  const check = useQuery({ queryKey: checkQueryKey, queryFn: () => unwrap(api.GET('/v1/organization/pi-check')) });
  const save = useMutation({ mutationFn: (body: GatewaySchemas['PiSettingsPut']) => unwrap(api.PUT('/v1/organization/pi-settings', { body })), onSuccess: (data) => queryClient.setQueryData(piQueryKey, data) });
  const toggleCheck = useMutation({ mutationFn: (enabled: boolean) => unwrap(api.PUT('/v1/organization/pi-check', { body: { enabled } })), onSuccess: (data) => queryClient.setQueryData(checkQueryKey, data) });
  const s = settings.data;
  return (
    <>
      <ErrorText error={settings.error} />
      {s && (
        <form
          className="card"
          aria-label="Prompt-injection protection"
          key={JSON.stringify(s)}
          onSubmit={(event) => {
            event.preventDefault();
            const f = new FormData(event.currentTarget);
            save.mutate({
              pi_mode: f.get('pi_mode') as GatewaySchemas['PiSettings']['pi_mode'],
              pi_indirect_mode: f.get('pi_indirect_mode') as GatewaySchemas['PiSettings']['pi_mode'],
              pi_block_threshold: Number(f.get('pi_block_threshold')),
              pi_pass_threshold: Number(f.get('pi_pass_threshold')),
              pi_allowlist_patterns: String(f.get('pi_allowlist_patterns') ?? '').split('\n').map((l) => l.trim()).filter(Boolean),
              pi_fail_closed: f.get('pi_fail_closed') === 'on',
              pi_log_full_text_on_block: f.get('pi_log_full_text_on_block') === 'on',
            });
          }}
        >
          <h2>Prompt-injection protection</h2>
          <div className="grid">
            <label>
              Prompts (direct)
              <select name="pi_mode" defaultValue={s.pi_mode}>
                <option value="off">Off</option>
                <option value="alert">Alert only</option>
                <option value="block">Block</option>
              </select>
            </label>
            <label>
              Tool results and documents (indirect)
              <select name="pi_indirect_mode" defaultValue={s.pi_indirect_mode}>
                <option value="off">Off</option>
                <option value="alert">Alert only</option>
                <option value="block">Block</option>
              </select>
            </label>
            <label>
              Block at score (0 to 1)
              <input name="pi_block_threshold" type="number" min="0" max="1" step="0.01" defaultValue={s.pi_block_threshold} />
            </label>
            <label>
              Pass below score (0 to 1)
              <input name="pi_pass_threshold" type="number" min="0" max="1" step="0.01" defaultValue={s.pi_pass_threshold} />
            </label>
            <label>
              Allowed patterns, one a line
              <textarea name="pi_allowlist_patterns" rows={3} defaultValue={s.pi_allowlist_patterns.join('\n')} />
            </label>
            <label className="inline">
              <input name="pi_fail_closed" type="checkbox" defaultChecked={s.pi_fail_closed} /> Block when screening fails
            </label>
            <label className="inline">
              <input name="pi_log_full_text_on_block" type="checkbox" defaultChecked={s.pi_log_full_text_on_block} /> Log the full text of a blocked prompt
            </label>
          </div>
          <ErrorText error={save.error} />
          <GuardedButton permission="manage_guardrails" type="submit" busy={save.isPending}>
            Save prompt-injection settings
          </GuardedButton>
          <span role="status">{save.isSuccess ? ' Saved.' : ''}</span>
        </form>
      )}
      {check.data && (
        <div className="card">
          <h2>Check endpoint</h2>
          <p>
            POST /v1/prompt-injection/check is <strong>{check.data.enabled ? 'enabled' : 'disabled'}</strong>: it screens texts as block mode would, without a model call.
          </p>
          <GuardedButton permission="manage_guardrails" className="secondary" busy={toggleCheck.isPending} onClick={() => toggleCheck.mutate(!check.data.enabled)}>
            {check.data.enabled ? 'Disable the check endpoint' : 'Enable the check endpoint'}
          </GuardedButton>
          <ErrorText error={toggleCheck.error} />
        </div>
      )}
    </>
  );
}

/** The stored rule as PUT takes it back (the gateway gives each rule a new id). */
function asInput(rule: DlpRule): DlpRuleInput {
  const { name, detector, pattern, flags, label, direction, action, enabled } = rule;
  return { name, detector, pattern, flags, label, direction, action, enabled };
}

function DlpRules() {
  const queryClient = useQueryClient();
  const rules = useQuery({ queryKey: dlpQueryKey, queryFn: () => unwrap(api.GET('/v1/organization/dlp-rules')) });
  const [detector, setDetector] = useState<DlpRuleInput['detector']>('EMAIL_ADDRESS');
  const save = useMutation({ mutationFn: (list: DlpRuleInput[]) => unwrap(api.PUT('/v1/organization/dlp-rules', { body: { rules: list } })), onSuccess: (data) => queryClient.setQueryData(dlpQueryKey, data) });
  const current = rules.data?.data ?? [];
  return (
    <>
      <ErrorText error={rules.error} />
      <div className="card">
        <h2>Data-loss prevention</h2>
        <p className="muted">Rules apply in this order to prompts (inbound), answers (outbound) or both: allow records a match, redact replaces it, block refuses the request.</p>
        {rules.data && (
          <div className="table-scroll">
            <table>
              <caption>{current.length} rules</caption>
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col">Detects</th>
                  <th scope="col">Direction</th>
                  <th scope="col">Action</th>
                  <th scope="col">Enabled</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {current.map((r, i) => (
                  <tr key={r.id}>
                    <th scope="row">{r.name}</th>
                    <td>{r.detector === 'CUSTOM' ? <code>/{r.pattern}/{r.flags ?? ''}</code> : r.detector}</td>
                    <td>{r.direction}</td>
                    <td>{r.action}</td>
                    <td>{r.enabled ? 'Yes' : 'No'}</td>
                    <td>
                      <GuardedButton permission="manage_guardrails" className="danger" aria-label={`Remove rule ${r.name}`} onClick={() => save.mutate(current.filter((_, j) => j !== i).map(asInput))}>
                        Remove
                      </GuardedButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <form
          aria-label="Add a data-loss rule"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            const f = new FormData(form);
            const rule: DlpRuleInput = {
              name: String(f.get('name') ?? ''),
              detector,
              direction: f.get('direction') as DlpRuleInput['direction'],
              action: f.get('action') as DlpRuleInput['action'],
              enabled: true,
              ...(detector === 'CUSTOM' ? { pattern: String(f.get('pattern') ?? ''), label: String(f.get('label') ?? '') || undefined } : {}),
            };
            save.mutate([...current.map(asInput), rule], { onSuccess: () => form.reset() });
          }}
        >
          <h3>Add a rule</h3>
          <div className="grid">
            <label>
              Rule name
              <input name="name" required />
            </label>
            <label>
              Detector
              <select value={detector} onChange={(e) => setDetector(e.target.value as DlpRuleInput['detector'])}>
                {['EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'US_SSN', 'IBAN', 'IP_ADDRESS', 'SECRET', 'CUSTOM'].map((d) => (
                  <option key={d} value={d}>
                    {d === 'CUSTOM' ? 'Custom pattern' : d}
                  </option>
                ))}
              </select>
            </label>
            {detector === 'CUSTOM' && (
              <>
                <label>
                  Pattern (regular expression)
                  <input name="pattern" required />
                </label>
                <label>
                  Redaction label (A-Z, 0-9, _)
                  <input name="label" pattern="[A-Z0-9_]{1,40}" />
                </label>
              </>
            )}
            <label>
              Direction
              <select name="direction" defaultValue="both">
                <option value="inbound">Prompts (inbound)</option>
                <option value="outbound">Answers (outbound)</option>
                <option value="both">Both</option>
              </select>
            </label>
            <label>
              Action
              <select name="action" defaultValue="redact">
                <option value="allow">Allow (record only)</option>
                <option value="redact">Redact</option>
                <option value="block">Block</option>
              </select>
            </label>
          </div>
          <ErrorText error={save.error} />
          <GuardedButton permission="manage_guardrails" type="submit" busy={save.isPending}>
            Add rule
          </GuardedButton>
        </form>
      </div>
    </>
  );
}
