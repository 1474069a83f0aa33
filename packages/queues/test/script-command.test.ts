import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createTestContext, waitUntil, type TestContext } from '@ferry/testing';
import { scriptCommand } from '../src/index.js';

/**
 * scriptCommand: a Lua script called by its digest (EVALSHA), loaded with EVAL the first time
 * Redis does not know it (a new script, or after a restart), and by digest from then on.
 */
describe('scriptCommand', () => {
  let ctx: TestContext;
  let redis: Redis;
  beforeAll(async () => {
    ctx = await createTestContext();
    redis = new Redis(ctx.config.REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    redis.disconnect();
    await ctx.close();
  });

  it('runs a script Redis has never seen, then sends only its digest (EVALSHA)', async () => {
    // A script text no earlier run has loaded: the first call must fall back to EVAL.
    const lua = `-- ${ctx.config.REDIS_PREFIX}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`;
    const sha = createHash('sha1').update(lua).digest('hex');
    expect(await redis.script('EXISTS', sha)).toEqual([0]);
    const add = scriptCommand<number>(redis, 'ferryTestAdd', lua);
    const key = `${ctx.config.REDIS_PREFIX}:script-command`;
    expect(await add(1, key, 2)).toBe(2);
    // What goes over the wire on the next call, as Redis's MONITOR sees it (a plain EVAL also
    // leaves the script cached, so only the command sent tells the two apart).
    const monitor = await redis.monitor();
    try {
      const seen: string[][] = [];
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args.includes(key)) seen.push(args);
      });
      // Bound once per connection: asking again gives the same command.
      expect(await scriptCommand<number>(redis, 'ferryTestAdd', lua)(1, key, 3)).toBe(5);
      await waitUntil(() => seen.length > 0, 'MONITOR to show the call');
      expect(seen[0]!.slice(0, 2)).toEqual(['evalsha', sha]);
    } finally {
      monitor.disconnect();
    }
  });
});
