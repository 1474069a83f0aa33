import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestContext,
  entryCommand,
  freePort,
  killAll,
  startService,
  type ServiceProcess,
  type TestContext,
  waitFor,
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

  it('ends the process when its error writer thread dies after start', async () => {
    // Spawned bare rather than through startService, whose readiness poll would race the exit.
    const [node, ...args] = entryCommand('services/all/src/main.ts');
    const child = spawn(node === 'node' ? process.execPath : node!, args, {
      env: {
        ...process.env,
        ...ctx.env,
        FERRY_PROCESSES: '1',
        PORT: String(await freePort()),
        // The line this test reads is a fatal one; the suite's children are silent otherwise.
        LOG_LEVEL: 'fatal',
        FERRY_WRITER_THREAD_FAIL: 'after-up',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    let exit: { code: number | null } | undefined;
    child.once('close', (code: number | null) => (exit = { code }));
    try {
      const { code } = await waitFor(
        () => exit,
        () => `pnpm start to exit after its error writer thread failed; it wrote:\n${output}`,
        60_000,
      );
      expect(output).toContain('the error writer thread ended unasked; stopping the process');
      expect(code).toBe(1);
    } finally {
      if (!exit) child.kill('SIGKILL');
    }
  });
});
