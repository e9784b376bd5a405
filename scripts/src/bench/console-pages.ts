/**
 * The console pages `pnpm bench console` loads, one line each. `ready` is what makes the page usable:
 * a CSS selector that matches once its main table (or figures) shows data from the API; by default the
 * first row of the page's first table body. Add a page here when it is added to the console
 * (apps/console/web/src/app.tsx and web/src/pages/<area>/routes.ts).
 */
export interface ConsolePage {
  /**
   * The console path, as in the address bar after /console. `{linkedAccountId}` becomes the seeded linked
   * account holding most events (91% of them).
   */
  path: string;
  /** Default: the first row of a table body inside <main>'s frame with at least one cell. */
  ready?: string;
}

export const DEFAULT_READY = 'table tbody tr td';

export const CONSOLE_PAGES: ConsolePage[] = [
  { path: '/', ready: '[data-overview-ready] table tbody tr td' },
  { path: '/members' },
  { path: '/access-keys' },
  { path: '/audit-log' },
  // Tool connectors
  { path: '/registered-users' },
  { path: '/connections' },
  { path: '/tool-call-records' },
  // Usable once the per-day chart from GET /api/v1/usage/daily is drawn (its table is folded away).
  { path: '/credits', ready: 'section[aria-labelledby="per-day-heading"] svg' },
  // Model gateway
  { path: '/keys' },
  { path: '/usage' },
  // Unified data
  { path: '/linked-accounts' },
  { path: '/events?linked_account_id={linkedAccountId}' },
];
