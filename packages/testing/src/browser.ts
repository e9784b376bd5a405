import { existsSync } from 'node:fs';

/**
 * Debian's chromium for browser tests (playwright cannot download its own browsers here). Pass these
 * to playwright-core's `chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })`.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless as root, and quiet: without the background-networking flags the closed network refuses its calls home. */
export const CHROMIUM_ARGS: readonly string[] = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]);

/** Whether the browser is installed; when it is not, say how to install it. */
export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}
