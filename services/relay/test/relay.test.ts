import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { newId } from '@ferry/core';
import { createProducer, createRedisConnection, writeEvent, type Producer } from '@ferry/queues';
import { createTestContext, waitUntil, type TestContext } from '@ferry/testing';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** The relay's own entry, started the way compose's `relay` container starts it. */
describe('relay service', () => {
  let ctx: TestContext;
  let child: ChildProcess;
  let exited: Promise<number | null>;
  let connection: ReturnType<typeof createRedisConnection>;
  let producer: Producer;
  const output: Buffer[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
    connection = createRedisConnection(ctx.config.REDIS_URL, { role: 'producer' });
    producer = createProducer({ connection, prefix: ctx.config.REDIS_PREFIX });
    child = spawn(process.execPath, ['--import', 'tsx', main], {
      cwd: repoRoot,
      env: { ...process.env, ...ctx.env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk));
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    await waitUntil(() => {
      if (child.exitCode !== null) throw new Error(Buffer.concat(output).toString('utf8'));
      return Promise.resolve(
        Buffer.concat(output).toString('utf8').includes('outbox relay started'),
      );
    }, 'the relay to start');
  });

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await producer.close();
    connection.disconnect();
    await ctx.close();
  });

  it('relays committed events to their queues, then stops cleanly on SIGTERM', async () => {
    const feedbackId = newId('feedback');
    const eventId = await writeEvent(ctx.db, 'feedback_filed', {
      feedbackId,
      workspaceId: newId('workspace'),
    });
    await waitUntil(async () => {
      const row = await ctx.db
        .selectFrom('outbox')
        .select('sent_at')
        .where('id', '=', eventId)
        .executeTakeFirstOrThrow();
      return row.sent_at !== null;
    }, 'the event to be relayed');
    const job = await producer.queue('agent-work').getJob(eventId);
    expect(job?.data).toMatchObject({ kind: 'feedback', feedbackId });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Buffer.concat(output).toString('utf8')).toContain('shutting down');
  });
});
