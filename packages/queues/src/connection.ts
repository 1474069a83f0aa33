import { Redis } from 'ioredis';
import type { Logger } from '@ferry/core';

/**
 * - `worker`: for Workers (BullMQ duplicates it for its blocking connection). Commands wait out a
 *   Redis restart instead of failing (`maxRetriesPerRequest: null`, which BullMQ requires for
 *   blocking connections), and no ready check, per BullMQ's connection advice.
 * - `producer`: for Queues that add jobs from a request or the outbox relay. Fails fast while Redis
 *   is down (`enableOfflineQueue: false`, BullMQ's "failing fast when Redis is down") so an HTTP
 *   handler can answer 503 and the relay can roll back and retry, instead of hanging.
 *
 * Give workers and producers separate connections. Whoever creates a connection closes it:
 * producers and workers built on it never do.
 */
export type RedisRole = 'worker' | 'producer';

export interface RedisConnectionOptions {
  role?: RedisRole;
  /** Connection errors go here (ioredis reconnects by itself). */
  logger?: Logger;
  /** Shown in CLIENT LIST, e.g. the service name. */
  name?: string;
}

/** An ioredis client for BullMQ. The URL's `/N` selects database N (`redis://host:6379/2`). */
export function createRedisConnection(url: string, options: RedisConnectionOptions = {}): Redis {
  const role = options.role ?? 'worker';
  const redis = new Redis(url, {
    ...(role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: false }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false }),
    ...(options.name ? { connectionName: options.name } : {}),
  });
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

/** A Lua script bound to one connection (scriptCommand). */
export type ScriptCommand<R> = (...args: (string | number)[]) => Promise<R>;

/**
 * A Lua script as a command of this connection (ioredis defineCommand): each call sends EVALSHA
 * with the script's digest, and EVAL with its text only when Redis does not have it yet (after a
 * restart or a SCRIPT FLUSH). A plain EVAL sends the whole script with every call and makes Redis
 * digest it again: on the incoming-webhook path, one per post, that was 3% of the process's CPU.
 * Arguments are as EVAL's after the script: the number of keys, the keys, then the arguments.
 */
export function scriptCommand<R>(redis: Redis, name: string, lua: string): ScriptCommand<R> {
  const commands = redis as unknown as Record<string, ScriptCommand<R> | undefined>;
  if (typeof commands[name] !== 'function') redis.defineCommand(name, { lua });
  return (...args) => commands[name]!.call(redis, ...args);
}
