import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import { inOrder, type Logger } from '@ferry/core';

/**
 * A Redis lease for work that must run in one process of a deployment at a time (the Ops
 * sampler): `SET key token NX PX ttl` takes it, a compare-and-PEXPIRE renews it every third of
 * its ttl, a compare-and-DEL gives it back on a clean stop. A holder that dies stops renewing, so
 * the key expires and another process takes it on its next try (within ttl + one try interval).
 * A holder that cannot renew (Redis unreachable for two thirds of the ttl) stops its work before
 * the lease can have expired, so two never run it at once (short of a process stalled for longer
 * than that; the Ops sampler's per-minute claim makes even that harmless).
 */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

export interface Leased {
  stop(): Promise<void>;
}

export interface LeaseOptions {
  redis: Redis;
  /** The full Redis key, prefix included. */
  key: string;
  /** For log lines: which duty this lease guards. */
  name: string;
  logger: Logger;
  /** Starts the work once the lease is taken; its stop runs when the lease is lost or given up. */
  start(): Leased;
  ttlMs?: number;
}

export interface LeaseHolder {
  /** True while this process holds the lease (and runs the work). */
  held(): boolean;
  /** The first try has settled: held, or held elsewhere (or Redis down). */
  firstTry: Promise<void>;
  /** Stops the work (if running) and gives the lease back, so another process takes it at once. */
  stop(): Promise<void>;
}

export const DEFAULT_LEASE_TTL_MS = 15_000;

/** Keeps trying for the lease and runs `start()` while holding it. */
export function runWithLease(options: LeaseOptions): LeaseHolder {
  const { redis, key, name, logger } = options;
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const everyMs = Math.max(10, Math.floor(ttlMs / 3));
  // Host and pid for whoever reads the key by hand; the uuid makes it ours alone.
  const token = `${os.hostname()}:${process.pid}:${randomUUID()}`;
  let work: Leased | undefined;
  let renewedAt = 0;
  let stopped = false;
  // One step at a time, in order: a renewal never races the take or the stop.
  const inTurn = inOrder();

  const lose = async (why: string): Promise<void> => {
    const running = work;
    work = undefined;
    logger.warn({ duty: name, why }, 'once-per-deployment duty stopped: lease lost');
    await running?.stop();
  };

  const step = async (): Promise<void> => {
    if (stopped) return;
    // The lease lasts at least ttl from when a SET or renewal was sent (the server applied it
    // later), so the time sent is what a holder counts from.
    const sentAt = Date.now();
    try {
      if (!work) {
        const taken = await redis.set(key, token, 'PX', ttlMs, 'NX');
        if (taken !== 'OK' || stopped) {
          if (taken === 'OK') await redis.eval(RELEASE, 1, key, token);
          return;
        }
        renewedAt = sentAt;
        work = options.start();
        logger.info({ duty: name, pid: process.pid }, 'once-per-deployment duty running here');
        return;
      }
      const renewed = Number(await redis.eval(RENEW, 1, key, token, ttlMs));
      if (renewed === 1) renewedAt = sentAt;
      else await lose('taken by another process');
    } catch (err) {
      // Unreachable Redis: keep going a while, but stop well before the lease can have expired
      // (two failed renewals), so another process never starts the work while this one runs it.
      if (work && Date.now() - renewedAt >= (ttlMs * 2) / 3) await lose('could not renew');
      else logger.warn({ err, duty: name }, 'lease check failed');
    }
  };
  const tick = (): Promise<void> =>
    inTurn(step).catch((err: unknown) =>
      logger.warn({ err, duty: name }, 'once-per-deployment duty failed to stop'),
    );

  const firstTry = tick().then(() => {
    if (!work && !stopped) {
      logger.info({ duty: name, pid: process.pid }, 'once-per-deployment duty held elsewhere');
    }
  });
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();

  return {
    held: () => work !== undefined,
    firstTry,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      // Once the step under way (if any) is done.
      await inTurn(() => Promise.resolve());
      const running = work;
      work = undefined;
      if (!running) return;
      await running.stop();
      await redis
        .eval(RELEASE, 1, key, token)
        .catch((err: unknown) =>
          logger.warn({ err, duty: name }, 'could not give the lease back; it expires by itself'),
        );
    },
  };
}
