import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createRedisConnection, redisReady } from '@ferry/queues';
import {
  createTestContext,
  createWorkspace,
  startApp,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';
import { createIngestApp, ingestDeps } from '../src/app.js';
import type { IngestSettings } from '../src/config.js';
import type { IngestDeps } from '../src/deps.js';
import { rateLimitKey } from '../src/rate-limit.js';

/**
 * Group commit on the accept path (issue #12): requests arriving together share one rate-limit
 * script call and one addBulk. No worker runs here, so every accepted report stays a queued job
 * the test can read back.
 */
const SETTINGS: IngestSettings = {
  ERROR_INGESTION_ENABLED: true,
  INGEST_RATE_LIMIT_PER_MINUTE: 1_000,
  ERROR_RETENTION_LIMIT: 20_000,
  SOURCE_MAP_QUOTA_MB: 200,
  INGEST_ROLE: 'http',
};

interface QueuedJob {
  workspaceId: string;
  reports: { id: string }[];
}

describe('POST /ingest/errors, group commit', () => {
  let ctx: TestContext;
  let producerRedis: Redis;
  const running: { app: RunningApp; deps: IngestDeps }[] = [];

  async function start(settings: Partial<IngestSettings> = {}) {
    const deps = ingestDeps({
      config: ctx.config,
      settings: { ...SETTINGS, ...settings },
      db: ctx.db,
      logger: ctx.logger,
      redis: producerRedis,
    });
    const app = await startApp(createIngestApp(deps, ctx.redis));
    running.push({ app, deps });
    return { app, deps };
  }

  const post = (url: string, publicKey: string, reports: number, tag: string) =>
    fetch(`${url}/ingest/errors`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Service-Tenant': publicKey },
      body: JSON.stringify({
        errors: Array.from({ length: reports }, (_, i) => ({
          error_class: 'TypeError',
          message: `${tag} ${i}`,
        })),
      }),
    });

  /** Reports counted for the workspace since `since` (both minutes, should the test straddle one). */
  async function usedSince(workspaceId: string, since: Date): Promise<number> {
    const keys = new Set(
      [since, new Date()].map((at) => rateLimitKey(ctx.config.REDIS_PREFIX, workspaceId, at)),
    );
    const values = await Promise.all([...keys].map((key) => ctx.redis.get(key)));
    return values.reduce((sum, value) => sum + Number(value ?? 0), 0);
  }

  async function queuedJobs(deps: IngestDeps): Promise<QueuedJob[]> {
    const jobs = await deps.producer.queue('error-ingest').getJobs(['waiting', 'prioritized']);
    return jobs.map((job) => job.data as QueuedJob);
  }

  beforeAll(async () => {
    ctx = await createTestContext();
    producerRedis = createRedisConnection(ctx.config.redis, { role: 'producer' });
    await redisReady(producerRedis);
  });

  afterAll(async () => {
    for (const { app, deps } of running) {
      await app.close();
      await deps.producer.close();
    }
    producerRedis.disconnect();
    await ctx.close();
  });

  it('accepts concurrent requests in shared groups, each with its own ids, each queued', async () => {
    const { app, deps } = await start();
    const workspaces = await Promise.all([1, 2, 3, 4].map(() => createWorkspace(ctx.db)));
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(app.url, workspaces[i % 4]!.public_key, 5, `r${i}`),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(40).fill(202));
    const bodies = (await Promise.all(answers.map((res) => res.json()))) as {
      accepted: number;
      ids: string[];
    }[];
    const ids = bodies.flatMap((body) => body.ids);
    expect(bodies.every((body) => body.accepted === 5)).toBe(true);
    expect(new Set(ids).size).toBe(200);

    // Fewer round trips than requests: the 40 requests went in groups.
    expect(deps.accepts.stats.items).toBe(40);
    expect(deps.accepts.stats.groups).toBeLessThan(40);
    expect(deps.accepts.stats.largestGroup).toBeGreaterThan(1);

    // One job per request, holding exactly the ids that request was answered with.
    const jobs = await queuedJobs(deps);
    expect(jobs).toHaveLength(40);
    expect(new Set(jobs.flatMap((job) => job.reports.map((r) => r.id)))).toEqual(new Set(ids));
    for (const ws of workspaces) {
      const jobsOfWs = jobs.filter((job) => job.workspaceId === ws.id);
      expect(jobsOfWs).toHaveLength(10);
    }
  });

  it('cuts one workspace at its limit inside a group, in arrival order', async () => {
    const { app, deps } = await start({ INGEST_RATE_LIMIT_PER_MINUTE: 25 });
    const ws = await createWorkspace(ctx.db);
    const since = new Date();
    const answers = await Promise.all(
      [0, 1, 2, 3].map((i) => post(app.url, ws.public_key, 10, `cut${i}`)),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([202, 202, 202, 429]);
    const accepted = await Promise.all(
      answers
        .filter((res) => res.status === 202)
        .map(async (res) => ((await res.json()) as { accepted: number }).accepted),
    );
    expect(accepted.sort((a, b) => a - b)).toEqual([5, 10, 10]);
    expect(await usedSince(ws.id, since)).toBe(25);
    expect(deps.accepts.stats.items).toBe(4);
  });

  it('answers 503 to every request of a group whose addBulk fails, and counts none of them', async () => {
    const { app, deps } = await start();
    const workspaces = await Promise.all([1, 2].map(() => createWorkspace(ctx.db)));
    // A real Redis fault, nothing mocked: BullMQ's add script INCRs the queue's id counter, which
    // now holds text, so every add of the pipeline fails with a Redis error.
    const idKey = `${ctx.config.REDIS_PREFIX}:error-ingest:id`;
    await ctx.redis.set(idKey, 'not a number');
    const queuedBefore = (await queuedJobs(deps)).length;
    const since = new Date();
    try {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          post(app.url, workspaces[i % 2]!.public_key, 3, `down${i}`),
        ),
      );
      expect(answers.map((res) => res.status)).toEqual(Array(12).fill(503));
      const body = (await answers[0]!.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('unavailable');
      expect(body.error.message).toMatch(/nothing was saved/);
      // Whole groups failed, several requests at a time.
      expect(deps.accepts.stats.largestGroup).toBeGreaterThan(1);
      for (const ws of workspaces) expect(await usedSince(ws.id, since)).toBe(0);
      expect(await queuedJobs(deps)).toHaveLength(queuedBefore);
    } finally {
      await ctx.redis.del(idKey);
    }

    // Redis is healthy again: the same requests are accepted and counted.
    const again = await Promise.all(
      workspaces.map((ws, i) => post(app.url, ws.public_key, 3, `again${i}`)),
    );
    expect(again.map((res) => res.status)).toEqual([202, 202]);
    expect(await usedSince(workspaces[0]!.id, since)).toBe(3);
  });
});
