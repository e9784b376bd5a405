/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable } from '@patchbay/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createConsoleHandler } from '../src/server';
import { expectPageAccessible } from './browser';
import { SECURITY_HEADERS, createStaticSite } from '../src/static-site';

/**
 * The console as a browser gets it: the built app (Vite's output in dist/web, which `pnpm test` builds
 * first) served by the console's own server, at the edge router's /console/ and behind a reverse proxy
 * that serves Patchbay under /tools/patchbay/.
 */
const WEB_DIR = path.join(__dirname, '..', 'dist', 'web');

async function serve(paths: { basePath: string; apiBasePath: string }): Promise<{ url: string; server: Server }> {
  const server = createServer(createConsoleHandler(createStaticSite(WEB_DIR, paths)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let direct: { url: string; server: Server };
let proxied: { url: string; server: Server };

beforeAll(async () => {
  direct = await serve({ basePath: '/console/', apiBasePath: '/' });
  proxied = await serve({ basePath: '/tools/patchbay/console/', apiBasePath: '/tools/patchbay/' });
});

afterAll(async () => {
  for (const s of [direct, proxied]) await new Promise((resolve) => s?.server.close(resolve));
});

describe('the console server', () => {
  it('answers every page path with the app, carrying this installation\'s base paths and a strict Content-Security-Policy', async () => {
    for (const pagePath of ['/console/', '/console/sign-in', '/console/members/2b0c7c43-7d7e-4f0a-9d3b-3f0f0e3c0a11']) {
      const res = await fetch(direct.url + pagePath);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name)).toBe(value);
      const html = await res.text();
      expect(html).toContain('<base href="/console/">');
      expect(html).toContain('<meta name="patchbay-api-base" content="/">');
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script for the policy to allow
    }
  });

  it('behind a reverse proxy on a sub-path, the base path set at run time is the one the page uses, whether or not the proxy strips its prefix', async () => {
    for (const pagePath of ['/tools/patchbay/console/sign-in', '/console/sign-in']) {
      const html = await (await fetch(proxied.url + pagePath)).text();
      expect(html).toContain('<base href="/tools/patchbay/console/">');
      expect(html).toContain('<meta name="patchbay-api-base" content="/tools/patchbay/">');
    }
    const bare = await fetch(`${proxied.url}/tools/patchbay/console?x=1`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/tools/patchbay/console/?x=1');
  });

  it('serves hashed assets cached for a year, and 404 for an asset that does not exist', async () => {
    const html = await (await fetch(`${direct.url}/console/`)).text();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${direct.url}/console/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${direct.url}/console/assets/nope.js`)).status).toBe(404);
  });

  it('refuses what is not a page request with a clear status: other methods 405, bad percent-encoding 400, paths outside the console 404', async () => {
    const post = await fetch(`${direct.url}/console/sign-in`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${direct.url}/console/%E0%A4%A`)).status).toBe(400);
    expect((await fetch(`${direct.url}/elsewhere`)).status).toBe(404);
    expect(await (await fetch(`${direct.url}/healthz`)).json()).toMatchObject({ status: 'ok', service: 'console' });
  });
});

const describeInBrowser = chromiumAvailable() || process.env.CI ? describe : describe.skip;
if (!chromiumAvailable()) console.warn(`console browser tests skipped: ${CHROMIUM_PATH} is missing (apt-get install -y chromium)`);

describeInBrowser('the console in a real browser', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** A page that records every console error and failed request, the policy's refusals among them. */
  async function open(url: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('response', (res) => {
      if (res.url().includes('/assets/') && res.status() !== 200) problems.push(`${res.status()} ${res.url()}`);
    });
    await page.goto(url);
    return { page, problems };
  }

  it('renders the sign-in page, labelled and accessible, with nothing in storage a script could read', async () => {
    const { page, problems } = await open(`${direct.url}/console/sign-in`);
    await page.getByRole('heading', { name: 'Sign in to Patchbay' }).waitFor();
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill('not-the-password');
    expect(await page.getByRole('button', { name: 'Sign in' }).isEnabled()).toBe(true);
    await expectPageAccessible(page);
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 0, '']);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('loads its assets from the run-time base path behind a reverse proxy on a sub-path', async () => {
    const { page, problems } = await open(`${proxied.url}/tools/patchbay/console/sign-in`);
    await page.getByRole('heading', { name: 'Sign in to Patchbay' }).waitFor();
    expect(page.url()).toBe(`${proxied.url}/tools/patchbay/console/sign-in`);
    expect(problems).toEqual([]);
    await page.close();
  });
});
