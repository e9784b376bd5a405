import { encodePath } from '../../core/provider-http';
import { IDEMPOTENT_WRITE, READ_ONLY, WRITE, arr, inputSchema, int, limit, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { JsonSchema, ToolDefinition } from '../../core/types';
import { hubspotRequest, type HubspotObject, type HubspotPage } from './client';

/** What every contact tool returns unless more properties are asked for. */
const DEFAULT_PROPERTIES = ['email', 'firstname', 'lastname', 'phone', 'company', 'jobtitle', 'lifecyclestage'];

const nullable = (description: string): JsonSchema => ({ type: ['string', 'null'], description });

export const contactSchema = objectSchema(
  {
    id: str('HubSpot contact ID'),
    email: nullable('Primary email'),
    firstname: nullable('First name'),
    lastname: nullable('Last name'),
    phone: nullable('Phone number'),
    company: nullable('Company name'),
    jobtitle: nullable('Job title'),
    lifecyclestage: nullable('Lifecycle stage'),
    properties: { type: 'object', additionalProperties: { type: ['string', 'null'] }, description: 'Every property returned, by internal name' },
    created_at: str('ISO 8601'),
    updated_at: str('ISO 8601'),
  },
  ['id', 'properties'],
);

export function toContact(c: HubspotObject) {
  const p = c.properties;
  return {
    id: c.id,
    email: p.email ?? null,
    firstname: p.firstname ?? null,
    lastname: p.lastname ?? null,
    phone: p.phone ?? null,
    company: p.company ?? null,
    jobtitle: p.jobtitle ?? null,
    lifecyclestage: p.lifecyclestage ?? null,
    properties: p,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

const extraProperties = arr(str('Internal property name'), 'More contact properties to return besides email, names, phone, company, job title and lifecycle stage');

function propertyList(extra: string[] | undefined): string[] {
  return [...new Set([...DEFAULT_PROPERTIES, ...(extra ?? [])])];
}

const OPERATORS = ['EQ', 'NEQ', 'LT', 'LTE', 'GT', 'GTE', 'BETWEEN', 'IN', 'NOT_IN', 'HAS_PROPERTY', 'NOT_HAS_PROPERTY', 'CONTAINS_TOKEN', 'NOT_CONTAINS_TOKEN'];

interface SearchInput {
  query?: string;
  filters?: Array<{ property: string; operator: string; value?: string; high_value?: string; values?: string[] }>;
  sort_by?: string;
  sort_direction?: 'ASCENDING' | 'DESCENDING';
  properties?: string[];
  limit?: number;
  after?: string;
}

export const searchContacts: ToolDefinition<SearchInput> = {
  name: 'search_contacts',
  description:
    'Search HubSpot contacts by free text (name, email, phone, company) and/or property filters (all must match), optionally sorted; page through with next_after.',
  input_schema: inputSchema({
    query: str('Free text matched against the default searchable properties (names, email, phone, company)', { minLength: 1 }),
    filters: arr(
      {
        type: 'object',
        properties: {
          property: str('Internal property name, e.g. email, lifecyclestage, createdate', { minLength: 1 }),
          operator: str('Comparison', { enum: OPERATORS }),
          value: str('Value to compare with (dates as epoch milliseconds or ISO 8601)'),
          high_value: str('Upper bound for BETWEEN'),
          values: arr(str('Value'), 'Values for IN and NOT_IN'),
        },
        required: ['property', 'operator'],
        additionalProperties: false,
      },
      'Filters that must all match',
      { maxItems: 6 },
    ),
    sort_by: str('Property to sort by', { minLength: 1 }),
    sort_direction: str('Sort direction', { enum: ['ASCENDING', 'DESCENDING'], default: 'DESCENDING' }),
    properties: extraProperties,
    limit: limit(200, 20),
    after: str('next_after from an earlier call, to get the following page', { minLength: 1 }),
  }),
  output_schema: objectSchema(
    { contacts: arr(contactSchema, 'Matching contacts'), total: int('How many contacts match in all'), next_after: nullable('Pass as `after` to get the next page; null on the last page') },
    ['contacts', 'total', 'next_after'],
  ),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const filters = (input.filters ?? []).map((f) => ({
      propertyName: f.property,
      operator: f.operator,
      ...(f.value !== undefined ? { value: f.value } : {}),
      ...(f.high_value !== undefined ? { highValue: f.high_value } : {}),
      ...(f.values !== undefined ? { values: f.values } : {}),
    }));
    const res = await hubspotRequest<HubspotPage<HubspotObject>>(ctx, {
      method: 'POST',
      path: '/crm/v3/objects/contacts/search',
      json: {
        ...(input.query ? { query: input.query } : {}),
        ...(filters.length > 0 ? { filterGroups: [{ filters }] } : {}),
        ...(input.sort_by ? { sorts: [{ propertyName: input.sort_by, direction: input.sort_direction ?? 'DESCENDING' }] } : {}),
        properties: propertyList(input.properties),
        limit: input.limit ?? 20,
        ...(input.after ? { after: input.after } : {}),
      },
    });
    return { contacts: res.data.results.map(toContact), total: res.data.total ?? res.data.results.length, next_after: res.data.paging?.next?.after ?? null };
  },
};

export const getContact: ToolDefinition<{ contact_id?: string; email?: string; properties?: string[] }> = {
  name: 'get_contact',
  description: 'Get one HubSpot contact by its ID or by email address, with its main properties and any others asked for.',
  input_schema: inputSchema({
    contact_id: str('HubSpot contact ID', { minLength: 1 }),
    email: str('Email address of the contact, instead of contact_id', { format: 'email' }),
    properties: extraProperties,
  }),
  output_schema: contactSchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    if (Boolean(input.contact_id) === Boolean(input.email)) throw new ToolError('invalid_input', 'Give exactly one of input.contact_id and input.email.');
    const res = await hubspotRequest<HubspotObject>(ctx, {
      path: encodePath('/crm/v3/objects/contacts/{id}', { id: input.contact_id ?? input.email }),
      query: { properties: propertyList(input.properties).join(','), idProperty: input.email ? 'email' : undefined },
    });
    return toContact(res.data);
  },
};

const writableProperties: Record<string, JsonSchema> = {
  email: str('Primary email', { format: 'email' }),
  firstname: str('First name'),
  lastname: str('Last name'),
  phone: str('Phone number'),
  company: str('Company name'),
  jobtitle: str('Job title'),
  lifecyclestage: str('Lifecycle stage: subscriber, lead, marketingqualifiedlead, salesqualifiedlead, opportunity, customer, evangelist, other, or a custom stage ID', { minLength: 1 }),
  properties: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Other properties by internal name, as strings (e.g. {"city": "Lyon", "hs_lead_status": "NEW"})',
  },
};

