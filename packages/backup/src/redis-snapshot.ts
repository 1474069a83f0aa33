import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { runTool } from './tools.js';
import { redisCliTarget } from './redis-url.js';
import { serializeKey } from './key-file.js';

/**
 * A point-in-time copy of the whole Redis server in `file`, by `redis-cli --rdb`: the replication
 * path (SYNC), so it works over the network and needs no disk on the server (ours runs with
 * `--save ""`). The server forks and streams the snapshot of that instant. Redis waits
 * `repl-diskless-sync-delay` (5 s by default) for other replicas before it forks.
 */
export async function takeRdb(redisUrl: string, file: string): Promise<void> {
  const target = redisCliTarget(redisUrl);
  await runTool('redis-cli', [...target.args, '--rdb', file], target.env);
}

/**
 * Runs `use` against a private redis-server loaded from `rdbFile`: no TCP port, a unix socket
 * only, nothing saved. The socket sits in a fresh folder of the system's temporary directory,
 * not beside the file: a socket's path is limited to 107 bytes, which a deep --out would pass.
 * Stopped (and the folder gone) when `use` settles.
 */
export async function withSnapshotServer<T>(
  rdbFile: string,
  databases: number,
  use: (socketPath: string) => Promise<T>,
): Promise<T> {
  const dir = path.dirname(rdbFile);
  const socketDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ferry-snapshot-'));
  const socketPath = path.join(socketDir, 'redis.sock');
  const child = spawn(
    'redis-server',
    [
      '--port',
      '0',
      '--unixsocket',
      socketPath,
      '--unixsocketperm',
      '700',
      '--dir',
      dir,
      '--dbfilename',
      path.basename(rdbFile),
      '--databases',
      String(databases),
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  // Not events.once: that rejects on 'error', and a missing binary's 'error' is answered below.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const read = (chunk: Buffer): void => {
        output += chunk.toString('utf8');
        // Logged once the RDB is loaded: every key is there.
        if (/ready to accept connections/i.test(output)) resolve();
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'ENOENT'
            ? new Error('redis-server is not installed (Debian: apt-get install redis-server).')
            : error,
        ),
      );
      child.once('close', (code) =>
        reject(new Error(`redis-server could not load the snapshot (exit ${code}):\n${output}`)),
      );
    });
    return await use(socketPath);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await fs.promises.rm(socketDir, { recursive: true, force: true });
  }
}

/** Keys read per SCAN step, and DUMPs per round trip. */
const BATCH = 500;

/**
 * Writes every key of database `db` that starts with `prefix:` (every key Ferry owns: BullMQ's
 * queues, rate limits, leases) to `file` as its DUMP payload and remaining TTL, one JSON line a
 * key (key-file.ts). DUMP/RESTORE keeps each value exactly, whatever its type: BullMQ's lists,
 * sorted sets, hashes and streams come back as they were. Returns how many keys.
 */
export async function exportKeys(
  socketPath: string,
  db: number,
  prefix: string,
  file: string,
): Promise<number> {
  const redis = new Redis({ path: socketPath, db, maxRetriesPerRequest: 1 });
  const out = fs.createWriteStream(file);
  let count = 0;
  try {
    let cursor = '0';
    do {
      // The prefix is letters, digits, _ and - only (core config): nothing in it is a glob.
      const [next, keys] = await redis.scanBuffer(cursor, 'MATCH', `${prefix}:*`, 'COUNT', BATCH);
      cursor = next.toString();
      if (!keys.length) continue;
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.dumpBuffer(key).pttl(key);
      const replies = (await pipeline.exec()) ?? [];
      for (const [index, key] of keys.entries()) {
        const [dumpError, value] = replies[index * 2] ?? [];
        const [ttlError, ttl] = replies[index * 2 + 1] ?? [];
        const error = dumpError ?? ttlError;
        if (error) throw error;
        // Gone since the SCAN: it expired in the snapshot server.
        if (!(value instanceof Buffer) || typeof ttl !== 'number' || ttl === -2) continue;
        if (!out.write(serializeKey({ key, ttlMs: Math.max(ttl, 0), value }))) {
          await once(out, 'drain');
        }
        count++;
      }
    } while (cursor !== '0');
  } finally {
    out.end();
    await once(out, 'close');
    redis.disconnect();
  }
  return count;
}

/** INFO's redis_version of the server behind `redisUrl`. */
export async function redisServerVersion(redisUrl: string): Promise<string> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const info = await redis.info('server');
    return /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  } finally {
    redis.disconnect();
  }
}
