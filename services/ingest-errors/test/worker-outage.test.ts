import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createDb, type Db } from '@ferry/db';
import { createRedisConnection } from '@ferry/queues';
import {
  createTestContext,
  createWorkspace,
  startApp,
  type RunningApp,
  type TestContext,
  waitUntil,
} from '@ferry/testing';
import { createIngestApp, ingestDeps } from '../src/app.js';
import { loadIngestSettings } from '../src/config.js';
import type { IngestDeps } from '../src/deps.js';
import { startErrorWriter } from '../src/worker.js';
import { acceptReports, expectStoredOnce, occurrenceCount } from './support/durability.js';

/**
 * A TCP proxy in front of the real Postgres that the test can take down: down, it refuses new
 * connections and cuts the open ones, which is what the service sees when Postgres stops.
 */
interface PgProxy {
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

async function startProxy(target: { host: string; port: number }): Promise<PgProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = async (): Promise<void> => {
    const listening = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        // The peer's reset or our own cut: just close both ends.
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    // The same port each time, as a restarted Postgres would be.
    await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    port = (listening.address() as net.AddressInfo).port;
    server = listening;
  };
  const down = async (): Promise<void> => {
    const closing = new Promise<void>((resolve) => server?.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closing;
  };
  await listen();
  return { port, down, up: listen, close: down };
}

describe('error-ingest while Postgres is down', () => {
  let ctx: TestContext;
  let proxy: PgProxy;
  /** The service's own database handle, through the proxy. */
  let serviceDb: Db;
  let producerRedis: Redis;
  let workerRedis: Redis;
  let deps: IngestDeps;
  let app: RunningApp;
  let worker: Worker<unknown>;

  beforeAll(async () => {
    ctx = await createTestContext({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
    const direct = new URL(ctx.config.DATABASE_URL);
    proxy = await startProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const proxied = new URL(direct);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    serviceDb = createDb(proxied.toString(), { max: 5 });
    producerRedis = createRedisConnection(ctx.config.redis, { role: 'producer' });
    workerRedis = createRedisConnection(ctx.config.redis, { role: 'worker' });
    deps = ingestDeps({
      config: ctx.config,
      settings: loadIngestSettings(ctx.env),
      db: serviceDb,
      logger: ctx.logger,
      redis: producerRedis,
    });
    app = await startApp(createIngestApp(deps, ctx.redis));
    worker = startErrorWriter({
      config: ctx.config,
      db: serviceDb,
      logger: ctx.logger,
      connection: workerRedis,
      retentionLimit: 20_000,
      // The production policy's shape, scaled down so the test takes seconds, not minutes.
      backoff: { baseMs: 200, maxMs: 800 },
    });
    await waitUntil(() => producerRedis.status === 'ready', 'the producer connection');
  });

  afterAll(async () => {
    await worker.close();
    await app.close();
    await deps.producer.close();
    producerRedis.disconnect();
    workerRedis.disconnect();
    await serviceDb.destroy();
    await proxy.close();
    await ctx.close();
  });

  it('keeps retrying accepted reports until Postgres is back, then stores each once', async () => {
    const ws = await createWorkspace(ctx.db);
    // One report while Postgres is up: the tenant lookup is cached from here on, so the HTTP path
    // needs only Redis.
    const first = await acceptReports(app.url, ws.public_key, 1, 1, 1);
    await waitUntil(async () => (await occurrenceCount(ctx.db, ws.id)) === 1, 'the first write');

    const failures = new Map<string, number>();
    worker.on('failed', (job: Job<unknown> | undefined) => {
      if (job?.id) failures.set(job.id, (failures.get(job.id) ?? 0) + 1);
    });

    await proxy.down();
    const downAt = Date.now();
    const accepted = await acceptReports(app.url, ws.public_key, 20, 10, 4);
    // Every job has failed at least three attempts (two backoffs), and Postgres stays down for
    // several seconds: longer than the whole retry budget the catalog used to have here.
    await waitUntil(
      () => failures.size === 20 && [...failures.values()].every((n) => n >= 3),
      'every job to fail three attempts',
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 4_000 - (Date.now() - downAt))));
    const queue = deps.producer.queue('error-ingest');
    expect(await queue.getFailedCount()).toBe(0); // failed attempts, not failed jobs
    expect(await occurrenceCount(ctx.db, ws.id)).toBe(1);

    await proxy.up();
    await waitUntil(
      async () => (await occurrenceCount(ctx.db, ws.id)) === 1 + accepted.length,
      'the backlog to be written after Postgres came back',
      30_000,
    );
    await waitUntil(async () => (await queue.getCompletedCount()) === 21, 'every job to complete');
    expect(await queue.getFailedCount()).toBe(0);
    await expectStoredOnce(ctx.db, ws.id, [...first, ...accepted]);
  });
});
