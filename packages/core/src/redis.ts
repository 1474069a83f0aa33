import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';
import type { RedisTarget } from './redis-url.js';

/**
 * - `worker`: for Workers (BullMQ duplicates it for its blocking connection). Commands wait out a
 *   Redis restart instead of failing (`maxRetriesPerRequest: null`, which BullMQ requires for
 *   blocking connections), and no ready check against a single server, per BullMQ's connection
 *   advice.
 * - `producer`: for Queues that add jobs from a request or the outbox relay. Fails fast while Redis
 *   is down (`enableOfflineQueue: false`, BullMQ's "failing fast when Redis is down") so an HTTP
 *   handler can answer 503 and the relay can roll back and retry, instead of hanging.
 * - `shared`: a process's general client (rate limits, leases, live announcements, health): a
 *   command is retried over at most 3 reconnects, then fails.
 *
 * Give workers and producers separate connections. Whoever creates a connection closes it:
 * producers and workers built on it never do. `duplicate()` keeps the options, Sentinels included.
 */
export type RedisRole = 'worker' | 'producer' | 'shared';

export interface RedisConnectionOptions {
  role?: RedisRole;
  /** Connection errors go here (ioredis reconnects by itself). */
  logger?: Logger;
  /** Shown in CLIENT LIST, e.g. the service name. */
  name?: string;
}

const ROLE_OPTIONS: Record<RedisRole, RedisOptions> = {
  worker: { maxRetriesPerRequest: null, enableReadyCheck: false },
  producer: { maxRetriesPerRequest: 1, enableOfflineQueue: false },
  shared: { maxRetriesPerRequest: 3 },
};

/**
 * After a failover the old master may come back as a replica while a connection still points at
 * it (a partition, or a DNS name that has not moved yet): its writes fail with READONLY. 2 tells
 * ioredis to reconnect (through the Sentinels: to the new master) and resend the command.
 */
function reconnectOnReadOnly(error: Error): 2 | false {
  return error.message.startsWith('READONLY') ? 2 : false;
}

/**
 * Through Sentinels, ioredis asks them for the master on every (re)connect. With the ready check
 * on it also checks the server's role is master before it sends anything (a stale answer during a
 * failover is refused and asked again), whatever the role above says.
 *
 * Not ioredis' `failoverDetector` (off by default): its +switch-master handler disconnects the
 * connector, and when that lands while a connection is asking the Sentinels (the master was
 * killed, so every connection is reconnecting), the connect fails with "Connection is closed"
 * and the client ends for good (status `end`, ioredis issue #1683). The failover test saw it in 1
 * run of 6. Without it a dead master is noticed when its socket closes, and a hung one when it
 * comes back: Sentinel makes it a replica and Redis drops its clients on that change.
 */
function sentinelOptions(target: Extract<RedisTarget, { mode: 'sentinel' }>): RedisOptions {
  return {
    sentinels: target.sentinels,
    name: target.name,
    role: 'master',
    db: target.db,
    enableReadyCheck: true,
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
  };
}

/**
 * Every Redis connection Ferry makes comes from here: one server (`redis://`, `rediss://`; the
 * URL's `/N` selects database N) or Sentinels and a master name (`redis+sentinel://`), read once
 * from REDIS_URL into `config.redis`.
 */
export function createRedisConnection(
  target: RedisTarget,
  options: RedisConnectionOptions = {},
): Redis {
  const role = options.role ?? 'worker';
  const shared: RedisOptions = {
    ...ROLE_OPTIONS[role],
    reconnectOnError: reconnectOnReadOnly,
    ...(options.name ? { connectionName: options.name } : {}),
  };
  const redis =
    target.mode === 'sentinel'
      ? new Redis({ ...shared, ...sentinelOptions(target) })
      : new Redis(target.url, shared);
  // Without a listener ioredis prints every reconnect error to stderr.
  redis.on('error', (err: Error) => {
    options.logger?.warn({ err: err.message, role }, 'redis connection error');
  });
  return redis;
}

/**
 * Resolves once the connection is ready (or after `timeoutMs`, when Redis is down: the process
 * starts anyway and fails fast per request until Redis answers). A fail-fast `producer`
 * connection refuses commands while it is still connecting, so a process awaits this before it
 * takes requests: its first requests would otherwise answer 503.
 */
export function redisReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    timer.unref();
    redis.once('ready', done);
  });
}

/**
 * A `redis://` URL of the server to talk to now, for tools that need one server's address
 * (`npm run backup` / `restore`: redis-cli --rdb): the URL itself for one server; for Sentinels,
 * the master the first answering Sentinel names, with the target's credentials and database. A
 * failover during the tool's run fails it; run it again.
 */
export async function redisMasterUrl(target: RedisTarget): Promise<string> {
  if (target.mode === 'direct') return target.url;
  const problems: string[] = [];
  for (const sentinel of target.sentinels) {
    const client = new Redis({
      ...sentinel,
      ...(target.sentinelPassword ? { password: target.sentinelPassword } : {}),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 5_000,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const answer = (await client.call('SENTINEL', 'get-master-addr-by-name', target.name)) as
        [string, string] | null;
      if (answer) {
        const host = answer[0].includes(':') ? `[${answer[0]}]` : answer[0];
        const user = target.username ? encodeURIComponent(target.username) : '';
        const auth = target.password ? `${user}:${encodeURIComponent(target.password)}@` : '';
        return `redis://${auth}${host}:${answer[1]}/${target.db}`;
      }
      problems.push(`${sentinel.host}:${sentinel.port} knows no master named ${target.name}`);
    } catch (error) {
      problems.push(`${sentinel.host}:${sentinel.port}: ${(error as Error).message}`);
    } finally {
      client.disconnect();
    }
  }
  throw new Error(`No Sentinel named the master: ${problems.join('; ')}`);
}
