/**
 * Preload entry: `node -r @patchbay/telemetry/register dist/main.js`. Starting here, before the
 * service's main runs, guarantees the instrumentations are in place before express, http, pg or
 * ioredis are first required, whatever the main imports.
 *
 * The service's main can still call `startTelemetry(...)`: it gets this handle back (one SDK per
 * process) and should hand its `shutdown` to the graceful-shutdown hooks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tracingRequested } from './env';
import { startTelemetry } from './start';

interface PackageIdentity {
  name: string;
  version?: string;
}

/** Services are started from their own folder; its package.json names the service. */
function packageIdentity(dir: string): PackageIdentity {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
    if (typeof pkg.name === 'string' && pkg.name !== '') {
      return { name: pkg.name.replace(/^@patchbay\//, ''), version: typeof pkg.version === 'string' ? pkg.version : undefined };
    }
  } catch {
    // No readable package.json: the SDK's own default name applies.
  }
  return { name: 'unknown_service:node' };
}

// Reading package.json is skipped when tracing is off: a disabled service pays nothing.
const identity = tracingRequested() ? packageIdentity(process.cwd()) : { name: 'unknown_service:node' };
startTelemetry({ serviceName: identity.name, serviceVersion: identity.version });
