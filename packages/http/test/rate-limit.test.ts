import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, waitUntil, type TestContext } from '@ferry/testing';
import { groupedRateLimit, hitRateLimit } from '../src/rate-limit.js';

/**
 * The fixed-window limit (incoming webhook posts, sign-ins, the widget): one hit a call, or the
 * hits of the moment grouped into one script call (issue 48: one Redis round trip per group of
 * incoming posts instead of one per post), with the same answers.
 */
describe('rate limits in Redis', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });
  const key = (name: string) => `${ctx.config.REDIS_PREFIX}:rl-test:${name}`;

  it('lets `limit` hits through in a window, then answers the seconds left', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await hitRateLimit(ctx.redis, key('one'), 3, 30_000));
    expect(answers.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(answers[3]).toBeGreaterThanOrEqual(29);
    expect(answers[3]).toBeLessThanOrEqual(30);
  });

  it('groups concurrent hits into one call, each key counted in arrival order', async () => {
    const limits = groupedRateLimit(ctx.redis, 30_000);
    // Every script call Redis runs, in the order it runs them.
    const calls: string[] = [];
    const feed = await ctx.redis.monitor();
    feed.on('monitor', (_time: string, args: string[]) => {
      if (String(args[0]).toLowerCase().startsWith('eval')) calls.push(args.join(' '));
    });
    try {
      // Five hits on A (limit 2) and two on B (limit 5), submitted in the same turn.
      const hits = [
        ...Array.from({ length: 5 }, () => limits.hit(key('A'), 2)),
        limits.hit(key('B'), 5),
        limits.hit(key('B'), 5),
      ];
      const answers = await Promise.all(hits);
      expect(answers.slice(0, 2)).toEqual([undefined, undefined]);
      for (const refused of answers.slice(2, 5)) expect(refused).toBeGreaterThanOrEqual(29);
      expect(answers.slice(5)).toEqual([undefined, undefined]);
      // A one-hit call's answer agrees with the grouped count.
      expect(await hitRateLimit(ctx.redis, key('B'), 3, 30_000)).toBeUndefined();
      expect(await hitRateLimit(ctx.redis, key('B'), 3, 30_000)).toBeGreaterThanOrEqual(29);
      // The feed is in order: once it shows the last call, it has shown the grouped ones.
      await waitUntil(
        () => calls.filter((call) => call.includes(key('B'))).length >= 3,
        () => `MONITOR to show the three calls naming B (saw ${calls.length} calls)`,
      );
      expect(calls.filter((call) => call.includes(key('A')))).toHaveLength(1);
    } finally {
      feed.disconnect();
    }
  });

  it('rejects every hit of a group when Redis refuses the call', async () => {
    const broken = ctx.redis.duplicate();
    await broken.quit();
    const limits = groupedRateLimit(broken);
    const results = await Promise.allSettled([limits.hit(key('C'), 1), limits.hit(key('D'), 1)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });
});
