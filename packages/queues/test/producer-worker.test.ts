import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { newId } from '@ferry/core';
import { createTestContext, type TestContext, waitUntil } from '@ferry/testing';
import {
  checkHandlers,
  closeWorkers,
  closeWorkersOnSignal,
  createProducer,
  createRedisConnection,
  createWorker,
  InvalidPayloadError,
  queueCatalog,
  registerWorkers,
  type JobHandler,
  type JobPayload,
  type Producer,
  type WorkerOptions,
} from '../src/index.js';

function ready(redis: Redis): Promise<void> {
  return redis.status === 'ready'
    ? Promise.resolve()
    : new Promise((resolve) => redis.once('ready', () => resolve()));
}

describe('producer and worker', () => {
  let ctx: TestContext;
  let producerConnection: Redis;
  let workerConnection: Redis;
  let producer: Producer;
  let workerOptions: WorkerOptions;
  const workers: Worker<unknown>[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
    producerConnection = createRedisConnection(ctx.config.redis, { role: 'producer' });
    workerConnection = createRedisConnection(ctx.config.redis, { role: 'worker' });
    producer = createProducer({
      connection: producerConnection,
      prefix: ctx.config.REDIS_PREFIX,
      logger: ctx.logger,
    });
    workerOptions = {
      connection: workerConnection,
      prefix: ctx.config.REDIS_PREFIX,
      logger: ctx.logger,
    };
  });

  afterAll(async () => {
    await closeWorkers(workers);
    await producer.close();
    await producerConnection.quit();
    await workerConnection.quit();
    await ctx.close();
  });

  it('rejects an invalid payload before it reaches Redis', async () => {
    await expect(
      // @ts-expect-error: the catalog requires workspaceId, and the compiler knows it
      producer.add('agent-wake', { agentId: newId('agent') }),
    ).rejects.toThrow(/queue "agent-wake".*workspaceId/);
    await expect(
      producer.add('agent-wake', { agentId: 'not an id', workspaceId: newId('workspace') }),
    ).rejects.toBeInstanceOf(InvalidPayloadError);
    await expect(
      producer.add(
        'agent-wake',
        { agentId: newId('agent'), workspaceId: newId('workspace') },
        { jobId: 'wake:1' },
      ),
    ).rejects.toThrow(/must not contain ':'/);
    expect(await producer.queue('agent-wake').count()).toBe(0);
  });

  it('hands a worker the validated payload, typed by its queue', async () => {
    const sent = { agentId: newId('agent'), workspaceId: newId('workspace') };
    const received = new Promise<JobPayload<'agent-wake'>>((resolve) => {
      workers.push(
        createWorker(
          'agent-wake',
          (payload) => {
            const agent: string = payload.agentId; // typed, not unknown
            resolve({ ...payload, agentId: agent });
            return Promise.resolve('woken');
          },
          workerOptions,
        ),
      );
    });
    await producer.add('agent-wake', sent, { jobId: `wake-${sent.agentId}` });
    expect(await received).toEqual(sent);
    const job = await producer.queue('agent-wake').getJob(`wake-${sent.agentId}`);
    expect(job?.name).toBe('agent-wake');
    expect(job?.opts.attempts).toBe(5);
  });

  it('fails a job with an invalid payload at once, without retries', async () => {
    let calls = 0;
    const worker = createWorker(
      'dispatch',
      () => {
        calls++;
        return Promise.resolve();
      },
      workerOptions,
    );
    workers.push(worker);
    const failed = new Promise<{ job: Job<unknown> | undefined; err: Error }>((resolve) =>
      worker.on('failed', (job, err) => resolve({ job, err })),
    );
    // Straight to BullMQ, past the producer's validation: what an old or buggy producer could do.
    const raw = await producer.queue('dispatch').add('dispatch', { dispatchId: 42 });
    const { err } = await failed;
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect(err.message).toMatch(/queue "dispatch".*dispatchId/);
    const stored = await producer.queue('dispatch').getJob(raw.id!);
    expect(await stored?.getState()).toBe('failed');
    // The queue's default attempts stand (so retries were possible), yet it ran once.
    expect(stored?.opts.attempts).toBe(queueCatalog.dispatch.jobOptions.attempts);
    expect(stored?.opts.attempts).toBeGreaterThan(1);
    expect(stored?.attemptsMade).toBe(1);
    expect(calls).toBe(0);
  });

  it('fails an attempt that outlives its timeout and aborts its signal', async () => {
    let aborted = false;
    const worker = createWorker(
      'agent-work',
      (_payload, _job, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve(undefined);
          });
        }),
      { ...workerOptions, timeoutMs: 50 },
    );
    workers.push(worker);
    const failed = new Promise<Error>((resolve) =>
      worker.on('failed', (_job, err) => resolve(err)),
    );
    await producer.add('agent-work', {
      kind: 'feedback',
      eventId: newId('outbox'),
      feedbackId: newId('feedback'),
      workspaceId: newId('workspace'),
    });
    expect((await failed).message).toMatch(/timed out after 50 ms/);
    expect(aborted).toBe(true);
  });

  it('refuses two handlers for one queue, a consumed queue with none, and an unconsumed one', () => {
    const handler: JobHandler<'agent-wake'> = () => Promise.resolve();
    expect(() =>
      registerWorkers([{ 'agent-wake': handler }, { 'agent-wake': handler }], {
        ...workerOptions,
        consumes: ['agent-wake'],
      }),
    ).toThrow(/exactly one handler; more than one for: agent-wake/);
    expect(() => checkHandlers([{ 'agent-wake': handler }], ['agent-wake', 'dispatch'])).toThrow(
      /none for: dispatch \(consumed by this process\)/,
    );
    expect(() => checkHandlers([{ 'agent-wake': handler }], [])).toThrow(
      /queues this process does not consume: agent-wake/,
    );
    expect(
      checkHandlers(
        [{ dispatch: () => Promise.resolve() }, { 'agent-wake': handler }],
        ['dispatch', 'agent-wake'],
      ),
    ).toEqual(['agent-wake', 'dispatch']);
  });

  it('closes workers on SIGTERM only after their active jobs finish', async () => {
    let finished = false;
    let started!: () => void;
    const active = new Promise<void>((resolve) => (started = resolve));
    const [worker] = registerWorkers(
      {
        'error-ingest': async () => {
          started();
          await new Promise((resolve) => setTimeout(resolve, 300));
          finished = true;
        },
      },
      { ...workerOptions, consumes: ['error-ingest'] },
    );
    let exitCode: number | undefined;
    const dispose = closeWorkersOnSignal([worker!], ctx.logger, {
      exit: (code) => (exitCode = code),
    });
    try {
      await producer.add('error-ingest', { workspaceId: newId('workspace'), reports: [{ a: 1 }] });
      await active;
      process.emit('SIGTERM', 'SIGTERM');
      await waitUntil(() => exitCode !== undefined, 'the shutdown to finish');
      expect(exitCode).toBe(0);
      expect(finished).toBe(true);
      expect(worker!.closing).toBeTruthy();
      expect(await producer.queue('error-ingest').getCompletedCount()).toBe(1);
    } finally {
      dispose();
    }
  });

  it('honours the database index in the Redis URL', async () => {
    const url = new URL(ctx.config.REDIS_URL);
    url.pathname = '/3';
    const other = createRedisConnection(
      { mode: 'direct', url: url.toString() },
      { role: 'producer' },
    );
    try {
      expect(other.options.db).toBe(3);
      await ready(other);
      const key = `${ctx.config.REDIS_PREFIX}:db-check`;
      await other.set(key, 'in db 3');
      expect(await ctx.redis.get(key)).toBeNull();
      await other.del(key);
    } finally {
      await other.quit();
    }
  });
});
