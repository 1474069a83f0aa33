import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisConnection } from '@ferry/queues';
import {
  createTestContext,
  createWorkspace,
  startApp,
  type RunningApp,
  type TestContext,
  waitUntil,
  spawnScript,
  type ScriptProcess,
} from '@ferry/testing';
import { createIngestApp, ingestDeps } from '../src/app.js';
import { loadIngestSettings } from '../src/config.js';
import type { IngestDeps } from '../src/deps.js';
import { startErrorWriter } from '../src/worker.js';
import { acceptReports, expectStoredOnce, occurrenceCount } from './support/durability.js';

/**
 * The requirement: no accepted report is lost when the worker is killed mid-batch. The
 * worker runs in real child processes (the service's own factory) that get SIGKILLed: inside a
 * write transaction (rows inserted, not committed), right after a commit (rows stored, the job
 * not yet acknowledged), and at an arbitrary point while it writes. BullMQ hands the jobs the dead
 * workers held to the next worker once their locks expire (stalled-job recovery); the writes are
 * idempotent on occurrence id, so a job run again neither duplicates nor double-counts.
 */
const workerScript = fileURLToPath(new URL('./fixtures/worker-process.ts', import.meta.url));

const REQUESTS = 200;
const PER_REQUEST = 10;
const TOTAL = REQUESTS * PER_REQUEST;

describe('error-ingest worker killed mid-batch', () => {
  let ctx: TestContext;
  let producerRedis: Redis;
  let workerRedis: Redis;
  let deps: IngestDeps;
  let app: RunningApp;
  let worker: Worker<unknown> | undefined;
  const children: ScriptProcess[] = [];

  beforeAll(async () => {
    // The 2,000 reports go to one workspace: far over SPEC's 120 a minute.
    ctx = await createTestContext({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
    producerRedis = createRedisConnection(ctx.config.redis, { role: 'producer' });
    workerRedis = createRedisConnection(ctx.config.redis, { role: 'worker' });
    deps = ingestDeps({
      config: ctx.config,
      settings: loadIngestSettings(ctx.env),
      db: ctx.db,
      logger: ctx.logger,
      redis: producerRedis,
    });
    app = await startApp(createIngestApp(deps, ctx.redis));
    // A producer connection fails fast instead of queueing commands: let it connect first.
    await waitUntil(() => producerRedis.status === 'ready', 'the producer connection');
  });

  afterAll(async () => {
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(children.map((child) => child.exited));
    await worker?.close();
    await app.close();
    await deps.producer.close();
    producerRedis.disconnect();
    workerRedis.disconnect();
    await ctx.close();
  });

  it('stores every accepted report exactly once, counted once, across SIGKILLs', async () => {
    // Start-up of a child is the slow part: pay it for all three at once.
    const inTransaction = spawnScript(workerScript, {
      ...ctx.env,
      FERRY_INGEST_CRASH: 'after-insert:5',
    });
    const afterCommit = spawnScript(workerScript, {
      ...ctx.env,
      FERRY_INGEST_CRASH: 'after-commit:5',
    });
    const killed = spawnScript(workerScript, ctx.env);
    children.push(inTransaction, afterCommit, killed);

    const ws = await createWorkspace(ctx.db);
    // Accepted while no worker runs: 202 means queued, and the queue is all the children see.
    const accepted = await acceptReports(app.url, ws.public_key, REQUESTS, PER_REQUEST);
    expect(accepted).toHaveLength(TOTAL);
    expect(await occurrenceCount(ctx.db, ws.id)).toBe(0);
    await Promise.all(children.map((child) => child.ready));

    // 1. Killed inside the transaction of the batch holding its 5th job: at least one earlier
    //    batch committed (the 5th job starts only when one of the first four finished), the
    //    rows of the whole last batch were rolled back.
    inTransaction.go();
    expect(await inTransaction.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const afterFirst = await occurrenceCount(ctx.db, ws.id);
    expect(afterFirst).toBeGreaterThanOrEqual(PER_REQUEST);
    expect(afterFirst).toBeLessThan(TOTAL);

    // 2. Killed right after committing the batch holding its 5th job: those rows are stored,
    //    but BullMQ still holds the batch's jobs as active and will run them again.
    afterCommit.go();
    expect(await afterCommit.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const afterSecond = await occurrenceCount(ctx.db, ws.id);
    expect(afterSecond).toBeGreaterThan(afterFirst);
    expect(afterSecond).toBeLessThan(TOTAL);

    // 3. Killed from outside at an arbitrary point while it writes.
    killed.go();
    await waitUntil(
      async () => (await occurrenceCount(ctx.db, ws.id)) >= afterSecond + 100,
      'the third worker to make progress',
    );
    killed.child.kill('SIGKILL');
    expect((await killed.exited).signal).toBe('SIGKILL');
    expect(await occurrenceCount(ctx.db, ws.id)).toBeLessThan(TOTAL);

    // 4. A fresh worker (full-size batches) takes the rest, including every job a dead worker
    //    held (stalled once its lock expires), re-running committed ones without counting twice.
    worker = startErrorWriter({
      config: ctx.config,
      db: ctx.db,
      logger: ctx.logger,
      connection: workerRedis,
      retentionLimit: 20_000,
      stalled: { lockDurationMs: 1_000, stalledIntervalMs: 500 },
    });
    const queue = deps.producer.queue('error-ingest');
    await waitUntil(
      async () => (await queue.getCompletedCount()) === REQUESTS,
      'every job to complete',
      30_000,
    );
    expect(await queue.getJobCounts('failed', 'active', 'waiting', 'delayed')).toEqual({
      failed: 0,
      active: 0,
      waiting: 0,
      paused: 0, // BullMQ counts it alongside waiting
      delayed: 0,
    });
    await expectStoredOnce(ctx.db, ws.id, accepted);
  });
});
