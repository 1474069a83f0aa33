import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createTestContext, waitUntil, type TestContext } from '@ferry/testing';
import { runWithLease, type LeaseHolder } from '../src/index.js';

/**
 * The once-per-deployment lease: of several processes trying, one runs the work; a clean stop
 * hands it over at once; a holder that goes silent (its Redis connection gone, as when its
 * process dies) stops its own work and another takes over once the lease expires.
 */
describe('runWithLease', () => {
  let ctx: TestContext;
  const holders: LeaseHolder[] = [];
  const connections: Redis[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    for (const holder of holders) await holder.stop();
    for (const redis of connections) redis.disconnect();
    await ctx.close();
  });

  /** Contenders whose work runs now, by key: more than one at a time is the bug. */
  const runningNow = new Map<string, number>();
  let overlapped = false;

  /** A "process": its own connection, and a record of when its work runs. */
  const contender = (key: string, ttlMs: number) => {
    const redis = new Redis(ctx.config.REDIS_URL, { maxRetriesPerRequest: 1 });
    connections.push(redis);
    const state = { running: false, starts: 0, stops: 0 };
    const holder = runWithLease({
      redis,
      key,
      name: 'test-duty',
      logger: ctx.logger,
      ttlMs,
      start: () => {
        if ((runningNow.get(key) ?? 0) > 0) overlapped = true;
        runningNow.set(key, (runningNow.get(key) ?? 0) + 1);
        state.running = true;
        state.starts++;
        return {
          stop: () => {
            runningNow.set(key, (runningNow.get(key) ?? 1) - 1);
            state.running = false;
            state.stops++;
            return Promise.resolve();
          },
        };
      },
    });
    holders.push(holder);
    return { redis, state, holder };
  };

  it('runs the work in one contender; a clean stop hands it to another', async () => {
    const key = `${ctx.config.REDIS_PREFIX}:lease:clean`;
    const a = contender(key, 3_000);
    await a.holder.firstTry;
    const b = contender(key, 3_000);
    await b.holder.firstTry;
    expect([a.state.running, b.state.running]).toEqual([true, false]);
    expect([a.holder.held(), b.holder.held()]).toEqual([true, false]);

    await a.holder.stop();
    expect(a.state).toEqual({ running: false, starts: 1, stops: 1 });
    // Given back, not left to expire: b's next try (every ttl / 3) takes it.
    await waitUntil(() => b.state.running, 'the other contender to take the lease', 10_000);
    expect(b.state.starts).toBe(1);
  });

  it('a holder that cannot reach Redis stops its work; another takes over after the ttl', async () => {
    const key = `${ctx.config.REDIS_PREFIX}:lease:silent`;
    // Long enough that a loaded host's late timers still leave a margin between a's giving up
    // (two thirds of it) and the key's expiry.
    const a = contender(key, 3_000);
    await a.holder.firstTry;
    const b = contender(key, 3_000);
    await b.holder.firstTry;
    expect(a.state.running).toBe(true);
    // As if a's process hung or lost its network: no more renewals.
    a.redis.disconnect();
    await waitUntil(() => !a.state.running, 'the silent holder to stop its work', 10_000);
    await waitUntil(() => b.state.running, 'the other contender to take over', 10_000);
    expect(a.state.stops).toBe(1);
    expect(overlapped).toBe(false);
  });
});
