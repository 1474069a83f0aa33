import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisConnection } from '@ferry/queues';
import {
  createTestContext,
  createWorkspace,
  entryCommand,
  holdRequest,
  killAll,
  runLoad,
  startService,
  waitUntil,
  type ServiceProcess,
  type TestContext,
} from '@ferry/testing';
import { startErrorWriter } from '../src/worker.js';
import { expectStoredOnce, report } from './support/durability.js';

/**
 * SIGTERM under load, to both processes compose runs (services/ingest-errors/src/main.ts with
 * INGEST_ROLE=http and =worker): each exits 0 well within onShutdown's 25 s; requests in flight
 * get their 202; every report a 202 promised is stored exactly once once a fresh worker has
 * finished the queue, and every job runs to completion once.
 */
const entry = entryCommand('services/ingest-errors/src/main.ts');
const PER_REQUEST = 5;

describe('ingest-errors drains on SIGTERM', () => {
  let ctx: TestContext;
  let workerRedis: Redis;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    ctx = await createTestContext({ INGEST_RATE_LIMIT_PER_MINUTE: '1000000' });
    workerRedis = createRedisConnection(ctx.config.redis, { role: 'worker' });
  });
  afterAll(async () => {
    await killAll(processes);
    workerRedis.disconnect();
    await ctx.close();
  });

  it('answers what it accepted, finishes its jobs, loses and repeats nothing', async () => {
    const [http, worker] = await Promise.all([
      startService({ command: entry, env: { ...ctx.env, INGEST_ROLE: 'http' } }),
      startService({
        command: entry,
        env: { ...ctx.env, INGEST_ROLE: 'worker', LOG_LEVEL: 'info' },
        readyLine: 'error-ingest worker started',
      }),
    ]);
    processes.push(http, worker);
    const ws = await createWorkspace(ctx.db);
    const body = (n: number): string =>
      JSON.stringify({
        errors: Array.from({ length: PER_REQUEST }, (_, j) => report(n * PER_REQUEST + j)),
      });
    const post = async (n: number): Promise<{ status: number; ids: string[] }> => {
      const res = await fetch(`${http.url}/ingest/errors`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-tenant': ws.public_key },
        body: body(n),
      });
      const answer = (await res.json()) as { ids?: string[] };
      return { status: res.status, ids: answer.ids ?? [] };
    };

    const queue = new Queue('error-ingest', {
      connection: ctx.redis,
      prefix: ctx.config.REDIS_PREFIX,
    });
    const load = runLoad(post, 6);
    await waitUntil(() => load.answered.length >= 60, 'the load to get going', 30_000);
    // The worker first, in the middle of writing what the load keeps queueing: the jobs it
    // holds finish before it exits (none is left active), the rest wait for another worker.
    await waitUntil(async () => (await queue.getCompletedCount()) > 0, 'the worker to write');
    const workerExit = await worker.terminate();
    expect(workerExit).toMatchObject({ code: 0, signal: null });
    expect(workerExit.ms).toBeLessThan(10_000);
    expect(await queue.getActiveCount()).toBe(0);
    const atWorkerExit = load.answered.length;
    await waitUntil(
      () => load.answered.length >= atWorkerExit + 20,
      'reports to queue up with no worker',
      30_000,
    );

    const held = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        holdRequest(`${http.url}/ingest/errors`, {
          headers: { 'content-type': 'application/json', 'x-service-tenant': ws.public_key },
          body: body(1_000_000 + i),
        }),
      ),
    );
    // One full round trip after the held requests connected: the server has read their headers.
    await post(2_000_000).then((answer) => load.answered.push(answer));

    try {
      const httpExit = http.terminate();
      const heldAnswers = await Promise.all(held.map((request) => request.finish()));
      expect(heldAnswers.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
      expect(await httpExit).toMatchObject({ code: 0, signal: null });
      expect((await httpExit).ms).toBeLessThan(10_000);
      const answered = await load.stop();

      const accepted = [
        ...answered.filter((a) => a.status === 202),
        ...heldAnswers.map((a) => JSON.parse(a.body) as { ids: string[] }),
      ];
      expect(answered.every((a) => a.status === 202)).toBe(true);
      expect(await queue.getWaitingCount()).toBeGreaterThan(0);

      // A fresh worker takes what is left; every job completes once, none fails.
      const fresh = startErrorWriter({
        config: ctx.config,
        db: ctx.db,
        logger: ctx.logger,
        connection: workerRedis,
        retentionLimit: 1_000_000,
      });
      try {
        await waitUntil(
          async () => (await queue.getCompletedCount()) >= accepted.length,
          'the fresh worker to finish the queue',
          30_000,
        );
      } finally {
        await fresh.close();
      }
      expect(await queue.getJobCounts('completed', 'failed', 'active', 'waiting')).toMatchObject({
        completed: accepted.length,
        failed: 0,
        active: 0,
        waiting: 0,
      });
      await expectStoredOnce(
        ctx.db,
        ws.id,
        accepted.flatMap((a) => a.ids),
      );
    } finally {
      await queue.close();
    }
  });
});
