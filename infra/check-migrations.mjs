#!/usr/bin/env node
// `pnpm check:migrations` (part of `pnpm check`): every migration applied to a scratch database
// on the local Postgres by the real runner, the SQL each one sent written to <name>.sql, and
// squawk (npm squawk-cli, a linter made for Postgres migrations) run over those files with the
// repo's .squawk.toml. Capturing what runs, rather than reading the TypeScript, lints exactly
// what a deployment's database receives: Kysely's builders, loops and the runner's own
// transaction and timeouts included. See the README's "Changing the schema".
//
//   node infra/check-migrations.mjs [--migrations MODULE] [--keep DIR]
//
// --migrations: a module exporting `migrations` like packages/db/src/migrations/index.ts (tests).
// --keep: write the .sql files to DIR and leave them there (to read what squawk read).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { values } = parseArgs({
  options: { migrations: { type: 'string' }, keep: { type: 'string' } },
});

/** The Postgres server DATABASE_URL names (its `postgres` database), else the local default. */
function serverUrl() {
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/postgres';
  return url.toString();
}

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', (error) => resolve({ code: 127, out: String(error) }));
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

const stores = spawnSync('bash', ['infra/ensure-stores.sh'], { cwd: root, stdio: 'inherit' });
if (stores.status !== 0) process.exit(stores.status ?? 1);

/** Captures the SQL into dir and lints it; returns the exit code. */
async function check(dir) {
  const capture = await run(process.execPath, [
    '--import',
    'tsx',
    'packages/db/src/cli/migration-sql.ts',
    '--server',
    serverUrl(),
    '--out',
    dir,
    ...(values.migrations ? ['--migrations', path.resolve(values.migrations)] : []),
  ]);
  if (capture.code !== 0) {
    console.error('migrations: applying the migrations to a scratch database failed (above)');
    return 1;
  }
  const squawk = path.join(
    path.dirname(require.resolve('squawk-cli/package.json')),
    'js/bin/squawk',
  );
  const files = fs.readdirSync(dir).filter((file) => file.endsWith('.sql'));
  const lint = await run(process.execPath, [
    squawk,
    '--config',
    path.join(root, '.squawk.toml'),
    ...files.sort().map((file) => path.join(dir, file)),
  ]);
  if (lint.code !== 0) {
    process.stdout.write(lint.out);
    console.error(
      'migrations: squawk found problems. Each <name>.sql above is the SQL that ' +
        'packages/db/src/migrations/<name>.ts ran; bring the migration to the rules (README: ' +
        '"Changing the schema"). --keep DIR keeps the files.',
    );
    return 1;
  }
  console.log(`migrations: the SQL of ${files.length} migrations passes squawk (.squawk.toml)`);
  return 0;
}

const dir = values.keep
  ? path.resolve(values.keep)
  : fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-migration-sql-'));
try {
  process.exitCode = await check(dir);
} finally {
  if (!values.keep) fs.rmSync(dir, { recursive: true, force: true });
}
