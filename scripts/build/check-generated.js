#!/usr/bin/env node
/*
 * `pnpm generate:check`: the committed src/generated/ of every app and package is what generation
 * writes from the committed sources. Regenerates everything (turbo's cache bypassed, generate.js told
 * not to trust the committed code) and fails, naming the files, when git then sees any difference or
 * any generated file that is not committed. CI runs it beside `pnpm db:check`; the fix is
 * `pnpm generate` and a commit of the src/generated/ folders it changed.
 */
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const generated = [':(glob)apps/*/src/generated/**', ':(glob)packages/*/src/generated/**'];

const run = spawnSync('pnpm', ['exec', 'turbo', 'run', 'generate', '--force', '--output-logs=errors-only'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PATCHBAY_GENERATE: 'always' },
});
if (run.status !== 0) {
  process.stderr.write('generate:check: generation failed\n');
  process.exit(run.status || 1);
}

const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all', '--', ...generated], { cwd: root, encoding: 'utf8' });
if (status.status !== 0) {
  process.stderr.write(`generate:check: git status failed: ${status.stderr}\n`);
  process.exit(1);
}
const changed = status.stdout.split('\n').filter(Boolean);
if (changed.length > 0) {
  process.stderr.write(
    `generate:check: the committed generated code is not what the sources generate (${changed.length} file(s)):\n` +
      changed.map((line) => `  ${line}\n`).join('') +
      'Run `pnpm generate` and commit the src/generated/ folders it changed.\n',
  );
  process.exit(1);
}
process.stdout.write('generate:check: every committed src/generated/ is current\n');
