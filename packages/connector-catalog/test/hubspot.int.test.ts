import { HUBSPOT_FAKE_TOKENS, startFakeHubspot } from '@patchbay/provider-fakes';
import { findTool, getBuiltinConnector } from '../src/catalog';
import type { InjectedCredential } from '../src/core/types';
import { validateToolArguments } from '../src/core/validate';
import { expectToolError, runTool } from './run-tool';

let fake: Awaited<ReturnType<typeof startFakeHubspot>>;
const bearer = (token: string): InjectedCredential => ({ auth_type: 'bearer_token', values: { token } });
const lastRequest = () => fake.requests.at(-1)!;

/** Runs a tool and checks its output against the tool's output_schema. */
async function run(tool: string, input: unknown, credential: InjectedCredential = bearer(HUBSPOT_FAKE_TOKENS.valid)): Promise<unknown> {
  const output = await runTool('hubspot', tool, { input }, { credential, baseUrl: fake.url });
  expect(validateToolArguments({ input_schema: findTool(getBuiltinConnector('hubspot')!, tool)!.output_schema }, output)).toEqual([]);
  return output;
}

interface Contact {
  id: string;
  email: string | null;
  firstname: string | null;
  lastname: string | null;
  company: string | null;
  lifecyclestage: string | null;
  properties: Record<string, string | null>;
}

const DEFAULTS = ['email', 'firstname', 'lastname', 'phone', 'company', 'jobtitle', 'lifecyclestage'];

beforeAll(async () => {
  fake = await startFakeHubspot({ contacts: 30, deals: 25 });
});
afterAll(async () => {
  await fake.close();
});

