#!/usr/bin/env node
// `pnpm test:upgrade` / `npm run test:upgrade`: the rolling-upgrade test alone
// (services/all/test/rolling-upgrade.test.ts), which a whole `pnpm test` runs after the rest
// (infra/test.mjs): it builds the previous release in a worktree of its own (README "Upgrading
// without downtime"). Same bootstrap and closing count as `pnpm test`.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const child = spawn(
  process.execPath,
  [
    'infra/bootstrap.mjs',
    'test',
    'services/all/test/rolling-upgrade.test.ts',
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, FERRY_UPGRADE_TEST: '1' } },
);
child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
