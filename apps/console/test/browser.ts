/// <reference lib="dom" />
import { MEMBER_PASSWORD } from '@patchbay/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seriousAxeViolations } from './axe';
import { overflowAt } from './reflow';

/** A member in a browser context of their own, and what went wrong in their pages. */
export interface Actor {
  context: BrowserContext;
  page: Page;
  /** Page errors and console errors that are not among the answers the test expects. */
  problems: string[];
}

/**
 * Collects the page's errors, and console errors except failed requests whose status the test asks
 * for on purpose (`expected`: the statuses as a regular expression, for example /40[13]/: a 401
 * before sign-in and the 403s a test provokes are answers, not problems).
 */
export function watchProblems(page: Page, problems: string[], expected: RegExp): void {
  const expectedStatus = new RegExp(`status of (${expected.source})`);
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !expectedStatus.test(msg.text())) problems.push(`${msg.text()} ${msg.location().url}`);
  });
}

export interface ConsoleBrowserOptions {
  /** The browser and the installation's public URL (the edge), read when used: both start in beforeAll. */
  browser(): Browser;
  publicUrl(): string;
  /** Statuses of failed requests the test provokes on purpose. Default 401 and 403. */
  expectedStatuses?: RegExp;
  /** Lets pages read and write the clipboard (the copy buttons). */
  clipboard?: boolean;
  /** Default 1400 × 900. */
  viewport?: { width: number; height: number };
}

/** What every console browser test does: sign in as a member, open a page, check it with axe-core and in a narrow window, call an API as the console does. */
export function consoleBrowser(options: ConsoleBrowserOptions) {
  const expected = options.expectedStatuses ?? /40[13]/;

  async function newActor(): Promise<Actor> {
    const context = await options.browser().newContext({ viewport: options.viewport ?? { width: 1400, height: 900 } });
    if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: options.publicUrl() });
    const page = await context.newPage();
    const problems: string[] = [];
    watchProblems(page, problems, expected);
    return { context, page, problems };
  }

  /** A new browser context signed in with the member's password, landing on `next`. */
  async function signIn(email: string, next: string): Promise<Actor> {
    const actor = await newActor();
    await actor.page.goto(`${options.publicUrl()}/console/sign-in?next=${encodeURIComponent(next)}`);
    await actor.page.getByLabel('Email').fill(email);
    await actor.page.getByLabel('Password').fill(MEMBER_PASSWORD);
    await actor.page.getByRole('button', { name: 'Sign in' }).click();
    return actor;
  }

  /** Goes to a console page and waits for its heading. */
  async function open(actor: Actor, pagePath: string, heading: string | RegExp): Promise<void> {
    await actor.page.goto(`${options.publicUrl()}/console${pagePath}`);
    await actor.page.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  async function expectAccessible(actor: Actor): Promise<void> {
    await expectPageAccessible(actor.page);
  }

  return { newActor, signIn, open, expectAccessible, callApi };
}

/** axe-core finds no serious violation on the page, and it still fits a narrow window (WCAG 1.4.10, reflow). */
export async function expectPageAccessible(page: Page): Promise<void> {
  expect(await seriousAxeViolations(page)).toEqual([]);
  expect({ sticksOut: await overflowAt(page) }).toEqual({ sticksOut: [] });
}

/** Calls an API from the page as the console does: the session cookie and the anti-forgery token. */
export async function callApi(page: Page, method: string, apiPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ method, apiPath, body }) => {
      const session = (await (await fetch('/api/v1/session')).json()) as { csrf_token: string };
      const headers: Record<string, string> = { 'x-csrf-token': session.csrf_token };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(apiPath, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
    },
    { method, apiPath, body },
  );
}
