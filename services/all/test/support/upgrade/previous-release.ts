import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../../..', import.meta.url));
const MIGRATIONS = 'packages/db/src/migrations';
/** The pinned pnpm (a devDependency), as the bootstrap installs with. */
const PNPM = path.join(repoRoot, 'node_modules', '.bin', 'pnpm');

export interface PreviousRelease {
  /** The commit built: the newest one before the newest migration file was added. */
  commit: string;
  /** Its checkout (a detached git worktree), with .build/ built. */
  root: string;
  /** The migrations N+1 adds (none of them are in N). */
  newMigrations: string[];
  remove(): Promise<void>;
}

async function git(...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

async function migrationNames(commit?: string): Promise<string[]> {
  const listing = commit
    ? (await git('ls-tree', '--name-only', `${commit}:${MIGRATIONS}`)).split('\n')
    : fs.readdirSync(path.join(repoRoot, MIGRATIONS));
  return listing.filter((name) => /^\d{4}_.*\.ts$/.test(name)).sort();
}

/**
 * Release N for the rolling-upgrade test: the commit before the one that added the newest
 * migration file (its first parent), checked out as a detached worktree, installed from the
 * machine's pnpm store (offline first) and bundled with its own infra/build.mjs. Refuses a commit
 * whose migrations are not a strict prefix of the current ones: then N+1 could not migrate it.
 */
export async function buildPreviousRelease(): Promise<PreviousRelease> {
  const current = await migrationNames();
  const newest = current.at(-1);
  if (!newest) throw new Error(`no migrations in ${MIGRATIONS}`);
  const adding = await git(
    'log',
    '-1',
    '--format=%H',
    '--diff-filter=A',
    '--',
    `${MIGRATIONS}/${newest}`,
  );
  if (!adding) throw new Error(`no commit adds ${newest} (a shallow clone? fetch the history)`);
  const commit = await git('rev-parse', `${adding}^1`);
  const previous = await migrationNames(commit);
  const isPrefix =
    previous.length < current.length && previous.every((name, i) => name === current[i]);
  if (!isPrefix) {
    throw new Error(`${commit}'s migrations are not a strict prefix of the current ones`);
  }

  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-upgrade-')), 'ferry-n');
  await git('worktree', 'add', '--detach', root, commit);
  const remove = async (): Promise<void> => {
    await git('worktree', 'remove', '--force', root).catch(() => undefined);
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
    await git('worktree', 'prune');
  };
  try {
    const inN = { cwd: root, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CI: 'true' } };
    // The store on this machine has N's packages; a store without them needs the registry.
    await run(PNPM, ['install', '--frozen-lockfile', '--offline'], inN).catch(() =>
      run(PNPM, ['install', '--frozen-lockfile'], inN),
    );
    await run(process.execPath, ['infra/build.mjs'], inN);
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    commit,
    root,
    newMigrations: current.slice(previous.length).map((name) => name.replace(/\.ts$/, '')),
    remove,
  };
}

/** Runs N's own `pnpm db:migrate` (its tsx and its migrations) against `env`'s DATABASE_URL. */
export async function migrateWithRelease(
  release: PreviousRelease,
  env: Record<string, string>,
): Promise<void> {
  await run(
    path.join(release.root, 'node_modules', '.bin', 'tsx'),
    ['packages/db/src/cli/migrate.ts'],
    { cwd: release.root, env: { ...process.env, ...env } },
  );
}
