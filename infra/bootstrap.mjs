#!/usr/bin/env node
// `npm start` / `npm test` (and `pnpm start` / `pnpm test`): what a machine with only Node.js and
// Debian needs, in one step. Installs the dependencies with the lockfile when node_modules is
// missing or older than the lockfile (with the pnpm pinned in package.json: the local one once
// installed, a global one if present, else `npx pnpm@<version>` from the npm registry), makes sure
// Postgres and Redis answer (infra/ensure-stores.sh), then starts the app or runs the tests.
//
//   node infra/bootstrap.mjs start|test|install [args for the tests]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [command, ...args] = process.argv.slice(2);
const pinned = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).packageManager;
const pnpmVersion = String(pinned).replace(/^pnpm@/, '');

function mtime(file) {
  try {
    return fs.statSync(path.join(root, file)).mtimeMs;
  } catch {
    return undefined;
  }
}

/** node_modules exists and was installed after the lockfile and package.json last changed. */
function installed() {
  const marker = mtime('node_modules/.modules.yaml');
  if (marker === undefined || !fs.existsSync(path.join(root, 'node_modules/.bin/tsx'))) {
    return false;
  }
  return ['pnpm-lock.yaml', 'package.json'].every((file) => (mtime(file) ?? 0) <= marker);
}

function works(cmd, cmdArgs) {
  const probe = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'ignore' });
  return probe.status === 0;
}

/** The pinned pnpm: the project's own, a global one, or fetched by npx. */
function pnpm() {
  const local = path.join(root, 'node_modules/.bin/pnpm');
  if (fs.existsSync(local) && works(local, ['--version'])) return [local, []];
  if (works('pnpm', ['--version'])) return ['pnpm', []];
  return ['npx', ['--yes', `pnpm@${pnpmVersion}`]];
}

function runOrExit(cmd, cmdArgs, what) {
  const result = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`${what} failed${result.error ? `: ${result.error.message}` : ''}`);
    process.exit(result.status || 1);
  }
}

if (!['start', 'test', 'install'].includes(command ?? '')) {
  console.error('usage: node infra/bootstrap.mjs start|test|install [args]');
  process.exit(2);
}

if (!installed()) {
  const [cmd, prefix] = pnpm();
  console.error(`installing dependencies with pnpm ${pnpmVersion} (${path.basename(cmd)})`);
  runOrExit(cmd, [...prefix, 'install', '--frozen-lockfile'], 'pnpm install --frozen-lockfile');
}
if (command === 'install') process.exit(0);

// stdout stays the command's own (`tests: …` is its last line); the stores' messages go to stderr.
runOrExit('bash', ['-c', 'bash infra/ensure-stores.sh >&2'], 'infra/ensure-stores.sh');

// `start` runs the all-in-one entry's bundle, built from today's source first (under a second).
if (command === 'start') {
  runOrExit(process.execPath, ['infra/build.mjs', '--quiet'], 'pnpm build');
}
const [cmd, cmdArgs] =
  command === 'start'
    ? [process.execPath, ['--enable-source-maps', '.build/services/all/src/main.mjs', ...args]]
    : [process.execPath, ['infra/test.mjs', ...args]];
// The local bin first, as npm and pnpm do for scripts: tests and scripts find pnpm, tsx, vitest.
const env = {
  ...process.env,
  PATH: `${path.join(root, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
};
const child = spawn(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env });
// The app drains and exits on its own: Ctrl-C reaches it from the terminal (same process group),
// so this process only waits; a SIGTERM sent to this process alone is passed on.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
