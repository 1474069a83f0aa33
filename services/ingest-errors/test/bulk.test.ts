import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { newId } from '@ferry/core';
import { createRedisConnection } from '@ferry/queues';
import {
  createMember,
  createTestContext,
  createWorkspace,
  waitUntil,
  type TestContext,
} from '@ferry/testing';
import {
  ERROR_BULK_CHUNK,
  findErrorBulkAction,
  runErrorBulkAction,
  startErrorBulkAction,
  startRelay,
} from '@ferry/workspace';
import { fingerprint } from '../src/fingerprint.js';
import { parseJob, writeErrorBatch, type WriteErrorsDeps } from '../src/jobs/write-errors.js';
import type { QueuedReport } from '../src/queued.js';
import { parseBatch } from '../src/report.js';
import { startErrorWriter } from '../src/worker.js';
import { runBulkActionJob } from '../src/jobs/bulk-action.js';

/**
 * Issue 43, bulk actions, as they run for real: asked for through the domain (as the page and the
 * API do), relayed from the outbox to the `error-bulk` queue, run by the ingest-errors worker
 * chunk by chunk. 12,000 groups are resolved while the writer stores new occurrences for some of
 * them mid-way; a run cut short goes on from its cursor without acting twice.
 */
describe('bulk actions over error groups', () => {
  let ctx: TestContext;
  let workerRedis: Redis | undefined;
  let worker: Worker<unknown> | undefined;
  let relay: { stop(): Promise<void> } | undefined;
  let deps: WriteErrorsDeps;

  beforeAll(async () => {
    ctx = await createTestContext();
    deps = { db: ctx.db, logger: ctx.logger, retentionLimit: 20_000, random: () => 1 };
  });
  afterAll(async () => {
    await relay?.stop();
    await worker?.close();
    await workerRedis?.quit();
    await ctx?.close();
  });

  /** The relay and the ingest-errors worker, as `pnpm start` runs them: jobs run from here on. */
  function startJobs(): void {
    workerRedis = createRedisConnection(ctx.config.redis, { role: 'worker' });
    worker = startErrorWriter({
      config: ctx.config,
      db: ctx.db,
      logger: ctx.logger,
      connection: workerRedis,
      retentionLimit: 20_000,
    });
    relay = startRelay(ctx);
  }

  /** Group `i`'s report: its own class, so each makes its own group. */
  const report = (i: number) => ({
    error_class: `BulkError${i}`,
    message: `failure number ${i}`,
    backtrace: [`app/bulk.rb:${i}:in \`run\``],
  });

  function queued(raw: Record<string, unknown>[]): QueuedReport[] {
    return parseBatch({ errors: raw }, new Date()).reports.map((one) => ({
      ...one,
      id: newId('errorOccurrence'),
      fingerprint: fingerprint(one),
    }));
  }

  /** Writes reports `indexes` through the writer, ten a job and a hundred jobs a transaction. */
  async function write(workspaceId: string, indexes: readonly number[]): Promise<void> {
    const jobs = [];
    for (let at = 0; at < indexes.length; at += 10) {
      jobs.push(
        parseJob({
          workspaceId,
          visitorId: null,
          receivedAt: new Date().toISOString(),
          reports: queued(indexes.slice(at, at + 10).map(report)),
        }),
      );
    }
    for (let at = 0; at < jobs.length; at += 100) {
      await writeErrorBatch(deps, jobs.slice(at, at + 100));
    }
  }

  async function statuses(workspaceId: string) {
    return ctx.db
      .selectFrom('error_groups')
      .select(['id', 'status', 'occurrence_count', 'regressed_at', 'error_class'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('id')
      .execute();
  }

  it('a run cut short goes on from its cursor: every group once, none twice', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(
      ws.id,
      Array.from({ length: 1_200 }, (_, i) => i),
    );
    // No job runs yet (startJobs comes later): the test runs it by hand, cut after one chunk.
    const action = await startErrorBulkAction(ctx.db, {
      workspaceId: ws.id,
      actor: { kind: 'api' },
      action: 'ignore',
      selection: { query: 'is:unresolved' },
    });
    const controller = new AbortController();
    const cut = await runErrorBulkAction(ctx.db, action.id, {
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    expect(cut).toMatchObject({ status: 'running', processed: ERROR_BULK_CHUNK });
    const rest = await runErrorBulkAction(ctx.db, action.id);
    const final = rest ?? (await findErrorBulkAction(ctx.db, ws.id, action.id));
    expect(final).toMatchObject({ status: 'done', processed: 1_200, changed: 1_200 });
    expect((await statuses(ws.id)).every((g) => g.status === 'ignored')).toBe(true);
  });

  it('a job stopped before the end fails its attempt, so BullMQ runs it again', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, [1, 2, 3]);
    const action = await startErrorBulkAction(ctx.db, {
      workspaceId: ws.id,
      actor: { kind: 'api' },
      action: 'resolve',
      selection: { query: 'is:unresolved' },
    });
    const stopped = new AbortController();
    stopped.abort();
    const payload = { actionId: action.id, workspaceId: ws.id };
    await expect(runBulkActionJob(ctx.db, payload, stopped.signal)).rejects.toThrow(
      'stopped after 0 of 3 groups',
    );
    await expect(runBulkActionJob(ctx.db, payload, new AbortController().signal)).resolves.toEqual({
      status: 'done',
      processed: 3,
    });
  });

  it('stops with the reason when the assignee becomes a guest before it runs', async () => {
    const ws = await createWorkspace(ctx.db);
    const seat = await createMember(ctx.db, ws, { role: 'member' });
    await write(ws.id, [1, 2, 3]);
    const action = await startErrorBulkAction(ctx.db, {
      workspaceId: ws.id,
      actor: { kind: 'api' },
      action: 'assign',
      assigneeId: seat.id,
      selection: { query: 'BulkError' },
    });
    await ctx.db.updateTable('members').set({ role: 'guest' }).where('id', '=', seat.id).execute();
    const failed = await runErrorBulkAction(ctx.db, action.id);
    expect(failed).toMatchObject({ status: 'failed', processed: 0 });
    expect(failed?.error).toContain('became a guest');
    const assigned = await ctx.db
      .selectFrom('error_groups')
      .select('assignee_member_id')
      .where('workspace_id', '=', ws.id)
      .where('assignee_member_id', 'is not', null)
      .execute();
    expect(assigned).toEqual([]);
  });

  it('resolves 12,000 groups as a job, groups getting occurrences mid-way included', async () => {
    const ws = await createWorkspace(ctx.db);
    const count = 12_000;
    await write(
      ws.id,
      Array.from({ length: count }, (_, i) => i),
    );
    const groups = await statuses(ws.id);
    expect(groups).toHaveLength(count);
    // The action's selection is the search's matches in id order, chunked by ERROR_BULK_CHUNK.
    const ids = groups.map((g) => g.id);
    const pausedChunk = 11;
    const chunk = ids.slice(pausedChunk * ERROR_BULK_CHUNK, (pausedChunk + 1) * ERROR_BULK_CHUNK);
    // Holding the chunk's first group in the writer's lock order stops the job right there, with
    // none of that chunk's rows held: the test writes meanwhile, knowing where the job is.
    const first = await ctx.db
      .selectFrom('error_groups')
      .select('id')
      .where('id', 'in', chunk)
      .orderBy('workspace_id')
      .orderBy('fingerprint')
      .limit(1)
      .executeTakeFirstOrThrow();
    const later = ids.slice((pausedChunk + 1) * ERROR_BULK_CHUNK);
    const touched = [later[0]!, later[1_000]!, later.at(-1)!];
    const classOf = new Map(groups.map((g) => [g.id, g.error_class]));
    const touchedIndexes = touched.map((id) => Number(classOf.get(id)!.slice('BulkError'.length)));

    startJobs();
    const started = Date.now();
    let elapsedMs = 0;
    await ctx.db.transaction().execute(async (hold) => {
      await hold
        .selectFrom('error_groups')
        .select('id')
        .where('id', '=', first.id)
        .forUpdate()
        .execute();
      const action = await startErrorBulkAction(ctx.db, {
        workspaceId: ws.id,
        actor: { kind: 'api' },
        action: 'resolve',
        selection: { query: 'is:unresolved' },
      });
      expect(action.total).toBe(count);
      let processed = 0;
      await waitUntil(
        async () => {
          processed = (await findErrorBulkAction(ctx.db, ws.id, action.id))?.processed ?? 0;
          return processed === pausedChunk * ERROR_BULK_CHUNK;
        },
        () => `the job to reach chunk ${pausedChunk} (${processed} groups done)`,
        60_000,
        20,
      );
      const midway = await findErrorBulkAction(ctx.db, ws.id, action.id);
      expect(midway?.status).toBe('running');
      // Occurrences for groups the job has not reached yet, through the real writer.
      await write(ws.id, touchedIndexes);
      return action;
    });
    await waitUntil(
      async () => {
        const rows = await ctx.db
          .selectFrom('error_bulk_actions')
          .select('status')
          .where('workspace_id', '=', ws.id)
          .execute();
        return rows.every((row) => row.status === 'done');
      },
      'the bulk action to finish',
      120_000,
      50,
    );
    elapsedMs = Date.now() - started;
    const after = await statuses(ws.id);
    expect(after.filter((g) => g.status !== 'resolved')).toEqual([]);
    for (const id of touched) {
      const group = after.find((g) => g.id === id)!;
      expect(Number(group.occurrence_count)).toBe(2);
      expect(group.regressed_at).toBeNull();
    }
    const [done] = await ctx.db
      .selectFrom('error_bulk_actions')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(done).toMatchObject({ status: 'done', total: count, processed: count, changed: count });
    ctx.logger.info({ elapsedMs }, 'bulk resolve of 12,000 groups');
  });
  it('merges 1,200 groups as a job, chunk by chunk, and their fingerprints keep joining it', async () => {
    // Runs after the test above started the relay and the worker.
    const ws = await createWorkspace(ctx.db);
    await write(
      ws.id,
      Array.from({ length: 1_200 }, (_, i) => i),
    );
    const action = await startErrorBulkAction(ctx.db, {
      workspaceId: ws.id,
      actor: { kind: 'api' },
      action: 'merge',
      selection: { query: 'BulkError' },
    });
    expect(action.total).toBe(1_199);
    let status = '';
    await waitUntil(
      async () => {
        status = (await findErrorBulkAction(ctx.db, ws.id, action.id))?.status ?? '';
        return status === 'done' || status === 'failed';
      },
      () => `the merge job to finish (status ${status})`,
      120_000,
      50,
    );
    const done = await findErrorBulkAction(ctx.db, ws.id, action.id);
    expect(done).toMatchObject({ status: 'done', processed: 1_199, changed: 1_199 });
    const left = await statuses(ws.id);
    expect(left.map((g) => [g.id, Number(g.occurrence_count)])).toEqual([
      [action.target_group_id, 1_200],
    ]);
    const occurrences = await ctx.db
      .selectFrom('error_occurrences')
      .select('group_id')
      .distinct()
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(occurrences).toEqual([{ group_id: action.target_group_id }]);
    // A merged fingerprint's next occurrence joins the target.
    await write(ws.id, [1_000]);
    expect(Number((await statuses(ws.id))[0]!.occurrence_count)).toBe(1_201);
  });
});
