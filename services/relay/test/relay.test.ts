import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import { createProducer, createRedisConnection, writeEvent, type Producer } from '@ferry/queues';
import {
  createTestContext,
  entryCommand,
  killAll,
  runLoad,
  startService,
  waitUntil,
  type ServiceProcess,
  type TestContext,
} from '@ferry/testing';

const command = entryCommand('services/relay/src/main.ts');
const startRelayProcess = (ctx: TestContext): Promise<ServiceProcess> =>
  startService({
    command,
    env: { ...ctx.env, LOG_LEVEL: 'info' },
    readyLine: 'outbox relay started',
  });

/** The relay's own entry, started the way compose's `relay` container starts it. */
describe('relay service', () => {
  let ctx: TestContext;
  const processes: ServiceProcess[] = [];
  let connection: ReturnType<typeof createRedisConnection>;
  let producer: Producer;

  beforeAll(async () => {
    ctx = await createTestContext();
    connection = createRedisConnection(ctx.config.redis, { role: 'producer' });
    producer = createProducer({ connection, prefix: ctx.config.REDIS_PREFIX });
  });

  afterAll(async () => {
    await killAll(processes);
    await producer.close();
    connection.disconnect();
    await ctx.close();
  });

  const unsent = async (): Promise<number> =>
    (await ctx.db.selectFrom('outbox').select('id').where('sent_at', 'is', null).execute()).length;

  it('relays committed events to their queues, then stops cleanly on SIGTERM', async () => {
    const relay = await startRelayProcess(ctx);
    processes.push(relay);
    const feedbackId = newId('feedback');
    const eventId = await writeEvent(ctx.db, 'feedback_filed', {
      feedbackId,
      workspaceId: newId('workspace'),
    });
    await waitUntil(async () => (await unsent()) === 0, 'the event to be relayed');
    const job = await producer.queue('agent-work').getJob(eventId);
    expect(job?.data).toMatchObject({ kind: 'feedback', feedbackId });

    expect(await relay.terminate()).toMatchObject({ code: 0 });
    expect(relay.log()).toContain('shutting down');
  });

  it('drains under load: exits 0 mid-stream, and a fresh relay sends the rest, each once', async () => {
    const relay = await startRelayProcess(ctx);
    processes.push(relay);
    // Events committed steadily across the signal, as web and webhooks-in write them.
    const load = runLoad(
      () =>
        writeEvent(ctx.db, 'feedback_filed', {
          feedbackId: newId('feedback'),
          workspaceId: newId('workspace'),
        }),
      3,
    );
    await waitUntil(() => load.answered.length >= 100, 'events to be written', 30_000);
    const exit = await relay.terminate();
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(10_000);
    const written = await load.stop();

    const fresh = await startRelayProcess(ctx);
    processes.push(fresh);
    await waitUntil(async () => (await unsent()) === 0, 'the fresh relay to send the rest', 30_000);
    expect(await fresh.terminate()).toMatchObject({ code: 0 });
    // One job per event (the job id is the event id), none missing.
    const queue = producer.queue('agent-work');
    const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized']);
    const ids = jobs.map((job) => job.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of written) expect(ids).toContain(id);
  });
});
