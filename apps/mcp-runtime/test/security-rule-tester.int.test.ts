import { memberSession } from '@patchbay/testing';
import { request, scenario, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 90_000);
afterAll(async () => {
  await h.close();
});

describe('POST /api/v1/security-rules/test', () => {
  it("runs the environment's rules over sample text and a tool call, as a pack runs them, and stores nothing", async () => {
    const s = await scenario(h, { connect: false });
    const rule = (await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/', { name: 'No emails', detector: 'EMAIL_ADDRESS', direction: 'both', action: 'redact' })).body;
    const res = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/test', { text: 'write to ada@example.com', arguments: { input: { body: 'cc bob@example.org' } } });
    expect(res.status).toBe(200);
    expect(res.body.samples).toEqual([
      expect.objectContaining({ sample: 'text', direction: 'inbound', output: 'write to [REDACTED:EMAIL_ADDRESS]', blocked: null }),
      expect.objectContaining({ sample: 'text', direction: 'outbound', output: 'write to [REDACTED:EMAIL_ADDRESS]' }),
      expect.objectContaining({ sample: 'arguments', direction: 'inbound', output: { input: { body: 'cc [REDACTED:EMAIL_ADDRESS]' } } }),
    ]);
    expect(res.body.rules).toEqual([expect.objectContaining({ rule_id: rule.id, rule_name: 'No emails', outcome: 'redacted', fired: true })]);

    // The pack turned the rule off: with tool_pack_id the samples pass unchanged, and the rule says what it would do on.
    expect((await request(h.url, s.org.master_key, 'PUT', `/api/v1/tool-packs/${s.packId}/security-rules/${rule.id}/override/`, { enabled: false })).status).toBe(200);
    const forPack = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/test', { text: 'write to ada@example.com', tool_pack_id: s.packId });
    expect(forPack.status).toBe(200);
    expect(forPack.body.samples[0].output).toBe('write to ada@example.com');
    expect(forPack.body.rules[0]).toMatchObject({ rule_id: rule.id, enabled: false, outcome: 'redacted' });

    // A draft rule is tried beside the stored ones and not saved.
    const draft = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/test', { result: { content: [{ type: 'text', text: 'ORD-4411' }] }, rule: { name: 'Orders', detector: 'CUSTOM', pattern: 'ORD-\\d+', label: 'ORDER', direction: 'outbound', action: 'block' } });
    expect(draft.status).toBe(200);
    expect(draft.body.samples[0].blocked).toEqual({ rule_id: 'draft', rule_name: 'Orders', kind: 'ORDER' });
    expect((await request(h.url, s.org.master_key, 'GET', '/api/v1/security-rules/')).body.count).toBe(1);
  });

  it('answers 400 naming the field for no sample or an invalid draft, and 404 for an unknown tool pack', async () => {
    const s = await scenario(h, { connect: false });
    const empty = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/test', {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([{ field: 'body', message: expect.stringMatching(/text, arguments or result/) }]);
    const bad = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/test', { text: 'x', rule: { name: 'Bad', detector: 'CUSTOM', pattern: '(a+)+$', label: 'A', direction: 'both', action: 'redact' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('body.rule.pattern');
    const missing = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/test', { text: 'x', tool_pack_id: '00000000-0000-4000-8000-000000000000' });
    expect(missing.status).toBe(404);
  });

  it('a member needs view_security_rules', async () => {
    const org = await h.accessKeys.createOrganization({});
    const url = `${h.url}/api/v1/security-rules/test`;
    for (const [permissions, status] of [[['view_tool_packs'], 403], [['view_security_rules'], 200]] as const) {
      const member = await memberSession(h.accessKeys, org.organization_id, { permissions: [...permissions] });
      const res = await fetch(url, { method: 'POST', headers: { ...member.headers('POST', url), 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi' }) });
      expect(res.status).toBe(status);
      if (status === 403) expect(((await res.json()) as { detail: string }).detail).toMatch(/View security rules/);
    }
  });
});
