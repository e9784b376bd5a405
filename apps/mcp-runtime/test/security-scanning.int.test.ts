import { waitFor } from '@patchbay/testing';
import { request, rpc, scenario, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 90_000);
afterAll(async () => {
  await h.close();
});

type Scenario = Awaited<ReturnType<typeof scenario>>;

const createIssue = (s: Scenario, body: string, title = 'Customer report') =>
  rpc(s.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__create_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', title, body } } } });

const getIssue = (s: Scenario, issueNumber: number) =>
  rpc(s.mcpUrl, s.org.master_key, { id: 2, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: issueNumber } } } });

async function createRule(s: Scenario, rule: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/', rule);
  expect(res.status).toBe(201);
  return res.body;
}

async function records(s: Scenario, query = ''): Promise<any[]> {
  const res = await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/?registered_user_id=${s.userId}${query}`);
  expect(res.status).toBe(200);
  return res.body.results;
}

/** Records arrive over the queue a moment after the call. */
async function recordsOnceThere(s: Scenario, query: string, count = 1): Promise<any[]> {
  let found: any[] = [];
  await waitFor(async () => {
    found = await records(s, query);
    return found.length >= count;
  });
  return found;
}

async function creditsUsed(s: Scenario): Promise<number> {
  const res = await request(h.url, s.org.master_key, 'GET', '/api/v1/usage/');
  expect(res.status).toBe(200);
  return res.body.credits_used;
}

describe('security rules API', () => {
  it('creates, reads, lists, updates and deletes an organization rule', async () => {
    const s = await scenario(h, { connect: false });
    const created = await createRule(s, { name: 'No emails to tools', detector: 'EMAIL_ADDRESS', direction: 'inbound', action: 'redact' });
    expect(created).toMatchObject({ id: expect.any(String), name: 'No emails to tools', detector: 'EMAIL_ADDRESS', direction: 'inbound', action: 'redact', enabled: true, pattern: null, label: null });
    expect((await request(h.url, s.org.master_key, 'GET', `/api/v1/security-rules/${created.id}/`)).body).toEqual(created);
    const list = await request(h.url, s.org.master_key, 'GET', '/api/v1/security-rules/');
    expect(list.body).toMatchObject({ count: 1, results: [created] });

    const patched = await request(h.url, s.org.master_key, 'PATCH', `/api/v1/security-rules/${created.id}/`, { action: 'block', direction: 'both' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.id, action: 'block', direction: 'both', name: 'No emails to tools' });

    expect((await request(h.url, s.org.master_key, 'DELETE', `/api/v1/security-rules/${created.id}/`)).status).toBe(204);
    expect((await request(h.url, s.org.master_key, 'GET', `/api/v1/security-rules/${created.id}/`)).status).toBe(404);
  });

  it('refuses an invalid rule with every problem under its field, and stores nothing', async () => {
    const s = await scenario(h, { connect: false });
    const res = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/', { name: 'Employee ids', detector: 'CUSTOM', pattern: '(a+)+$', direction: 'sideways', action: 'redact' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['body.pattern', 'body.direction', 'body.label']));
    expect(res.body.errors.find((e: { field: string }) => e.field === 'body.pattern').message).toMatch(/exponential time/);
    expect((await request(h.url, s.org.master_key, 'GET', '/api/v1/security-rules/')).body.count).toBe(0);
  });

  it('an invalid PATCH leaves the stored rule unchanged', async () => {
    const s = await scenario(h, { connect: false });
    const rule = await createRule(s, { name: 'Tickets', detector: 'CUSTOM', pattern: 'TICKET-\\d{4}', label: 'TICKET', direction: 'outbound', action: 'redact' });
    const res = await request(h.url, s.org.master_key, 'PATCH', `/api/v1/security-rules/${rule.id}/`, { pattern: '(' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('body.pattern');
    expect((await request(h.url, s.org.master_key, 'GET', `/api/v1/security-rules/${rule.id}/`)).body.pattern).toBe('TICKET-\\d{4}');
  });

  it('rules belong to one environment: a test key neither sees nor changes production rules', async () => {
    const s = await scenario(h, { connect: false });
    const rule = await createRule(s, { name: 'Cards', detector: 'CREDIT_CARD', direction: 'both', action: 'block' });
    expect((await request(h.url, s.org.test_key, 'GET', '/api/v1/security-rules/')).body.count).toBe(0);
    expect((await request(h.url, s.org.test_key, 'GET', `/api/v1/security-rules/${rule.id}/`)).status).toBe(404);
    expect((await request(h.url, s.org.test_key, 'DELETE', `/api/v1/security-rules/${rule.id}/`)).status).toBe(404);
  });

  it('only an unrestricted key changes organization rules; a restricted key overrides its own packs only', async () => {
    const s = await scenario(h, { connect: false });
    const rule = await createRule(s, { name: 'SSNs', detector: 'US_SSN', direction: 'both', action: 'redact' });
    const narrow = await h.accessKeys.createKey(s.org.master_key, { name: 'pack admin', scopes: ['management:all'], tool_pack_ids: [s.packId] });
    const refused = await request(h.url, narrow.key, 'POST', '/api/v1/security-rules/', { name: 'x', detector: 'IBAN', direction: 'both', action: 'block' });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/restrictions/);
    const own = await request(h.url, narrow.key, 'PUT', `/api/v1/tool-packs/${s.packId}/security-rules/${rule.id}/override/`, { action: 'allow' });
    expect(own.status).toBe(200);
    const other = await scenario(h, { connect: false, org: s.org });
    const foreign = await request(h.url, narrow.key, 'PUT', `/api/v1/tool-packs/${other.packId}/security-rules/${rule.id}/override/`, { action: 'allow' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBe('Resource not in API key scope.');
  });

  it('a pack override needs an existing pack of the environment and says what to send', async () => {
    const s = await scenario(h, { connect: false });
    const rule = await createRule(s, { name: 'IPs', detector: 'IP_ADDRESS', direction: 'outbound', action: 'redact' });
    const missingPack = await request(h.url, s.org.master_key, 'PUT', `/api/v1/tool-packs/00000000-0000-4000-8000-000000000000/security-rules/${rule.id}/override/`, { action: 'allow' });
    expect(missingPack.status).toBe(404);
    const empty = await request(h.url, s.org.master_key, 'PUT', `/api/v1/tool-packs/${s.packId}/security-rules/${rule.id}/override/`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.detail).toMatch(/set action, enabled or both/);
    const wrong = await request(h.url, s.org.master_key, 'PUT', `/api/v1/tool-packs/${s.packId}/security-rules/${rule.id}/override/`, { action: 'shred' });
    expect(wrong.status).toBe(400);
    expect((await request(h.url, s.org.master_key, 'DELETE', `/api/v1/tool-packs/${s.packId}/security-rules/${rule.id}/override/`)).status).toBe(404);
  });

  it('rule changes are audit-logged', async () => {
    const s = await scenario(h, { connect: false });
    const rule = await createRule(s, { name: 'Audited', detector: 'IBAN', direction: 'both', action: 'redact' });
    let event: unknown;
    await waitFor(async () => {
      const res = await request(h.accessKeys.url, s.org.master_key, 'GET', '/api/v1/audit-log/?event_type=security_rule.created');
      event = res.body.results.find((e: { resource_id: string }) => e.resource_id === rule.id);
      return event !== undefined;
    });
    expect(event).toMatchObject({ actor_key_id: s.org.master_key_id, source_service: 'mcp-runtime', details: { name: 'Audited', action: 'redact' } });
  });
});

describe('security scanning on tools/call', () => {
  it('redact inbound: the tool receives [REDACTED:EMAIL_ADDRESS] instead of the address', async () => {
    const s = await scenario(h);
    await createRule(s, { name: 'No emails to tools', detector: 'EMAIL_ADDRESS', direction: 'inbound', action: 'redact' });
    const res = await createIssue(s, 'Reported by ada@example.com yesterday');
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBeFalsy();
    const sent = h.github.requests.at(-1)!;
    expect(JSON.stringify(sent.json)).toContain('Reported by [REDACTED:EMAIL_ADDRESS] yesterday');
    expect(JSON.stringify(sent.json)).not.toContain('ada@example.com');
  });

  it('redact outbound: the model receives the marker in place of the value, in text and structured content', async () => {
    const s = await scenario(h);
    const created = await createIssue(s, 'Call me at +1 (415) 555-0134');
    const number = JSON.parse(created.body.result.content[0].text).number as number;
    await createRule(s, { name: 'Phones stay private', detector: 'PHONE_NUMBER', direction: 'outbound', action: 'redact' });
    const res = await getIssue(s, number);
    expect(res.body.result.isError).toBeFalsy();
    expect(res.body.result.content[0].text).toContain('Call me at [REDACTED:PHONE_NUMBER]');
    expect(res.body.result.structuredContent.body).toBe('Call me at [REDACTED:PHONE_NUMBER]');
    expect(JSON.stringify(res.body)).not.toContain('555-0134');
  });

  it('a custom regex rule redacts with its own label', async () => {
    const s = await scenario(h);
    const created = await createIssue(s, 'Escalated by EMP-004211');
    const number = JSON.parse(created.body.result.content[0].text).number as number;
    await createRule(s, { name: 'Employee ids', detector: 'CUSTOM', pattern: 'EMP-\\d{6}', label: 'EMPLOYEE_ID', direction: 'outbound', action: 'redact' });
    const res = await getIssue(s, number);
    expect(res.body.result.structuredContent.body).toBe('Escalated by [REDACTED:EMPLOYEE_ID]');
  });

  it('block inbound: the call returns an error that says a security rule fired and names it, the tool is not called, and it still costs a credit', async () => {
    const s = await scenario(h);
    const rule = await createRule(s, { name: 'No cloud keys', detector: 'SECRET', direction: 'inbound', action: 'block' });
    const before = await creditsUsed(s);
    const requestsBefore = h.github.requests.length;
    const res = await createIssue(s, 'deploy with AKIAIOSFODNN7EXAMPLE please');
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toMatch(/security rule "No cloud keys"/);
    expect(res.body.result.content[0].text).toContain(rule.id);
    expect(res.body.result.content[0].text).toMatch(/the tool was not called/);
    expect(JSON.stringify(res.body)).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(res.body.result.structuredContent).toMatchObject({ error: 'security_rule_blocked', rule_name: 'No cloud keys', kind: 'SECRET', direction: 'inbound' });
    expect(h.github.requests.length).toBe(requestsBefore);
    expect(await creditsUsed(s)).toBe(before + 1);
  });

  it("block outbound: the tool ran but its result is withheld, naming the rule", async () => {
    const s = await scenario(h);
    const created = await createIssue(s, 'Card on file 4111 1111 1111 1111');
    const number = JSON.parse(created.body.result.content[0].text).number as number;
    await createRule(s, { name: 'No card numbers to the model', detector: 'CREDIT_CARD', direction: 'outbound', action: 'block' });
    const res = await getIssue(s, number);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toMatch(/Blocked by security rule "No card numbers to the model" \(CREDIT_CARD, rule [0-9a-f-]+\): the tool's result was withheld/);
    expect(JSON.stringify(res.body)).not.toContain('4111');
  });

  it('allow records the detection and changes nothing', async () => {
    const s = await scenario(h);
    await createRule(s, { name: 'Watch IBANs', detector: 'IBAN', direction: 'inbound', action: 'allow' });
    const res = await createIssue(s, 'Refund to DE89370400440532013000');
    expect(res.body.result.isError).toBeFalsy();
    expect(JSON.stringify(h.github.requests.at(-1)!.json)).toContain('DE89370400440532013000');
  });

  it('a per-pack override changes the action for that pack only, and deleting it restores the organization rule', async () => {
    const s = await scenario(h);
    const other = await scenario(h, { org: s.org });
    const rule = await createRule(s, { name: 'No emails to tools', detector: 'EMAIL_ADDRESS', direction: 'inbound', action: 'block' });
    const put = await request(h.url, s.org.master_key, 'PUT', `/api/v1/tool-packs/${s.packId}/security-rules/${rule.id}/override/`, { action: 'redact' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: rule.id, action: 'redact', override: { action: 'redact', enabled: null } });
    const view = await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-packs/${s.packId}/security-rules/`);
    expect(view.body.results).toEqual([expect.objectContaining({ id: rule.id, action: 'redact', override: { action: 'redact', enabled: null } })]);

    expect((await createIssue(s, 'from ada@example.com')).body.result.isError).toBeFalsy();
    expect(JSON.stringify(h.github.requests.at(-1)!.json)).toContain('[REDACTED:EMAIL_ADDRESS]');
    expect((await createIssue(other, 'from ada@example.com')).body.result.isError).toBe(true);

    expect((await request(h.url, s.org.master_key, 'DELETE', `/api/v1/tool-packs/${s.packId}/security-rules/${rule.id}/override/`)).status).toBe(204);
    expect((await createIssue(s, 'from ada@example.com')).body.result.content[0].text).toMatch(/Blocked by security rule/);
  });

  it('a disabled rule does nothing until a pack enables it', async () => {
    const s = await scenario(h);
    const rule = await createRule(s, { name: 'Pack-only rule', detector: 'EMAIL_ADDRESS', direction: 'inbound', action: 'block', enabled: false });
    expect((await createIssue(s, 'from ada@example.com')).body.result.isError).toBeFalsy();
    await request(h.url, s.org.master_key, 'PUT', `/api/v1/tool-packs/${s.packId}/security-rules/${rule.id}/override/`, { enabled: true });
    expect((await createIssue(s, 'from ada@example.com')).body.result.isError).toBe(true);
  });

  it('detections are recorded on the tool-call record without the raw value', async () => {
    const s = await scenario(h);
    const rule = await createRule(s, { name: 'No emails to tools', detector: 'EMAIL_ADDRESS', direction: 'inbound', action: 'redact' });
    await createIssue(s, 'Reported by ada@example.com and bob@example.org');
    const [record] = await recordsOnceThere(s, '&tool_name=github__create_issue');
    expect(record.detections).toEqual([{ rule_id: rule.id, rule_name: 'No emails to tools', kind: 'EMAIL_ADDRESS', direction: 'inbound', action: 'redact', path: '$.input.body', count: 2 }]);
    expect(JSON.stringify(record)).not.toMatch(/ada@|bob@/);
  });

  it('a blocked call is recorded as blocked, with one credit', async () => {
    const s = await scenario(h);
    await createRule(s, { name: 'No cloud keys', detector: 'SECRET', direction: 'inbound', action: 'block' });
    await createIssue(s, 'AKIAIOSFODNN7EXAMPLE');
    const [record] = await recordsOnceThere(s, '&status=blocked');
    expect(record).toMatchObject({ status: 'blocked', error_code: 'security_rule_blocked', credits: 1, tool_name: 'github__create_issue' });
    expect(JSON.stringify(record)).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });
});

describe('rule changes reach every replica', () => {
  it('a rule created through one replica applies at the next call on another that had cached the pack without it', async () => {
    const s = await scenario(h);
    const other = await h.startReplica();
    const viaOther = (body: string) =>
      rpc(s.mcpUrl.replace(h.url, other), s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__create_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', title: 'x', body } } } });
    // The other replica compiles (and caches, for a minute) the pack's empty rule set.
    expect((await viaOther('from ada@example.com')).body.result.isError).toBeFalsy();
    await createRule(s, { name: 'No emails to tools', detector: 'EMAIL_ADDRESS', direction: 'inbound', action: 'block' });
    // Redis pub/sub delivers the change within moments; no call on the other replica is served from the old set after it.
    let text = '';
    await waitFor(async () => {
      text = (await viaOther('from ada@example.com')).body.result.content[0].text as string;
      return text.startsWith('Blocked by security rule');
    });
    expect(text).toMatch(/"No emails to tools"/);
  });
});
