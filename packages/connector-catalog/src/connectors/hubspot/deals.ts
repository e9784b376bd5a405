import { READ_ONLY, arr, bool, inputSchema, limit, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { hubspotRequest, type HubspotObject, type HubspotPage } from './client';

const DEFAULT_PROPERTIES = ['dealname', 'amount', 'dealstage', 'pipeline', 'closedate', 'hubspot_owner_id'];

const dealSchema = objectSchema(
  {
    id: str('HubSpot deal ID'),
    name: { type: ['string', 'null'], description: 'Deal name' },
    amount: { type: ['number', 'null'], description: 'Amount in the deal currency' },
    stage: { type: ['string', 'null'], description: 'Deal stage ID' },
    pipeline: { type: ['string', 'null'], description: 'Pipeline ID' },
    close_date: { type: ['string', 'null'], description: 'Expected close date, ISO 8601' },
    owner_id: { type: ['string', 'null'], description: 'HubSpot owner ID' },
    properties: { type: 'object', additionalProperties: { type: ['string', 'null'] }, description: 'Every property returned, by internal name' },
    created_at: str('ISO 8601'),
    updated_at: str('ISO 8601'),
  },
  ['id', 'properties'],
);

function toDeal(d: HubspotObject) {
  const p = d.properties;
  const amount = p.amount === null || p.amount === undefined || p.amount === '' ? null : Number(p.amount);
  return {
    id: d.id,
    name: p.dealname ?? null,
    amount: amount !== null && Number.isFinite(amount) ? amount : null,
    stage: p.dealstage ?? null,
    pipeline: p.pipeline ?? null,
    close_date: p.closedate ?? null,
    owner_id: p.hubspot_owner_id ?? null,
    properties: p,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

export const listDeals: ToolDefinition<{ limit?: number; after?: string; properties?: string[]; archived?: boolean }> = {
  name: 'list_deals',
  description: 'List HubSpot deals with name, amount, stage, pipeline, close date and owner; page through with next_after.',
  input_schema: inputSchema({
    limit: limit(100, 20),
    after: str('next_after from an earlier call, to get the following page', { minLength: 1 }),
    properties: arr(str('Internal property name'), 'More deal properties to return'),
    archived: bool('List archived deals instead of active ones', { default: false }),
  }),
  output_schema: objectSchema({ deals: arr(dealSchema, 'Deals'), next_after: { type: ['string', 'null'], description: 'Pass as `after` to get the next page; null on the last page' } }, ['deals', 'next_after']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await hubspotRequest<HubspotPage<HubspotObject>>(ctx, {
      path: '/crm/v3/objects/deals',
      query: {
        limit: input.limit ?? 20,
        after: input.after,
        properties: [...new Set([...DEFAULT_PROPERTIES, ...(input.properties ?? [])])].join(','),
        archived: input.archived ?? false,
      },
    });
    return { deals: res.data.results.map(toDeal), next_after: res.data.paging?.next?.after ?? null };
  },
};
