import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './suite';

const run = promisify(execFile);

type Say = (message: string) => void;

/** The admin CLI of access-keys-and-audit, run with the suite's environment. */
const CLI = path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js');

async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<unknown> {
  const { stdout } = await run(process.execPath, [CLI, ...args], { env, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout);
}

export interface EncryptionKeys {
  keys: string;
  /** True when this start made the key (a fresh checkout or a deleted .data). */
  created: boolean;
  file: string | undefined;
}

/**
 * Secrets at rest (user credentials, OAuth client secrets) need a stable key: made once, kept in
 * <dataDir>/encryption-keys (readable only by you). The id names the checkout that made it, so an
 * error about a secret sealed elsewhere says which key is missing.
 */
export function encryptionKeys(env: NodeJS.ProcessEnv, dataDir: string): EncryptionKeys {
  if (env.PATCHBAY_ENCRYPTION_KEYS) return { keys: env.PATCHBAY_ENCRYPTION_KEYS, created: false, file: undefined };
  const file = path.join(dataDir, 'encryption-keys');
  if (existsSync(file)) return { keys: readFileSync(file, 'utf8').trim(), created: false, file };
  const keys = `local-${randomBytes(4).toString('hex')}:${randomBytes(32).toString('base64')}`;
  writeFileSync(file, `${keys}\n`, { mode: 0o600 });
  return { keys, created: true, file };
}

interface OrganizationSummary {
  organization_id: string;
  name: string;
}

export interface FirstRunOptions {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  encryption: EncryptionKeys;
  say: Say;
}

/**
 * On the very first start there is no organization: one is made so a newcomer can call the API at
 * once, and its keys are printed and saved. A database that already has organizations gets no new
 * keys (stored keys are hashes: nobody can print them again), so say so and say how to get one.
 */
export async function firstRun({ env, dataDir, encryption, say }: FirstRunOptions): Promise<void> {
  const organizations = (await cli(['org', 'list'], env)) as OrganizationSummary[];
  const keysFile = path.join(dataDir, 'first-run-keys.json');
  if (organizations.length === 0) {
    const org = (await cli(['org', 'create', '--name', 'Local development', '--callback-origin', 'http://localhost:3000'], env)) as Record<string, string>;
    writeFileSync(keysFile, `${JSON.stringify(org, null, 2)}\n`, { mode: 0o600 });
    say('First start: created the organization "Local development".');
    say(`  master key (production): ${org.master_key}`);
    say(`  test key:                ${org.test_key}`);
    if (org.owner_setup_url) say(`  console owner setup:     ${org.owner_setup_url}   (one-time, 7 days: whoever opens it becomes the organization's owner)`);
    say(`  These are shown once and saved only in ${display(keysFile)} (git-ignored). Keep them secret.`);
    return;
  }
  const names = organizations.slice(0, 3).map((o) => `"${o.name}" (${o.organization_id})`).join(', ');
  const more = organizations.length > 3 ? ` and ${organizations.length - 3} more` : '';
  if (existsSync(keysFile)) {
    say(`The database has ${organizations.length} organization(s); the keys made on its first start are in ${display(keysFile)}.`);
  } else {
    const only = organizations.length === 1 ? organizations[0]!.organization_id : '<organization_id>';
    say(`The database already has ${organizations.length} organization(s): ${names}${more}. No keys are printed: keys are shown once when made and stored only as hashes.`);
    say(`  A working key for local use: pnpm --silent patchbay key create --org ${only}   (prints a new unrestricted production key; add --environment test for a test key)`);
    say(`  The console's first owner, for an organization without members: pnpm --silent patchbay member owner-setup --org ${only}   (prints a one-time link)`);
  }
  if (encryption.created) {
    say(`WARNING: this checkout made a new encryption key (${display(encryption.file ?? '')}), but the database already holds data.`);
    say('  Credentials and OAuth client secrets sealed with another key cannot be read with this one: tool calls that need them fail until the user connects again.');
    say('  To keep them readable, stop, copy the encryption-keys file of the checkout that sealed them over this one (or set PATCHBAY_ENCRYPTION_KEYS to its contents), and start again.');
  }
}

function display(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') ? relative : file;
}
