import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Workspace } from '@ferry/db';
import {
  createProducer,
  createRedisConnection,
  queueHealth,
  redisReady,
  type Producer,
} from '@ferry/queues';
import {
  createTestContext,
  createVisitor,
  createWorkspace,
  startApp,
  waitUntil,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';
import { createIngestApp, ingestDeps } from '../src/app.js';
import type { IngestSettings } from '../src/config.js';
import type { IngestDeps } from '../src/deps.js';
import { startErrorWriter } from '../src/worker.js';

const SETTINGS: IngestSettings = {
  ERROR_INGESTION_ENABLED: true,
  INGEST_RATE_LIMIT_PER_MINUTE: 120,
  ERROR_RETENTION_LIMIT: 20_000,
  SOURCE_MAP_QUOTA_MB: 200,
  INGEST_ROLE: 'all',
};

describe('POST /ingest/errors', () => {
  let ctx: TestContext;
  let producerRedis: Redis;
  let workerRedis: Redis;
  let worker: Worker<unknown>;
  let deps: IngestDeps;
  let app: RunningApp;
  /** Set while a test counts up to the per-minute rate limit (see the rate limit block). */
  let pinnedClock: Date | undefined;
  const extra: { app: RunningApp; producer: Producer }[] = [];

  const report = (i = 0) => ({
    error_class: 'TypeError',
    message: `boom ${i}`,
    backtrace: [`app.js:${10 + (i % 2)}:5`],
    context: { i },
  });

  const post = (
    url: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response> =>
    fetch(`${url}/ingest/errors`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  async function waitForOccurrences(workspaceId: string, count: number): Promise<void> {
    let written = 0;
    await waitUntil(
      async () => {
        const row = await ctx.db
          .selectFrom('error_occurrences')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('workspace_id', '=', workspaceId)
          .executeTakeFirstOrThrow();
        written = Number(row.n);
        return written >= count;
      },
      () => `${count} occurrences written (${written} were)`,
      30_000,
      50,
    );
  }

  /** Until the writer has finished every job queued so far (their rows are committed by then). */
  async function waitForQueueIdle(): Promise<void> {
    await waitUntil(async () => {
      const health = await queueHealth(deps.producer, 'error-ingest');
      return health.waiting + health.active + health.delayed === 0;
    }, 'every error-ingest job queued so far to finish');
  }

  /** Another app on the same stores with other settings or another producer. */
  async function startVariant(
    settings: Partial<IngestSettings>,
    producer?: Producer,
  ): Promise<RunningApp> {
    const variantProducer =
      producer ?? createProducer({ connection: producerRedis, prefix: ctx.config.REDIS_PREFIX });
    const variant = ingestDeps({
      config: ctx.config,
      settings: { ...SETTINGS, ...settings },
      db: ctx.db,
      logger: ctx.logger,
      redis: producerRedis,
      producer: variantProducer,
    });
    const running = await startApp(createIngestApp(variant, ctx.redis));
    extra.push({ app: running, producer: variantProducer });
    return running;
  }

  beforeAll(async () => {
    ctx = await createTestContext();
    producerRedis = createRedisConnection(ctx.config.redis, { role: 'producer' });
    workerRedis = createRedisConnection(ctx.config.redis, { role: 'worker' });
    deps = ingestDeps({
      config: ctx.config,
      settings: SETTINGS,
      db: ctx.db,
      logger: ctx.logger,
      redis: producerRedis,
      now: () => pinnedClock ?? new Date(),
    });
    await redisReady(producerRedis);
    app = await startApp(createIngestApp(deps, ctx.redis));
    worker = startErrorWriter({
      config: ctx.config,
      db: ctx.db,
      logger: ctx.logger,
      connection: workerRedis,
      retentionLimit: SETTINGS.ERROR_RETENTION_LIMIT,
    });
  });

  afterAll(async () => {
    for (const { app: running, producer } of extra) {
      await running.close();
      await producer.close();
    }
    await app.close();
    await worker.close();
    await deps.producer.close();
    producerRedis.disconnect();
    workerRedis.disconnect();
    await ctx.close();
  });

  it('accepts a batch with 202 {accepted, ids}; the worker writes occurrences and groups', async () => {
    const ws = await createWorkspace(ctx.db);
    const visitor = await createVisitor(ctx.db, ws);
    const res = await post(
      app.url,
      { source: 'node', errors: [report(0), report(1), { ...report(2), source: 'ruby' }] },
      { 'X-Service-Tenant': ws.public_key, 'X-Service-Visitor': visitor.token },
    );
    expect(res.status).toBe(202);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await res.json()) as { accepted: number; ids: string[] };
    expect(body.accepted).toBe(3);
    expect(body.ids).toHaveLength(3);
    for (const id of body.ids) expect(id).toMatch(/^err_[0-9a-z]{26}$/);

    await waitForOccurrences(ws.id, 3);
    const rows = await ctx.db
      .selectFrom('error_occurrences')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.id).sort()).toEqual([...body.ids].sort());
    // ids are answered in report order; ids of one millisecond do not sort by it.
    const [first, second, third] = body.ids.map((id) => rows.find((r) => r.id === id)!);
    expect([first!.source, second!.source, third!.source]).toEqual(['node', 'node', 'ruby']);
    expect(rows.every((r) => r.visitor_id === visitor.id)).toBe(true);
    expect(first!.backtrace).toEqual(['app.js:10:5']);
    expect(first!.context).toEqual({ i: 0 });
    // Reports 0 and 2 share a frame (line 10), report 1 is on line 11: two groups.
    const groups = await ctx.db
      .selectFrom('error_groups')
      .select(['occurrence_count', 'latest_message'])
      .where('workspace_id', '=', ws.id)
      .orderBy('occurrence_count', 'desc')
      .execute();
    expect(groups.map((g) => Number(g.occurrence_count))).toEqual([2, 1]);
  });

  it('ignores an unknown visitor token', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await post(app.url, report(), {
      'X-Service-Tenant': ws.public_key,
      'X-Service-Visitor': 'vt_nobody',
    });
    expect(res.status).toBe(202);
    await waitForOccurrences(ws.id, 1);
    const row = await ctx.db
      .selectFrom('error_occurrences')
      .select('visitor_id')
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(row.visitor_id).toBeNull();
  });

  it('answers 404 for a missing or unknown tenant key, with CORS headers', async () => {
    const missing = await post(app.url, report());
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');
    expect(await missing.json()).toMatchObject({ error: { code: 'not_found' } });
    const unknown = await post(app.url, report(), { 'X-Service-Tenant': 'pk_nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers a browser preflight', async () => {
    const res = await fetch(`${app.url}/ingest/errors`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://shop.example.com',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-service-tenant,x-service-visitor',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['content-type', 'x-service-tenant', 'x-service-visitor']) {
      expect(allowed).toContain(header);
    }
  });

  it('answers 400 for a body that is not JSON and 413 over 512 KB', async () => {
    const ws = await createWorkspace(ctx.db);
    const bad = await post(app.url, '{"error_class": ', { 'X-Service-Tenant': ws.public_key });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_json' } });

    const big = await post(
      app.url,
      { message: 'x'.repeat(513 * 1024) },
      { 'X-Service-Tenant': ws.public_key },
    );
    expect(big.status).toBe(413);
    expect(big.headers.get('access-control-allow-origin')).toBe('*');
    expect(await big.json()).toMatchObject({ error: { code: 'payload_too_large' } });
  });

  it('answers 400 for an empty or blank body, whatever its Content-Type, and stores nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const tenant = { 'X-Service-Tenant': ws.public_key };
    const send = (body: string | undefined, contentType?: string) =>
      fetch(`${app.url}/ingest/errors`, {
        method: 'POST',
        headers: contentType ? { ...tenant, 'Content-Type': contentType } : tenant,
        body,
      });
    const answers = [
      await send('', 'application/json'),
      await send('', 'text/plain'),
      await send(' \r\n\t ', 'application/json'),
      await send('\n'),
      await send(undefined),
      await send(undefined, 'application/json'),
    ];
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({
        error: { code: 'invalid_json', message: expect.stringContaining('empty') as unknown },
      });
    }
    // Nothing is stored: once no job is waiting or running, everything accepted has been written.
    await waitForQueueIdle();
    const row = await ctx.db
      .selectFrom('error_occurrences')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.n)).toBe(0);
  });

  it('keeps a report whose context nests far past the cap, cut there with a marker', async () => {
    const ws = await createWorkspace(ctx.db);
    const levels = 100_000; // 200 KB of brackets: within the body limit, far past any depth cap
    const body = `{"error_class":"DeepError","context":{"deep":${'['.repeat(levels)}${']'.repeat(levels)},"user":7}}`;
    const res = await post(app.url, body, { 'X-Service-Tenant': ws.public_key });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ accepted: 1 });
    await waitForOccurrences(ws.id, 1);
    const row = await ctx.db
      .selectFrom('error_occurrences')
      .select(['error_class', 'context'])
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(row.error_class).toBe('DeepError');
    const context = row.context as { deep: unknown; user: number };
    expect(context.user).toBe(7);
    let level = context.deep;
    let arrays = 0;
    for (; Array.isArray(level); arrays++) level = level[0] as unknown;
    expect(arrays).toBe(32);
    expect(level).toBe('[truncated: nested deeper than 32]');
  });

  it('answers 503 when ingestion is turned off', async () => {
    const ws = await createWorkspace(ctx.db);
    const off = await startVariant({ ERROR_INGESTION_ENABLED: false });
    const res = await post(off.url, report(), { 'X-Service-Tenant': ws.public_key });
    expect(res.status).toBe(503);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toMatchObject({ error: { code: 'unavailable' } });
  });

  it('keeps the first 10 of 12 reports and drops invalid ones silently', async () => {
    const ws = await createWorkspace(ctx.db);
    const twelve = await post(
      app.url,
      { errors: Array.from({ length: 12 }, (_, i) => report(i)) },
      { 'X-Service-Tenant': ws.public_key },
    );
    expect(twelve.status).toBe(202);
    expect(await twelve.json()).toMatchObject({ accepted: 10 });

    const mixed = await post(
      app.url,
      { errors: [report(1), 'not a report', { ...report(2), context: 'nope' }, report(3)] },
      { 'X-Service-Tenant': ws.public_key },
    );
    expect(mixed.status).toBe(202);
    const body = (await mixed.json()) as { accepted: number; ids: string[] };
    expect(body.accepted).toBe(2);
    expect(body.ids).toHaveLength(2);
    await waitForOccurrences(ws.id, 12);
  });

  describe('rate limit (120 reports per minute per workspace)', () => {
    let ws: Workspace;
    beforeAll(async () => {
      ws = await createWorkspace(ctx.db);
      // The window is the clock's minute: every request of the run counts in the same one.
      pinnedClock = new Date();
    });
    afterAll(() => {
      pinnedClock = undefined;
    });

    it('cuts the batch that crosses the limit, then answers 429 with Retry-After: 60', async () => {
      const batch = (n: number) => ({ errors: Array.from({ length: n }, (_, i) => report(i)) });
      const headers = { 'X-Service-Tenant': ws.public_key };
      for (let i = 0; i < 11; i++) {
        const res = await post(app.url, batch(10), headers);
        expect(res.status).toBe(202);
      }
      expect(await (await post(app.url, batch(5), headers)).json()).toMatchObject({
        accepted: 5,
      });
      // 115 taken: a batch of 10 keeps 5.
      const crossing = await post(app.url, batch(10), headers);
      expect(crossing.status).toBe(202);
      const cut = (await crossing.json()) as { accepted: number; ids: string[] };
      expect(cut.accepted).toBe(5);
      expect(cut.ids).toHaveLength(5);
      // The 121st report.
      const over = await post(app.url, report(), headers);
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toBe('60');
      expect(over.headers.get('access-control-allow-origin')).toBe('*');
      expect(await over.json()).toMatchObject({ error: { code: 'rate_limited' } });
      await waitForOccurrences(ws.id, 120);
    });
  });
});
