import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGroupCommit, newId } from '@ferry/core';
import type { JobPayload } from '@ferry/queues';
import { sql } from 'kysely';
import { createTestContext, createWorkspace, waitUntil, type TestContext } from '@ferry/testing';
import { fingerprint } from '../src/fingerprint.js';
import { ERROR_WRITER_IN_FLIGHT, writeOrEachAlone } from '../src/worker.js';
import {
  parseJob,
  writeErrorBatch,
  writeErrors,
  type WriteErrorsDeps,
} from '../src/jobs/write-errors.js';
import type { QueuedReport } from '../src/queued.js';
import { parseBatch } from '../src/report.js';
import { retainedOccurrences } from '@ferry/workspace';
import { pruneOccurrences, shouldPrune } from '../src/retention.js';

describe('error-ingest processor', () => {
  let ctx: TestContext;
  let deps: WriteErrorsDeps;

  beforeAll(async () => {
    ctx = await createTestContext();
    deps = { db: ctx.db, logger: ctx.logger, retentionLimit: 20_000, random: () => 1 };
  });
  afterAll(async () => {
    await ctx.close();
  });

  function queued(raw: Record<string, unknown>[], receivedAt = new Date()): QueuedReport[] {
    return parseBatch({ errors: raw }, receivedAt).reports.map((report) => ({
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

  async function groupsOf(workspaceId: string) {
    return ctx.db
      .selectFrom('error_groups')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('fingerprint')
      .execute();
  }

  it('upserts one group per fingerprint with counts, first/last seen and the latest message', async () => {
    const ws = await createWorkspace(ctx.db);
    const frame = ['src/cart.rb:42:in `total`'];
    await writeErrors(
      deps,
      job(
        ws.id,
        queued([
          {
            error_class: 'NoMethodError',
            message: 'second',
            backtrace: frame,
            occurred_at: '2026-01-02T00:00:00Z',
            source: 'ruby',
          },
          {
            error_class: 'NoMethodError',
            message: 'first',
            backtrace: frame,
            occurred_at: '2026-01-01T00:00:00Z',
            source: 'ruby',
          },
          { error_class: 'Other', message: 'alone', occurred_at: '2026-01-01T00:00:00Z' },
        ]),
      ),
    );
    await writeErrors(
      deps,
      job(
        ws.id,
        queued([
          {
            error_class: 'NoMethodError',
            message: 'third',
            backtrace: frame,
            occurred_at: '2026-01-03T00:00:00Z',
            source: 'js',
          },
          // Older than what the group has seen: counted, but not the latest message.
          {
            error_class: 'NoMethodError',
            message: 'zeroth',
            backtrace: frame,
            occurred_at: '2025-12-31T00:00:00Z',
            source: 'ruby',
          },
        ]),
      ),
    );
    const groups = await groupsOf(ws.id);
    expect(groups).toHaveLength(2);
    const cart = groups.find((g) => g.error_class === 'NoMethodError')!;
    expect(Number(cart.occurrence_count)).toBe(4);
    expect(cart.latest_message).toBe('third');
    expect(cart.source).toBe('js');
    expect(cart.first_seen_at.toISOString()).toBe('2025-12-31T00:00:00.000Z');
    expect(cart.last_seen_at.toISOString()).toBe('2026-01-03T00:00:00.000Z');
    const other = groups.find((g) => g.error_class === 'Other')!;
    expect(Number(other.occurrence_count)).toBe(1);
    expect(other.source).toBe('api');
  });

  it('is idempotent: a job processed twice neither duplicates nor double-counts', async () => {
    const ws = await createWorkspace(ctx.db);
    const payload = job(
      ws.id,
      queued([
        { error_class: 'E', message: 'a', backtrace: ['x.js:1'] },
        { error_class: 'E', message: 'b', backtrace: ['x.js:1'] },
        { error_class: 'F', message: 'c' },
      ]),
    );
    expect((await writeErrors(deps, payload)).inserted).toBe(3);
    expect((await writeErrors(deps, payload)).inserted).toBe(0);
    const groups = await groupsOf(ws.id);
    expect(groups.map((g) => Number(g.occurrence_count)).sort()).toEqual([1, 2]);
    expect(await retainedOccurrences(ctx.db, ws.id)).toBe(3);
    // A retry that overlaps a new report: only the new one counts.
    const again = {
      ...payload,
      reports: [...payload.reports, ...queued([{ error_class: 'F', message: 'c' }])],
    };
    expect((await writeErrors(deps, again)).inserted).toBe(1);
    expect((await groupsOf(ws.id)).map((g) => Number(g.occurrence_count)).sort()).toEqual([2, 2]);
  });

  it('keeps concurrent jobs of one workspace consistent', async () => {
    const ws = await createWorkspace(ctx.db);
    const jobs = Array.from({ length: 8 }, (_, i) =>
      job(
        ws.id,
        queued(
          Array.from({ length: 10 }, (_, j) => ({
            error_class: `E${(i + j) % 3}`,
            message: `m${j}`,
            backtrace: ['a.js:1'],
          })),
        ),
      ),
    );
    await Promise.all(jobs.map((payload) => writeErrors(deps, payload)));
    const groups = await groupsOf(ws.id);
    expect(groups).toHaveLength(3);
    expect(groups.reduce((sum, g) => sum + Number(g.occurrence_count), 0)).toBe(80);
  });

  it('locks no shared row until after its occurrences INSERT: a batch of the same group commits meanwhile (#27)', async () => {
    const ws = await createWorkspace(ctx.db);
    const report = (message: string) => ({ error_class: 'Hot', message, backtrace: ['a.js:1'] });
    await writeErrors(deps, job(ws.id, queued([report('first')])));
    let reached!: () => void;
    const atInsert = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const paused = writeErrors(
      {
        ...deps,
        afterInsert: () => {
          reached();
          return released;
        },
      },
      job(ws.id, queued([report('a1'), report('a2')])),
    );
    await atInsert;
    // Batch A now sits between its INSERT and its counting. Batch B counts the same group and the
    // same workspace counter; before #27 it queued behind A's row locks until A's commit.
    let timer: NodeJS.Timeout | undefined;
    const other = await Promise.race([
      writeErrors(deps, job(ws.id, queued([report('b1')]))).then((r) => r.inserted),
      new Promise<string>((resolve) => {
        timer = setTimeout(
          () => resolve('batch B still waiting after 10 s on the locks of the paused batch A'),
          10_000,
        );
      }),
    ]);
    clearTimeout(timer);
    release();
    expect(other).toBe(1);
    expect((await paused).inserted).toBe(2);
    const [group] = await groupsOf(ws.id);
    expect(Number(group!.occurrence_count)).toBe(4);
    expect(await retainedOccurrences(ctx.db, ws.id)).toBe(4);
  });

  it('counts a group that another batch created after it looked: its rows go to that group (#27)', async () => {
    const ws = await createWorkspace(ctx.db);
    const report = (message: string) => ({ error_class: 'Fresh', message, backtrace: ['b.js:1'] });
    let reached!: () => void;
    const atInsert = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Batch A creates the group and pauses before its commit.
    const first = writeErrors(
      {
        ...deps,
        afterInsert: () => {
          reached();
          return released;
        },
      },
      job(ws.id, queued([report('a1')])),
    );
    await atInsert;
    // Batch B read no such group (A's is not committed), so it tries to create it and waits on A.
    const second = writeErrors(deps, job(ws.id, queued([report('b1'), report('b2')])));
    await waitUntil(
      async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.db)
        ).rows[0]!.n > 0,
      "batch B to wait on batch A's new group",
    );
    release();
    expect((await first).inserted).toBe(1);
    expect((await second).inserted).toBe(2);
    const groups = await groupsOf(ws.id);
    expect(groups).toHaveLength(1);
    expect(Number(groups[0]!.occurrence_count)).toBe(3);
    const stored = await ctx.db
      .selectFrom('error_occurrences')
      .select('group_id')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(stored.map((row) => row.group_id)).toEqual([
      groups[0]!.id,
      groups[0]!.id,
      groups[0]!.id,
    ]);
  });

  it('writes many jobs of several workspaces in one transaction, counting each row once', async () => {
    const [a, b] = [await createWorkspace(ctx.db), await createWorkspace(ctx.db)];
    const jobs = [a, b, a, b].map((ws, i) =>
      job(
        ws.id,
        queued(
          Array.from({ length: 10 }, (_, j) => ({
            error_class: `E${(i + j) % 3}`,
            message: `m${j}`,
            backtrace: ['a.js:1'],
          })),
        ),
      ),
    );
    const results = await writeErrorBatch(deps, jobs.map(parseJob));
    expect(results.map((r) => r.inserted)).toEqual([10, 10, 10, 10]);
    for (const ws of [a, b]) {
      const groups = await groupsOf(ws.id);
      expect(groups).toHaveLength(3);
      expect(groups.reduce((sum, g) => sum + Number(g.occurrence_count), 0)).toBe(20);
      expect(await retainedOccurrences(ctx.db, ws.id)).toBe(20);
    }
    // Re-run (a job retried after a crash past the commit), beside a new job: only new rows count.
    const fresh = job(a.id, queued([{ error_class: 'E0', message: 'new', backtrace: ['a.js:1'] }]));
    const again = await writeErrorBatch(deps, [...jobs, fresh].map(parseJob));
    expect(again.map((r) => r.inserted)).toEqual([0, 0, 0, 0, 1]);
    const total = async (id: string) =>
      (await groupsOf(id)).reduce((sum, g) => sum + Number(g.occurrence_count), 0);
    expect(await total(a.id)).toBe(21);
    expect(await total(b.id)).toBe(20);
    // The same job twice in one batch (a lost lock): written and counted once.
    const twice = job(b.id, queued([{ error_class: 'E1', message: 'twice' }]));
    const doubled = await writeErrorBatch(deps, [twice, twice].map(parseJob));
    expect(doubled.map((r) => r.inserted)).toEqual([1, 0]);
    expect(await total(b.id)).toBe(21);
    expect(await retainedOccurrences(ctx.db, b.id)).toBe(21);
  });

  it('writes jobs in groups, and a failed group job by job so one bad job fails alone', async () => {
    // As errorWriterJobs composes them: @ferry/core's group commit (its own tests cover the cut
    // at maxItems and the bound on groups in flight) over writeOrEachAlone.
    const seen: number[][] = [];
    const commit = createGroupCommit<number, number | { failed: unknown }>({
      maxItems: 3,
      concurrency: ERROR_WRITER_IN_FLIGHT,
      write: (items) =>
        writeOrEachAlone(items, (some) => {
          seen.push([...some]);
          if (some.includes(13)) return Promise.reject(new Error('bad item'));
          return Promise.resolve(some.map((item) => item * 2));
        }),
    });
    const outcomes = await Promise.all([1, 2, 3, 4, 13].map((n) => commit.submit(n)));
    expect(outcomes.map((o) => (typeof o === 'number' ? o : 'failed'))).toEqual([
      2,
      4,
      6,
      8,
      'failed',
    ]);
    // Two groups at once (cut at maxItems), then the failed one's jobs alone.
    expect(seen).toEqual([[1, 2, 3], [4, 13], [4], [13]]);
  });

  it('prunes the oldest occurrences so the count hovers near the retention limit', async () => {
    const ws = await createWorkspace(ctx.db);
    const limit = 50;
    const small = { ...deps, retentionLimit: limit, random: Math.random };
    const ids: string[] = [];
    for (let round = 0; round < 30; round++) {
      const reports = queued(
        Array.from({ length: 10 }, () => ({ error_class: 'Boom', message: 'one group' })),
      );
      ids.push(...reports.map((r) => r.id));
      await writeErrors(small, job(ws.id, reports));
      const retained = await retainedOccurrences(ctx.db, ws.id);
      // Never more than the limit + the forced-prune overshoot (10) + one batch.
      expect(retained).toBeLessThanOrEqual(limit + 10 + 10);
    }
    const retained = await retainedOccurrences(ctx.db, ws.id);
    expect(retained).toBeGreaterThanOrEqual(limit);
    const kept = await ctx.db
      .selectFrom('error_occurrences')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .orderBy('id')
      .execute();
    expect(kept).toHaveLength(retained);
    // The newest are the ones kept (ids order by receipt, to the millisecond).
    expect(kept.map((r) => r.id)).toEqual([...ids].sort().slice(-retained));
    // Groups keep their counts.
    const [group] = await groupsOf(ws.id);
    expect(Number(group!.occurrence_count)).toBe(300);

    expect(await pruneOccurrences(ctx.db, ws.id, limit)).toBe(retained - limit);
    expect(await retainedOccurrences(ctx.db, ws.id)).toBe(limit);
  });

  it('decides when to prune', () => {
    expect(shouldPrune(20_000, 20_000, () => 0)).toBe(false);
    expect(shouldPrune(20_001, 20_000, () => 0)).toBe(true);
    expect(shouldPrune(20_001, 20_000, () => 0.5)).toBe(false);
    expect(shouldPrune(21_000, 20_000, () => 0.5)).toBe(true);
  });
});