type ContactFields = { email?: string; firstname?: string; lastname?: string; phone?: string; company?: string; jobtitle?: string; lifecyclestage?: string; properties?: Record<string, string> };

function contactProperties(input: ContactFields): Record<string, string> {
  const out: Record<string, string> = { ...input.properties };
  for (const key of ['email', 'firstname', 'lastname', 'phone', 'company', 'jobtitle', 'lifecyclestage'] as const) {
    const value = input[key];
    if (value !== undefined) out[key] = value;
  }
  if (Object.keys(out).length === 0) throw new ToolError('invalid_input', 'Give at least one contact property to set.');
  return out;
}

export const createContact: ToolDefinition<ContactFields> = {
  name: 'create_contact',
  description: 'Create a HubSpot contact. HubSpot refuses a second contact with an email already in use (a conflict naming the existing contact ID).',
  input_schema: inputSchema(writableProperties),
  output_schema: contactSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    const res = await hubspotRequest<HubspotObject>(ctx, { method: 'POST', path: '/crm/v3/objects/contacts', json: { properties: contactProperties(input) } });
    return toContact(res.data);
  },
};

export const updateContact: ToolDefinition<ContactFields & { contact_id: string }> = {
  name: 'update_contact',
  description: 'Set properties of an existing HubSpot contact by ID; properties not given are left as they are, and an empty string clears one.',
  input_schema: inputSchema({ contact_id: str('HubSpot contact ID', { minLength: 1 }), ...writableProperties }, ['contact_id']),
  output_schema: contactSchema,
  annotations: IDEMPOTENT_WRITE,
  async execute(ctx, input) {
    const { contact_id: id, ...fields } = input;
    const res = await hubspotRequest<HubspotObject>(ctx, { method: 'PATCH', path: encodePath('/crm/v3/objects/contacts/{id}', { id }), json: { properties: contactProperties(fields) } });
    return toContact(res.data);
  },
};