describe('hubspot connector', () => {
  it('search_contacts pages through matches with paging.next.after, sending the token as a bearer header', async () => {
    const first = (await run('search_contacts', { filters: [{ property: 'company', operator: 'EQ', value: 'Acme' }], limit: 10 })) as { contacts: Contact[]; total: number; next_after: string | null };
    const request = lastRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/crm/v3/objects/contacts/search');
    expect(request.headers.authorization).toBe(`Bearer ${HUBSPOT_FAKE_TOKENS.valid}`);
    expect(request.json).toEqual({ filterGroups: [{ filters: [{ propertyName: 'company', operator: 'EQ', value: 'Acme' }] }], properties: DEFAULTS, limit: 10 });
    expect(first.total).toBe(15);
    expect(first.contacts).toHaveLength(10);
    expect(first.contacts.every((c) => c.company === 'Acme')).toBe(true);
    expect(first.next_after).toBe('10');

    const second = (await run('search_contacts', { filters: [{ property: 'company', operator: 'EQ', value: 'Acme' }], limit: 10, after: first.next_after })) as { contacts: Contact[]; next_after: string | null };
    expect((lastRequest().json as { after: string }).after).toBe('10');
    expect(second.contacts).toHaveLength(5);
    expect(second.next_after).toBeNull();
    expect(new Set([...first.contacts, ...second.contacts].map((c) => c.id)).size).toBe(15);
  });

  it('search_contacts sends free text, sorts and extra properties', async () => {
    const res = (await run('search_contacts', { query: 'last7', sort_by: 'createdate', sort_direction: 'DESCENDING', properties: ['city'] })) as { contacts: Contact[] };
    expect(lastRequest().json).toEqual({ query: 'last7', sorts: [{ propertyName: 'createdate', direction: 'DESCENDING' }], properties: [...DEFAULTS, 'city'], limit: 20 });
    expect(res.contacts.map((c) => c.lastname)).toEqual(['Last7']);
    expect(res.contacts[0]!.properties).toHaveProperty('city', null);
  });

  it('get_contact reads a contact by ID, and by email with idProperty=email', async () => {
    const byId = (await run('get_contact', { contact_id: '103' })) as Contact;
    expect(lastRequest().path).toBe('/crm/v3/objects/contacts/103');
    expect(lastRequest().query.get('properties')).toBe(DEFAULTS.join(','));
    expect(lastRequest().query.get('idProperty')).toBeNull();
    expect(byId).toMatchObject({ id: '103', email: 'person3@globex.com', firstname: 'First3', lifecyclestage: 'customer' });

    const byEmail = (await run('get_contact', { email: 'person4@acme.com' })) as Contact;
    expect(lastRequest().path).toBe('/crm/v3/objects/contacts/person4%40acme.com');
    expect(lastRequest().query.get('idProperty')).toBe('email');
    expect(byEmail).toMatchObject({ id: '104', company: 'Acme' });
  });

  it('create_contact posts the properties and returns the new contact', async () => {
    const contact = (await run('create_contact', { email: 'new@initech.com', firstname: 'Peter', lastname: 'Gibbons', company: 'Initech', properties: { city: 'Austin' } })) as Contact;
    expect(lastRequest().method).toBe('POST');
    expect(lastRequest().path).toBe('/crm/v3/objects/contacts');
    expect(lastRequest().json).toEqual({ properties: { city: 'Austin', email: 'new@initech.com', firstname: 'Peter', lastname: 'Gibbons', company: 'Initech' } });
    expect(contact).toMatchObject({ email: 'new@initech.com', firstname: 'Peter', company: 'Initech', properties: { city: 'Austin' } });
    expect(fake.contacts.some((c) => c.id === contact.id)).toBe(true);
  });

  it('create_contact with an email already in use is a conflict naming the existing contact', async () => {
    const err = await expectToolError(run('create_contact', { email: 'person1@globex.com' }), 'conflict');
    expect(err.message).toContain('Contact already exists. Existing ID: 101');
  });

  it('update_contact patches only the given properties', async () => {
    const contact = (await run('update_contact', { contact_id: '102', lifecyclestage: 'customer', jobtitle: 'CTO' })) as Contact;
    expect(lastRequest().method).toBe('PATCH');
    expect(lastRequest().path).toBe('/crm/v3/objects/contacts/102');
    expect(lastRequest().json).toEqual({ properties: { jobtitle: 'CTO', lifecyclestage: 'customer' } });
    expect(contact).toMatchObject({ id: '102', lifecyclestage: 'customer', firstname: 'First2', properties: { jobtitle: 'CTO' } });
  });

  it('maps HubSpot\'s VALIDATION_ERROR to invalid input naming the bad property', async () => {
    const err = await expectToolError(run('update_contact', { contact_id: '102', properties: { favourite_colour: 'blue' } }), 'invalid_input');
    expect(err.status).toBe(400);
    expect(err.message).toContain('Property "favourite_colour" does not exist');
    expect(err.message).toContain('VALIDATION_ERROR');
  });

  it('list_deals pages with limit and after, asking for the deal properties', async () => {
    const first = (await run('list_deals', { limit: 20 })) as { deals: Array<{ id: string; name: string; amount: number | null; stage: string }>; next_after: string | null };
    const request = lastRequest();
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/crm/v3/objects/deals');
    expect(request.query.get('limit')).toBe('20');
    expect(request.query.get('archived')).toBe('false');
    expect(request.query.get('properties')).toBe('dealname,amount,dealstage,pipeline,closedate,hubspot_owner_id');
    expect(first.deals).toHaveLength(20);
    expect(first.deals[0]).toMatchObject({ id: '5001', name: 'Deal 1', amount: 1000, stage: 'appointmentscheduled', pipeline: 'default' });
    expect(first.next_after).toEqual(expect.any(String));

    const second = (await run('list_deals', { limit: 20, after: first.next_after })) as { deals: Array<{ id: string }>; next_after: string | null };
    expect(lastRequest().query.get('after')).toBe(first.next_after);
    // Deals 10 and 20 are archived, so 23 active deals remain.
    expect(second.deals).toHaveLength(3);
    expect(second.next_after).toBeNull();
  });

  it('create_note logs a note associated with the contact through association type 202', async () => {
    const note = (await run('create_note', { contact_id: '105', body: 'Called about renewal.', timestamp: '2026-03-01T10:00:00.000Z' })) as { id: string; body: string; contact_id: string; timestamp: string };
    expect(lastRequest().method).toBe('POST');
    expect(lastRequest().path).toBe('/crm/v3/objects/notes');
    expect(lastRequest().json).toEqual({
      properties: { hs_note_body: 'Called about renewal.', hs_timestamp: '2026-03-01T10:00:00.000Z' },
      associations: [{ to: { id: '105' }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 202 }] }],
    });
    expect(note).toMatchObject({ body: 'Called about renewal.', contact_id: '105', timestamp: '2026-03-01T10:00:00.000Z' });
    expect(fake.notes.find((n) => n.id === note.id)?.associations).toEqual([{ toObjectType: 'contacts', toId: '105', typeId: 202 }]);
  });

  it('refuses arguments that fail the input schema before calling HubSpot', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('search_contacts', { limit: 500, filters: [{ property: 'email', operator: 'LIKE' }] }), 'invalid_input');
    expect(err.message).toContain('input.limit must be <= 200');
    expect(err.message).toContain('input.filters.0.operator: must be one of');
    await expectToolError(run('create_note', { contact_id: '101' }), 'invalid_input');
    await expectToolError(run('get_contact', { contact_id: '101', email: 'person1@globex.com' }), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('maps 401 INVALID_AUTHENTICATION to a rejected credential, without echoing the token', async () => {
    const err = await expectToolError(run('get_contact', { contact_id: '101' }, bearer('pat-na1-wrong')), 'credential_rejected');
    expect(err.message).toContain('Authentication credentials not found');
    expect(err.message).toContain('reconnect HubSpot');
    expect(err.message).not.toContain('pat-na1-wrong');
  });

  it('maps 404 OBJECT_NOT_FOUND to not found', async () => {
    const err = await expectToolError(run('get_contact', { contact_id: '999999' }), 'not_found');
    expect(err.message).toContain('OBJECT_NOT_FOUND');
    await expectToolError(run('create_note', { contact_id: '999999', body: 'x' }), 'not_found');
  });

  it('maps 403 MISSING_SCOPES to forbidden', async () => {
    const err = await expectToolError(run('list_deals', {}, bearer(HUBSPOT_FAKE_TOKENS.noDealScope)), 'forbidden');
    expect(err.message).toContain('MISSING_SCOPES');
  });

  it('maps 429 RATE_LIMITS to rate_limited, waiting out the window HubSpot names in its headers', async () => {
    const err = await expectToolError(run('search_contacts', {}, bearer(HUBSPOT_FAKE_TOKENS.rateLimited)), 'rate_limited');
    expect(err.status).toBe(429);
    expect(err.retryAfterSeconds).toBe(10);
    expect(err.message).toContain('ten_secondly_rolling');
  });

  it('maps a 5xx to a provider error', async () => {
    const err = await expectToolError(run('list_deals', {}, bearer(HUBSPOT_FAKE_TOKENS.failing)), 'provider_error');
    expect(err.status).toBe(502);
  });
});
