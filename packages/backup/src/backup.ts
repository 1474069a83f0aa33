import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '@ferry/core';
import {
  describeFile,
  MANIFEST_FILE,
  POSTGRES_FILE,
  REDIS_FILE,
  type Manifest,
} from './manifest.js';
import { databaseName, dumpPostgres, postgresFacts } from './postgres.js';
import { exportKeys, redisServerVersion, takeRdb, withSnapshotServer } from './redis-snapshot.js';
import { redisCliTarget } from './redis-url.js';
import { took, toolVersion } from './tools.js';

export type BackupConfig = Pick<Config, 'DATABASE_URL' | 'REDIS_URL' | 'REDIS_PREFIX'>;

export interface BackupOptions {
  /** The folder that receives the backup's own directory. */
  outDir: string;
  /** Progress, a line at a time (the CLI prints it on stderr). */
  log?: (line: string) => void;
}

export interface TakenBackup {
  dir: string;
  manifest: Manifest;
}

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

function checkoutCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, stdio: 'pipe' })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

/**
 * One backup directory: Redis' keys first, then the Postgres dump, then manifest.json. Written
 * under a `.partial-` name and renamed when complete, so a directory with a backup's name is a
 * whole backup.
 *
 * Redis goes first on purpose (README "Backups"): what happens between the two snapshots then
 * happens "twice" after a restore (a job still queued in Redis whose work reached Postgres
 * before the dump is run again, which every consumer tolerates), never "not at all", except
 * events relayed in between, which the restore relays again (postgres.ts, relayAgainSince).
 */
export async function takeBackup(
  config: BackupConfig,
  options: BackupOptions,
): Promise<TakenBackup> {
  const log = options.log ?? (() => undefined);
  const startedAt = new Date();
  const name = `ferry-${startedAt.toISOString().replace(/[:.]/g, '-')}`;
  const dir = path.join(options.outDir, name);
  const work = path.join(options.outDir, `.partial-${name}`);
  await fs.promises.mkdir(work, { recursive: true });
  try {
    const before = await postgresFacts(config.DATABASE_URL);
    const redisTarget = redisCliTarget(config.REDIS_URL);
    const redisVersion = await redisServerVersion(config.REDIS_URL);

    log(`Redis ${redisVersion}: snapshot of the server (redis-cli --rdb)…`);
    let step = performance.now();
    const rdb = path.join(work, 'snapshot.rdb');
    await takeRdb(config.REDIS_URL, rdb);
    const keys = await withSnapshotServer(rdb, Math.max(16, redisTarget.db + 1), (socket) =>
      exportKeys(socket, redisTarget.db, config.REDIS_PREFIX, path.join(work, REDIS_FILE)),
    );
    // Keys of other prefixes and databases are not Ferry's: only our own go in the backup.
    await fs.promises.rm(rdb);
    log(
      `Redis: ${keys} keys of db ${redisTarget.db} starting with "${config.REDIS_PREFIX}:"${took(step)}.`,
    );

    log(`PostgreSQL ${before.serverVersion}: pg_dump of ${databaseName(config.DATABASE_URL)}…`);
    step = performance.now();
    const dumpStarted = await postgresFacts(config.DATABASE_URL);
    await dumpPostgres(config.DATABASE_URL, path.join(work, POSTGRES_FILE));
    log(`PostgreSQL: dumped${took(step)}.`);
    const after = await postgresFacts(config.DATABASE_URL);
    if (after.migrations.join() !== before.migrations.join()) {
      throw new Error('Migrations ran while the backup was taken: take it again.');
    }

    const manifest: Manifest = {
      format: 1,
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      ferry: { commit: checkoutCommit(), node: process.version },
      migrations: { latest: before.migrations.at(-1) ?? null, applied: before.migrations },
      postgres: {
        database: databaseName(config.DATABASE_URL),
        server_version: before.serverVersion,
        pg_dump: await toolVersion('pg_dump'),
        taken_at: dumpStarted.now.toISOString(),
        file: await describeFile(work, POSTGRES_FILE),
      },
      redis: {
        server_version: redisVersion,
        db: redisTarget.db,
        prefix: config.REDIS_PREFIX,
        keys,
        taken_after: before.now.toISOString(),
        file: await describeFile(work, REDIS_FILE),
      },
    };
    await fs.promises.writeFile(
      path.join(work, MANIFEST_FILE),
      `${JSON.stringify(manifest, null, 2)}\n`,
    );
    await fs.promises.rename(work, dir);
    log(`Backup written: ${dir}`);
    return { dir, manifest };
  } catch (error) {
    await fs.promises.rm(work, { recursive: true, force: true });
    throw error;
  }
}
