import fs from 'node:fs';
import path from 'node:path';
import { describeRedisTarget, type Logger } from '@ferry/core';
import type { FerryConfig } from './config.js';

/** What `pnpm start` says once every process serves. */
export interface UpFacts {
  settings: FerryConfig;
  /** The serving processes' pids (this one's alone without a cluster). */
  pids: readonly number[];
  /** Migrations this start applied (JSON lines list them when applied; the banner counts them). */
  applied: readonly string[];
  /** Readable lines (a person at a terminal) or JSON. */
  pretty: boolean;
}

/** A store URL fit for a log line: any password replaced. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * Where a store on this machine keeps its files, when infra/ensure-stores.sh started it under
 * .data/ (its pid file is there): the folder a person would back up or delete.
 */
function dataFolder(url: string, kind: 'postgres' | 'redis'): string {
  const pidFile = kind === 'postgres' ? 'postmaster.pid' : 'redis.pid';
  const folder = path.join('.data', kind);
  try {
    const host = new URL(url).hostname;
    const local = host === '127.0.0.1' || host === 'localhost';
    return local && fs.existsSync(path.join(process.cwd(), folder, pidFile))
      ? `, files in ${folder}/`
      : '';
  } catch {
    return '';
  }
}

/**
 * The one start-up banner: the URL, the processes, where the data lives. At a terminal it is one
 * entry of a few lines; in JSON one line whose fields say the same (`Ferry is up: <url>` starts
 * its message either way, for whoever waits for it).
 */
export function announceUp(logger: Logger, facts: UpFacts): void {
  const { base, processes } = facts.settings;
  const headline = `Ferry is up: ${base.PUBLIC_URL}`;
  const database = withoutPassword(base.DATABASE_URL);
  const redis = describeRedisTarget(base.redis);
  if (!facts.pretty) {
    logger.info(
      { url: base.PUBLIC_URL, processes, pids: facts.pids, database, redis },
      `${headline} (${processes} ${processes === 1 ? 'process' : 'processes'})`,
    );
    return;
  }
  const migrations = facts.applied.length
    ? ` (${facts.applied.length} migrations applied now)`
    : '';
  const lines = [
    headline,
    `  processes  ${processes} (FERRY_PROCESSES)`,
    `  database   ${database}${migrations}${dataFolder(base.DATABASE_URL, 'postgres')}`,
    `  redis      ${redis}, keys under ${base.REDIS_PREFIX}:${dataFolder(base.REDIS_URL, 'redis')}`,
    '  requests   one line each; static assets only when they fail or take over 1 s',
    '  Ctrl-C stops it',
  ];
  logger.info(lines.join('\n'));
}
