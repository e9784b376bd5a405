import { migrationSlug, migrationTimestamp } from './diff';

describe('migrationTimestamp', () => {
  it('names a migration by the UTC time it was generated, to the second', () => {
    expect(migrationTimestamp(new Date('2026-03-04T05:06:07.890Z'), ['20260101000000_init'])).toBe('20260304050607');
  });

  it('sorts a new migration after a committed one dated ahead of the clock', () => {
    expect(migrationTimestamp(new Date('2026-03-04T05:06:07Z'), ['20260101000000_init', '20261231235959_later'])).toBe('20270101000000');
  });
});

describe('migrationSlug', () => {
  it('keeps letters, digits and underscores, like the folder names prisma migrate dev writes', () => {
    expect(migrationSlug('add audit-log index')).toBe('add_audit_log_index');
  });

  it('falls back to "migration" when no usable name is given', () => {
    expect(migrationSlug(undefined)).toBe('migration');
    expect(migrationSlug(' -- ')).toBe('migration');
  });
});
