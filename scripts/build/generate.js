#!/usr/bin/env node
/*
 * The `generate` of every Patchbay app (and of packages/queues' test client): `prisma generate` when
 * the package has a Prisma schema, then `tsoa spec-and-routes` when it has a tsoa.json. Both write to
 * src/generated/, which is committed, as migrations are.
 *
 * Generation costs about 6 CPU seconds per app (most of it loading Prisma's CLI and tsoa's type
 * checker), which was half of a fresh clone's `pnpm start`. What it writes depends only on files in
 * the repository, so a fresh clone needs none of it. It skips the generators when both hold:
 *   - src/generated/inputs.sha256, which it writes after generating, is the hash of the files that
 *     decide the output most directly (the Prisma schema and prisma.config.ts, tsoa.json, the
 *     controllers, the versions of prisma and tsoa): a merge that brings a schema or controller
 *     change without the matching generated code regenerates;
 *   - src/generated/ is committed and git sees no change to it or to any wider input (this package's
 *     prisma/, prisma.config.ts, tsoa.json, src/ and every packages/<name>/src, untracked files
 *     included, tests left aside): a change being worked on regenerates.
 * Without git, or before anything is committed (a new app), it generates, as before.
 *
 * CI keeps the committed code honest: `pnpm generate:check` (scripts/build/check-generated.js)
 * regenerates everything and fails on any difference, as `pnpm db:check` does for migrations.
 *
 *   node ../../scripts/build/generate.js        # in the package folder (its "generate" script)
 *   PATCHBAY_GENERATE=always ...                # generate even when the committed code is current
 *
 * Plain JavaScript on purpose, like build-package.js: it runs before anything is built.
 */
'use strict';

const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, readFileSync, readdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const GENERATED = 'src/generated';
const STAMP = path.join(GENERATED, 'inputs.sha256');

/** A tsoa.json glob (`src/controllers/**\/*-controller.ts`) as a regular expression over package-relative paths. */
function globToRegExp(glob) {
  const pattern = glob
    .replace(/^\.\//, '')
    .split('**/')
    .map((part) => part.split('*').map((text) => text.replace(/[.+^${}()|[\]\\?]/g, '\\$&')).join('[^/]*'))
    .join('(?:.*/)?');
  return new RegExp(`^${pattern}$`);
}

function filesUnder(dir, base = dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(full, base);
    return entry.isFile() ? [path.relative(base, full).split(path.sep).join('/')] : [];
  });
}

/** The hash of what most directly decides the generated code (see the header); written to STAMP. */
function inputsHash(packageDir) {
  const files = ['prisma.config.ts', 'tsoa.json', ...filesUnder(path.join(packageDir, 'prisma')).map((f) => `prisma/${f}`).filter((f) => f.endsWith('.prisma'))];
  if (existsSync(path.join(packageDir, 'tsoa.json'))) {
    const globs = JSON.parse(readFileSync(path.join(packageDir, 'tsoa.json'), 'utf8')).controllerPathGlobs ?? [];
    const patterns = globs.map(globToRegExp);
    files.push(...filesUnder(path.join(packageDir, 'src')).map((f) => `src/${f}`).filter((f) => patterns.some((re) => re.test(f))));
  }
  const hash = createHash('sha256');
  for (const file of [...new Set(files)].sort()) {
    const full = path.join(packageDir, file);
    if (existsSync(full)) hash.update(`${file}\0`).update(readFileSync(full)).update('\0');
  }
  for (const tool of ['prisma', 'tsoa']) {
    try {
      hash.update(`${tool}@${JSON.parse(readFileSync(require.resolve(`${tool}/package.json`, { paths: [packageDir] }), 'utf8')).version}\0`);
    } catch {
      // not a dependency of this package
    }
  }
  return hash.digest('hex');
}

/** The script an npm package's bin of the same name runs, as the package's own node_modules resolve it. */
function bin(packageDir, name) {
  const manifestPath = require.resolve(`${name}/package.json`, { paths: [packageDir] });
  const { bin: entries } = JSON.parse(readFileSync(manifestPath, 'utf8'));
  return path.join(path.dirname(manifestPath), typeof entries === 'string' ? entries : entries[name]);
}

/** The generators this package uses, as [label, script path] pairs, in the order they must run. */
function generators(packageDir) {
  const steps = [];
  if (existsSync(path.join(packageDir, 'prisma', 'schema.prisma'))) {
    steps.push(['prisma generate', bin(packageDir, 'prisma'), ['generate']]);
  }
  if (existsSync(path.join(packageDir, 'tsoa.json'))) {
    steps.push(['tsoa spec-and-routes', bin(packageDir, 'tsoa'), ['spec-and-routes']]);
  }
  return steps;
}

function git(packageDir, args) {
  const result = spawnSync('git', args, { cwd: packageDir, encoding: 'utf8' });
  return result.status === 0 ? result.stdout : null;
}

/** Why the committed src/generated/ cannot be trusted as it is, or null when it can. */
function reasonToGenerate(packageDir) {
  if (/^(always|1|true)$/i.test(process.env.PATCHBAY_GENERATE ?? '')) return 'PATCHBAY_GENERATE=always';
  const root = git(packageDir, ['rev-parse', '--show-toplevel']);
  if (root === null) return 'not a git checkout';
  let stamp = '';
  try {
    stamp = readFileSync(path.join(packageDir, STAMP), 'utf8').trim();
  } catch {
    return `no ${STAMP}`;
  }
  if (stamp !== inputsHash(packageDir)) return `the schema, tsoa.json or a controller differs from what ${GENERATED} was generated from`;
  const committed = git(packageDir, ['ls-files', '--', GENERATED]);
  if (!committed) return `${GENERATED} is not committed`;
  const repo = root.trim();
  const inputs = ['prisma', 'prisma.config.ts', 'tsoa.json', 'src', path.relative(packageDir, path.join(repo, 'packages'))];
  const status = git(packageDir, ['status', '--porcelain', '--untracked-files=all', '--', ...inputs]);
  if (status === null) return 'git status failed';
  const changed = status
    .split('\n')
    .map((line) => line.slice(3).trim())
    .filter(Boolean)
    // packages/<name>/src only (not their tests or READMEs); tests never reach generated code.
    .filter((file) => !/\.test\.ts$/.test(file) && !/(^|\/)(test|dist|node_modules)\//.test(file))
    .filter((file) => !/^packages\/[^/]+\//.test(file) || /^packages\/[^/]+\/src\//.test(file));
  if (changed.length > 0) return `changed since the last commit: ${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ', ...' : ''}`;
  return null;
}

function main() {
  const packageDir = process.cwd();
  const steps = generators(packageDir);
  if (steps.length === 0) {
    process.stdout.write('nothing to generate (no prisma/schema.prisma, no tsoa.json)\n');
    return;
  }
  const reason = reasonToGenerate(packageDir);
  if (reason === null) {
    process.stdout.write(
      `${GENERATED} is committed and no input changed: current, not regenerated (PATCHBAY_GENERATE=always forces it)\n`,
    );
    return;
  }
  process.stdout.write(`generating ${GENERATED} (${reason})\n`);
  for (const [label, script, args] of steps) {
    const result = spawnSync(process.execPath, [script, ...args], { cwd: packageDir, stdio: 'inherit' });
    if (result.status !== 0) {
      process.stderr.write(`${label} failed (exit ${result.status ?? result.signal})\n`);
      process.exit(result.status || 1);
    }
  }
  writeFileSync(path.join(packageDir, STAMP), `${inputsHash(packageDir)}\n`);
}

module.exports = { reasonToGenerate, inputsHash };

if (require.main === module) main();
