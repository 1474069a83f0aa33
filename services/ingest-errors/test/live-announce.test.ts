import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createLogger, newId } from '@ferry/core';
import type { JobPayload } from '@ferry/queues';
import { createTestContext, createWorkspace, waitUntil, type TestContext } from '@ferry/testing';
import {
  ANNOUNCE_BATCH_MAX,
  chunkErrorsWritten,
  createErrorsAnnouncer,
  ERRORS_WRITTEN_EVENT,
  errorsWrittenSchema,
  liveChannelKey,
  type ErrorsWritten,
} from '@ferry/workspace';
import { fingerprint } from '../src/fingerprint.js';
import { parseJob, writeErrorBatch, type WriteErrorsDeps } from '../src/jobs/write-errors.js';
import type { QueuedReport } from '../src/queued.js';
import { parseBatch } from '../src/report.js';

/**
 * The live Errors list's announcement (issue 26), with the real writer and real Redis: after a
 * batch commits, one `errors:written` server-side event on the socket.io adapter's channel names
 * each workspace's groups and their really new occurrences (by environment), nothing for a replayed
 * job, and a Redis outage costs the writer nothing.
 */
describe('error writer live announcement', () => {
  let ctx: TestContext;
  let subscriber: Redis;
  let deps: WriteErrorsDeps;
  const heard: { payload: ErrorsWritten; visible: Promise<number> }[] = [];
  const sentinels = new Set<string>();

  beforeAll(async () => {
    ctx = await createTestContext();
    deps = {
      db: ctx.db,
      logger: ctx.logger,
      retentionLimit: 20_000,
      random: () => 1,
      announcer: createErrorsAnnouncer(ctx.redis, ctx.config.REDIS_PREFIX, ctx.logger),
    };
    // What every web process's socket.io Redis adapter hears: the default namespace's requests.
    subscriber = ctx.redis.duplicate();
    subscriber.on('message', (_channel: string, text: string) => {
      const request = JSON.parse(text) as { type: number; data: [string, unknown] };
      if (request.data[0] === 'test:sentinel') {
        sentinels.add(String(request.data[1]));
        return;
      }
      if (request.type !== 6 || request.data[0] !== ERRORS_WRITTEN_EVENT) return;
      const payload = errorsWrittenSchema.parse(request.data[1]);
      // Read the moment it is heard: announced after the commit, the rows are already there.
      const ids = payload.workspaces.flatMap((w) => w.groups.map((g) => g.id));
      const visible = ctx.db
        .selectFrom('error_occurrences')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('group_id', 'in', ids)
        .executeTakeFirstOrThrow()
        .then((row) => Number(row.n));
      heard.push({ payload, visible });
    });
    await subscriber.subscribe(`${liveChannelKey(ctx.config.REDIS_PREFIX)}-request#/#`);
  });
  afterAll(async () => {
    subscriber?.disconnect();
    await ctx?.close();
  });

  /**
   * Everything published before now has been heard: a marker sent after it on the same connection
   * arrives after it (Redis keeps one client's order), so "nothing more was announced" is checked
   * without sleeping.
   */
  async function drained(): Promise<void> {
    const marker = newId('errorOccurrence');
    await ctx.redis.publish(
      `${liveChannelKey(ctx.config.REDIS_PREFIX)}-request#/#`,
      JSON.stringify({ uid: 'test', type: 6, data: ['test:sentinel', marker] }),
    );
    await waitUntil(() => sentinels.has(marker), 'the sentinel published after the batch');
  }

  function queued(raw: Record<string, unknown>[]): QueuedReport[] {
    return parseBatch({ errors: raw }, new Date()).reports.map((report) => ({
      ...report,
      id: newId('errorOccurrence'),
      fingerprint: fingerprint(report),
    }));
  }

  const job = (workspaceId: string, reports: QueuedReport[]): JobPayload<'error-ingest'> => ({
    workspaceId,
    visitorId: null,
    receivedAt: new Date().toISOString(),
    reports,
  });

  const timeout = (environment?: string) => ({
    error_class: 'PaymentGateway::Timeout',
    message: 'charge timed out',
    backtrace: ['app/services/charge.rb:42:in `call`'],
    ...(environment ? { environment } : {}),
  });
  const noMethod = { error_class: 'NoMethodError', backtrace: ['app/models/cart.rb:7'] };

  it('publishes once per committed batch, each workspace with its groups’ new occurrences', async () => {
    const [a, b] = await Promise.all([createWorkspace(ctx.db), createWorkspace(ctx.db)]);
    const before = heard.length;
    const jobs = [
      job(a.id, queued([timeout('production'), timeout('production'), noMethod])),
      job(a.id, queued([timeout('staging')])),
      job(b.id, queued([timeout('production')])),
    ];
    await writeErrorBatch(deps, jobs.map(parseJob));
    await drained();
    expect(heard.length - before).toBe(1);
    const { payload, visible } = heard.at(-1)!;
    expect(await visible).toBe(5);

    const groups = await ctx.db
      .selectFrom('error_groups')
      .select(['id', 'workspace_id', 'error_class'])
      .where('workspace_id', 'in', [a.id, b.id])
      .execute();
    const idOf = (workspaceId: string, errorClass: string) =>
      groups.find((g) => g.workspace_id === workspaceId && g.error_class === errorClass)!.id;
    const byWorkspace = new Map(payload.workspaces.map((w) => [w.workspaceId, w.groups]));
    expect(new Set(byWorkspace.keys())).toEqual(new Set([a.id, b.id]));
    const sorted = (list: ErrorsWritten['workspaces'][number]['groups']) =>
      [...list]
        .map((g) => ({ ...g, environments: [...g.environments].sort() }))
        .sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(sorted(byWorkspace.get(a.id)!)).toEqual(
      sorted([
        {
          id: idOf(a.id, 'PaymentGateway::Timeout'),
          n: 3,
          created: true,
          environments: [
            ['production', 2],
            ['staging', 1],
          ],
        },
        { id: idOf(a.id, 'NoMethodError'), n: 1, created: true, environments: [] },
      ]),
    );
    expect(byWorkspace.get(b.id)).toEqual([
      {
        id: idOf(b.id, 'PaymentGateway::Timeout'),
        n: 1,
        created: true,
        environments: [['production', 1]],
      },
    ]);
  });

  it('announces nothing for a replayed job, and a later occurrence as not new', async () => {
    const ws = await createWorkspace(ctx.db);
    const first = job(ws.id, queued([timeout('production')]));
    await writeErrorBatch(deps, [parseJob(first)]);
    await drained();
    const before = heard.length;

    // The same job again (a retry after a crash past its commit): nothing new was written.
    await writeErrorBatch(deps, [parseJob(first)]);
    await drained();
    expect(heard.length).toBe(before);

    await writeErrorBatch(deps, [parseJob(job(ws.id, queued([timeout(), timeout()])))]);
    await drained();
    expect(heard.length).toBe(before + 1);
    const [entry] = heard.at(-1)!.payload.workspaces;
    expect(entry!.workspaceId).toBe(ws.id);
    expect(entry!.groups).toEqual([
      { id: expect.stringMatching(/^egr_/) as string, n: 2, created: false, environments: [] },
    ]);
  });

  it('writes the batch all the same when Redis is down for announcements', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    dead.on('error', () => undefined);
    try {
      const ws = await createWorkspace(ctx.db);
      const silent = createLogger({ level: 'silent' });
      const results = await writeErrorBatch(
        { ...deps, announcer: createErrorsAnnouncer(dead, ctx.config.REDIS_PREFIX, silent) },
        [parseJob(job(ws.id, queued([timeout(), noMethod])))],
      );
      expect(results).toEqual([{ inserted: 2, pruned: 0 }]);
    } finally {
      dead.disconnect();
    }
  });

  it('splits a batch of more groups than one announcement holds', () => {
    const group = (i: number) => ({ id: `egr_${i}`, n: 1, created: true, environments: [] });
    const chunks = chunkErrorsWritten([
      {
        workspaceId: 'wsp_a',
        groups: Array.from({ length: ANNOUNCE_BATCH_MAX - 1 }, (_, i) => group(i)),
      },
      { workspaceId: 'wsp_b', groups: Array.from({ length: 3 }, (_, i) => group(5_000 + i)) },
    ]);
    expect(chunks.map((c) => c.workspaces.map((w) => [w.workspaceId, w.groups.length]))).toEqual([
      [
        ['wsp_a', ANNOUNCE_BATCH_MAX - 1],
        ['wsp_b', 1],
      ],
      [['wsp_b', 2]],
    ]);
  });
});
