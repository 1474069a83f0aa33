import { createIngestApp, ingestDeps, startErrorWriter } from '../../src/index.js';
import { createRedisConnection, redisReady } from '@ferry/queues';
import {
  createTestContext,
  startApp,
  waitUntil,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';

/**
 * The real ingest service (its own app: health, POST /ingest/errors, JSON errors) on a random port
 * with its writer running in this process, as services/ingest-errors/test/http.test.ts does.
 */
export interface SeenRequest {
  method: string;
  /** The path with its query. */
  url: string;
  encoding: string | undefined;
  status: number;
}

export interface IngestService {
  ctx: TestContext;
  url: string;
  /** Every request the service answered, oldest first. */
  requests: SeenRequest[];
  /**
   * Holds the service's clock at `at` (now when absent) until unpinned: a test that counts up to
   * the per-minute limit must not have its requests split across two wall-clock minutes.
   */
  pinClock(at?: Date): void;
  unpinClock(): void;
  /** Waits until the workspace has at least `count` occurrences written. */
  waitForOccurrences(workspaceId: string, count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startIngestService(
  options: { rateLimitPerMinute?: number; sourceMapQuotaMb?: number } = {},
): Promise<IngestService> {
  const ctx = await createTestContext();
  const producerRedis = createRedisConnection(ctx.config.redis, { role: 'producer' });
  await redisReady(producerRedis);
  const workerRedis = createRedisConnection(ctx.config.redis, { role: 'worker' });
  let pinned: Date | undefined;
  const deps = ingestDeps({
    now: () => pinned ?? new Date(),
    config: ctx.config,
    settings: {
      ERROR_INGESTION_ENABLED: true,
      INGEST_RATE_LIMIT_PER_MINUTE: options.rateLimitPerMinute ?? 120,
      ERROR_RETENTION_LIMIT: 20_000,
      SOURCE_MAP_QUOTA_MB: options.sourceMapQuotaMb ?? 200,
      INGEST_ROLE: 'all',
    },
    db: ctx.db,
    logger: ctx.logger,
    redis: producerRedis,
  });
  const requests: SeenRequest[] = [];
  const ingestApp = createIngestApp(deps, ctx.redis);
  const app: RunningApp = await startApp((req, res) => {
    res.on('finish', () =>
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        encoding: req.headers['content-encoding'],
        status: res.statusCode,
      }),
    );
    ingestApp(req, res);
  });
  // A producer connection fails fast instead of queueing commands (503): let it connect first,
  // as the ingest service's own tests do; on a busy machine the first request can beat it.
  for (let waited = 0; producerRedis.status !== 'ready'; waited += 20) {
    if (waited > 10_000) throw new Error('the producer Redis connection did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const worker = startErrorWriter({
    config: ctx.config,
    db: ctx.db,
    logger: ctx.logger,
    connection: workerRedis,
    retentionLimit: 20_000,
  });

  async function count(workspaceId: string): Promise<number> {
    const row = await ctx.db
      .selectFrom('error_occurrences')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  return {
    ctx,
    url: app.url,
    requests,
    pinClock(at = new Date()) {
      pinned = at;
    },
    unpinClock() {
      pinned = undefined;
    },
    async waitForOccurrences(workspaceId, wanted) {
      let written = 0;
      await waitUntil(
        async () => (written = await count(workspaceId)) >= wanted,
        () => `${wanted} occurrences written (${written} were)`,
        30_000,
        50,
      );
    },
    async close() {
      await app.close();
      await worker.close();
      await deps.producer.close();
      producerRedis.disconnect();
      workerRedis.disconnect();
      await ctx.close();
    },
  };
}
