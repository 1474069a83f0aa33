import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  createTestContext,
  entryCommand,
  killAll,
  startService,
  type ServiceProcess,
  type TestContext,
  waitUntil,
} from '@ferry/testing';
import { drainsOnSigterm } from './support/drain.js';

/**
 * SIGTERM to the all-in-one process (`pnpm start`: services/all/src/main.ts) as one process
 * (FERRY_PROCESSES=1, no cluster): see drainsOnSigterm. cluster.test.ts runs the same drain with
 * two processes.
 */
describe('pnpm start drains on SIGTERM', () => {
  let ctx: TestContext;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    ctx = await createTestContext({
      INGEST_RATE_LIMIT_PER_MINUTE: '1000000',
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000',
    });
  });
  afterAll(async () => {
    await killAll(processes);
    await ctx.close();
  });

  it('ends streams, answers what it took, and stores each report and post once', async () => {
    const ferry = await startService({
      command: entryCommand('services/all/src/main.ts'),
      env: { ...ctx.env, FERRY_PROCESSES: '1' },
    });
    processes.push(ferry);
    // Issue 48: the error writer runs on its own thread (services/all writer.ts, started once
    // HTTP is up), whose connections are named apart from the process's.
    await waitUntil(
      async () => / name=ferry-writer-worker /.test(String(await ctx.redis.call('CLIENT', 'LIST'))),
      "the error writer thread's Redis connection",
    );
    await drainsOnSigterm(ctx, ferry);
  });
});
