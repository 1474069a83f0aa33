import path from 'node:path';
import { ensureDatabase, MIGRATION_NAMES } from '@ferry/db';
import type { BackupConfig } from './backup.js';
import { readManifest, type Manifest } from './manifest.js';
import {
  databaseName,
  recreateDatabase,
  relationCount,
  relayAgainSince,
  restorePostgres,
} from './postgres.js';
import { connectRedis, deleteKeys, hasKeys, importKeys } from './redis-restore.js';
import { took } from './tools.js';

export interface RestoreOptions {
  /** Replace what the targets hold (the database dropped and created, Ferry's keys deleted). */
  force?: boolean;
  log?: (line: string) => void;
}

export interface RestoreSummary {
  manifest: Manifest;
  keys: number;
  /** Outbox events marked unsent so the relay hands them to their queues again. */
  relayedAgain: number;
}

/**
 * How far before Redis' snapshot outbox events are relayed again. The relay stamps sent_at with
 * its transaction's start, and adds the jobs to Redis later in that transaction (within its 10 s
 * enqueue timeout, else it rolls back): a minute covers that with room. Relaying too many is
 * harmless (consumers dedupe), too few would lose a job.
 */
export const RELAY_AGAIN_MARGIN_MS = 60_000;

/** The refusals a restore checks before it touches anything. */
export class RestoreRefused extends Error {
  override name = 'RestoreRefused';
}

function checkMigrationLevel(manifest: Manifest): void {
  const known = new Set(MIGRATION_NAMES);
  const unknown = manifest.migrations.applied.filter((name) => !known.has(name));
  if (unknown.length) {
    throw new RestoreRefused(
      `This backup is at a newer migration level than this code (${unknown.join(', ')} unknown here)` +
        `${manifest.ferry.commit ? `: restore it with Ferry at commit ${manifest.ferry.commit} or later` : ''}.`,
    );
  }
}

/**
 * Restores a backup directory into DATABASE_URL and REDIS_URL's database. Every refusal comes
 * before anything is written: a damaged backup, one newer than this code, a REDIS_PREFIX other
 * than the backup's, or targets holding data (unless `force`). Ferry must be stopped; its next
 * start applies the migrations this code has beyond the backup's level.
 */
export async function restoreBackup(
  config: BackupConfig,
  dir: string,
  options: RestoreOptions = {},
): Promise<RestoreSummary> {
  const log = options.log ?? (() => undefined);
  const manifest = await readManifest(dir);
  checkMigrationLevel(manifest);
  if (manifest.redis.prefix !== config.REDIS_PREFIX) {
    throw new RestoreRefused(
      `The backup's Redis keys start with "${manifest.redis.prefix}:" but REDIS_PREFIX is "${config.REDIS_PREFIX}": set REDIS_PREFIX=${manifest.redis.prefix}.`,
    );
  }

  const redis = await connectRedis(config.REDIS_URL);
  try {
    const relations = await relationCount(config.DATABASE_URL);
    const redisHasKeys = await hasKeys(redis, config.REDIS_PREFIX);
    const database = databaseName(config.DATABASE_URL);
    const holding = [
      ...(relations !== 'missing' && relations > 0
        ? [`database ${database} has ${relations} tables, views or sequences`]
        : []),
      ...(redisHasKeys ? [`Redis has keys starting with "${config.REDIS_PREFIX}:"`] : []),
    ];
    if (holding.length && !options.force) {
      throw new RestoreRefused(
        `The restore targets are not empty (${holding.join('; ')}): restore into empty ones, or pass --force to replace what they hold.`,
      );
    }
    if (options.force && relations !== 'missing' && relations > 0) {
      log(`Dropping and creating database ${database} (--force)…`);
      await recreateDatabase(config.DATABASE_URL);
    } else {
      await ensureDatabase(config.DATABASE_URL);
    }
    if (options.force && redisHasKeys) {
      log(`Deleted ${await deleteKeys(redis, config.REDIS_PREFIX)} Redis keys (--force).`);
    }

    log(`PostgreSQL: pg_restore into ${database}…`);
    let step = performance.now();
    await restorePostgres(config.DATABASE_URL, path.join(dir, manifest.postgres.file.name));
    log(`PostgreSQL: restored${took(step)}.`);
    const since = new Date(Date.parse(manifest.redis.taken_after) - RELAY_AGAIN_MARGIN_MS);
    const relayedAgain = await relayAgainSince(config.DATABASE_URL, since);
    log(`Outbox: ${relayedAgain} events sent around Redis' snapshot will be relayed again.`);

    step = performance.now();
    const keys = await importKeys(redis, path.join(dir, manifest.redis.file.name));
    log(`Redis: ${keys} keys restored${took(step)}.`);
    return { manifest, keys, relayedAgain };
  } finally {
    redis.disconnect();
  }
}
