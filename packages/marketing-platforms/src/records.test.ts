import { applyFieldMappings, canonicalJson, isoOrNull, readPath, recordHash } from './records';
import { checkFieldMapping, supportedFieldsFor } from './sync';

describe('record hashes and field mappings', () => {
  it('writes canonical JSON: keys sorted at every level, undefined members left out', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined, x: null }], c: 'é' } })).toBe('{"a":{"c":"é","d":[3,{"x":null,"z":1}]},"b":1}');
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
  });

  it('gives the same hash whatever the key order, another for any real change', () => {
    const a = recordHash({ name: 'x', start: null }, {}, [{ path: '/p', data: { id: 1, n: 'a' } }]);
    const b = recordHash({ start: null, name: 'x' }, {}, [{ path: '/p', data: { n: 'a', id: 1 } }]);
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(recordHash({ name: 'x', start: null }, {}, [{ path: '/p', data: { id: 1, n: 'b' } }])).not.toBe(a);
    expect(recordHash({ name: 'x', start: null }, { linked_account_defined_targets: { t: 1 } }, [{ path: '/p', data: { id: 1, n: 'a' } }])).not.toBe(a);
  });

  it('reads dot paths into objects, arrays by index and name/value lists by name', () => {
    const data = { profile: { addresses: { home: { country: 'US' } } }, custom_questions: [{ title: 'Team size', value: '10' }], customProperties: [{ name: 'region', value: 'EMEA' }], list: ['a', 'b'] };
    expect(readPath(data, 'profile.addresses.home.country')).toBe('US');
    expect(readPath(data, 'custom_questions.Team size')).toBe('10');
    expect(readPath(data, 'customProperties.region')).toBe('EMEA');
    expect(readPath(data, 'list.1')).toBe('b');
    expect(readPath(data, 'profile.nothing.deeper')).toBeUndefined();
    expect(applyFieldMappings([{ model: 'events', target: 't', remotePath: 'list.0' }, { model: 'contacts', target: 'other', remotePath: 'list.1' }], 'events', data)).toEqual({
      organization_defined_targets: {},
      linked_account_defined_targets: { t: 'a' },
    });
  });

  it('turns platform timestamps into ISO 8601 UTC with milliseconds', () => {
    expect(isoOrNull('2026-01-01T00:00:00Z')).toBe('2026-01-01T00:00:00.000Z');
    expect(isoOrNull(1767225600000)).toBe('2026-01-01T00:00:00.000Z');
    expect(isoOrNull('not a date')).toBeNull();
    expect(isoOrNull('')).toBeNull();
  });

  it('validates a field mapping against the platform\'s fields and says what to use instead', () => {
    expect(supportedFieldsFor('zoom', 'contacts')).toContain('job_title');
    expect(checkFieldMapping('hubspot', { model: 'events', target: 'region', remotePath: 'customProperties.region' })).toBeNull();
    expect(checkFieldMapping('hubspot', { model: 'contacts', target: 'title', remotePath: 'properties.jobtitle' })).toBeNull();
    expect(checkFieldMapping('eventbrite', { model: 'contacts', target: 'country', remotePath: 'profile.addresses.work.country' })).toBeNull();
    expect(checkFieldMapping('eventbrite', { model: 'events', target: 'venue', remotePath: 'venue.name' })).toMatch(/not a eventbrite events field; use one of: id, name.text/);
    expect(checkFieldMapping('zoom', { model: 'events', target: 'bad target!', remotePath: 'topic' })).toMatch(/target/);
    expect(checkFieldMapping('zoom', { model: 'events', target: 't', remotePath: 'topic..x' })).toMatch(/dot-separated/);
    expect(checkFieldMapping('hubspot', { model: 'events', target: 't', remotePath: 'customProperties.' })).not.toBeNull();
  });
});
