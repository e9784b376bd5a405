import { BUILTIN_CONNECTORS } from '../src/catalog';

const SNAKE = /^[a-z][a-z0-9_]*$/;

describe('built-in connector catalog', () => {
  it('has at least 10 connectors and 60 tools, including the two that work offline (PostgreSQL, generic HTTP)', () => {
    expect(BUILTIN_CONNECTORS.length).toBeGreaterThanOrEqual(10);
    expect(BUILTIN_CONNECTORS.reduce((n, c) => n + c.tools.length, 0)).toBeGreaterThanOrEqual(60);
    for (const slug of ['github', 'slack', 'linear', 'jira', 'notion', 'google-calendar', 'gmail', 'hubspot', 'zendesk', 'postgresql', 'http']) {
      expect(BUILTIN_CONNECTORS.map((c) => c.slug)).toContain(slug);
    }
  });

  it('has unique slugs and, per connector, unique snake_case tool names', () => {
    const slugs = BUILTIN_CONNECTORS.map((c) => c.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const c of BUILTIN_CONNECTORS) {
      expect(c.slug).toMatch(/^[a-z][a-z0-9-]*$/);
      const names = c.tools.map((t) => t.name);
      expect(new Set(names).size).toBe(names.length);
      for (const n of names) expect(n).toMatch(SNAKE);
      // Fully qualified names are <slug>__<tool>; a double underscore inside either part would be ambiguous.
      for (const n of names) expect(n.includes('__')).toBe(false);
    }
  });

  it.each(BUILTIN_CONNECTORS.map((c) => [c.slug, c] as const))('%s: every tool has an input schema with a required top-level input object, an output schema and annotations', (_slug, c) => {
    expect(c.name && c.description && c.logo_url && c.source_url && c.default_base_url).toBeTruthy();
    expect(c.categories.length).toBeGreaterThan(0);
    expect(c.auth_options.length).toBeGreaterThan(0);
    for (const option of c.auth_options) {
      if (option.type === 'oauth2') {
        expect(option.oauth2.authorize_url).toMatch(/^https:\/\//);
        expect(option.oauth2.token_url).toMatch(/^https:\/\//);
      } else {
        expect(option.credential_fields.length).toBeGreaterThan(0);
      }
    }
    for (const t of c.tools) {
      expect(t.description.length).toBeGreaterThan(20);
      expect(t.input_schema).toMatchObject({ type: 'object', required: ['input'], properties: { input: { type: 'object' } } });
      expect(t.output_schema).toMatchObject({ type: 'object' });
      expect(typeof t.annotations.readOnlyHint).toBe('boolean');
      expect(typeof t.annotations.destructiveHint).toBe('boolean');
      expect(typeof t.annotations.idempotentHint).toBe('boolean');
      expect(typeof t.annotations.openWorldHint).toBe('boolean');
      if (t.annotations.readOnlyHint) expect(t.annotations.destructiveHint).toBe(false);
    }
  });
});
