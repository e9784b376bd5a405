import { WRITE, inputSchema, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { hubspotRequest, type HubspotObject } from './client';

/** HubSpot's built-in association type for note-to-contact (https://developers.hubspot.com/docs/api/crm/associations). */
const NOTE_TO_CONTACT = 202;

export const createNote: ToolDefinition<{ contact_id: string; body: string; timestamp?: string }> = {
  name: 'create_note',
  description: 'Log a note on a HubSpot contact\'s timeline (for example a summary of a call or meeting).',
  input_schema: inputSchema(
    {
      contact_id: str('ID of the contact the note is about', { minLength: 1 }),
      body: str('Note text (HTML allowed), up to 65,536 characters', { minLength: 1, maxLength: 65536 }),
      timestamp: str('When the noted activity happened, ISO 8601; defaults to now', { format: 'date-time' }),
    },
    ['contact_id', 'body'],
  ),
  output_schema: objectSchema(
    { id: str('Note ID'), body: str('Note text'), timestamp: str('Timeline time, ISO 8601'), contact_id: str('Contact the note is associated with'), created_at: str('ISO 8601') },
    ['id', 'body', 'contact_id'],
  ),
  annotations: WRITE,
  async execute(ctx, input) {
    const timestamp = input.timestamp ?? new Date().toISOString();
    const res = await hubspotRequest<HubspotObject>(ctx, {
      method: 'POST',
      path: '/crm/v3/objects/notes',
      json: {
        properties: { hs_note_body: input.body, hs_timestamp: timestamp },
        associations: [{ to: { id: input.contact_id }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: NOTE_TO_CONTACT }] }],
      },
    });
    return { id: res.data.id, body: res.data.properties.hs_note_body ?? input.body, timestamp: res.data.properties.hs_timestamp ?? timestamp, contact_id: input.contact_id, created_at: res.data.createdAt };
  },
};
