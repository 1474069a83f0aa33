import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import { ERROR_GROUP_ENVIRONMENTS_MAX } from '@ferry/db';
import type { JobPayload } from '@ferry/queues';
import { createTestContext, createWorkspace, type TestContext } from '@ferry/testing';
import { setErrorGroupStatus } from '@ferry/workspace';
import { fingerprint } from '../src/fingerprint.js';
import {
  writeErrorBatch,
  parseJob,
  writeErrors,
  type WriteErrorsDeps,
} from '../src/jobs/write-errors.js';
import type { QueuedReport } from '../src/queued.js';
import { parseBatch } from '../src/report.js';

/**
 * Triage as the writer sees it (issue #13): the group upsert reopens a resolved group as a
 * regression, leaves an ignored one ignored (still counting) and gathers environments, all in the
 * statement it already ran.
 */
describe('error-ingest writer and triage', () => {
  let ctx: TestContext;
  let deps: WriteErrorsDeps;

  beforeAll(async () => {
    ctx = await createTestContext();
    deps = { db: ctx.db, logger: ctx.logger, retentionLimit: 20_000, random: () => 1 };
  });
  afterAll(async () => {
    await ctx.close();
  });

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

  const report = (environment?: string) => ({
    error_class: 'Stripe::CardError',
    message: 'Your card was declined.',
    backtrace: ['app/services/charge.rb:12:in `call`'],
    ...(environment ? { environment } : {}),
  });

  async function onlyGroup(workspaceId: string) {
    return ctx.db
      .selectFrom('error_groups')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
  }

  it('starts unresolved; a resolved group that gets an occurrence reopens as a regression', async () => {
    const ws = await createWorkspace(ctx.db);
    await writeErrors(deps, job(ws.id, queued([report('production')])));
    const fresh = await onlyGroup(ws.id);
    expect(fresh.status).toBe('unresolved');
    expect(fresh.regressed_at).toBeNull();

    await setErrorGroupStatus(ctx.db, ws.id, fresh.id, 'resolved');
    expect((await onlyGroup(ws.id)).status).toBe('resolved');

    const before = Date.now();
    await writeErrors(deps, job(ws.id, queued([report('production'), report('production')])));
    const reopened = await onlyGroup(ws.id);
    expect(reopened.status).toBe('unresolved');
    expect(reopened.regressed_at).not.toBeNull();
    expect(reopened.regressed_at!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(Number(reopened.occurrence_count)).toBe(3);

    // Another occurrence of an open regression keeps the first regression time.
    await writeErrors(deps, job(ws.id, queued([report('production')])));
    const still = await onlyGroup(ws.id);
    expect(still.regressed_at).toEqual(reopened.regressed_at);

    // Triage clears the mark.
    await setErrorGroupStatus(ctx.db, ws.id, fresh.id, 'resolved');
    expect((await onlyGroup(ws.id)).regressed_at).toBeNull();
  });

  it('keeps an ignored group ignored while its occurrences keep counting', async () => {
    const ws = await createWorkspace(ctx.db);
    await writeErrors(deps, job(ws.id, queued([report()])));
    const group = await onlyGroup(ws.id);
    await setErrorGroupStatus(ctx.db, ws.id, group.id, 'ignored');
    await writeErrors(deps, job(ws.id, queued([report(), report()])));
    const after = await onlyGroup(ws.id);
    expect(after.status).toBe('ignored');
    expect(after.regressed_at).toBeNull();
    expect(Number(after.occurrence_count)).toBe(3);
  });

  it('reopens in the batched path too, with one upsert for the whole batch', async () => {
    const ws = await createWorkspace(ctx.db);
    await writeErrors(deps, job(ws.id, queued([report('staging')])));
    const group = await onlyGroup(ws.id);
    await setErrorGroupStatus(ctx.db, ws.id, group.id, 'resolved');
    await writeErrorBatch(deps, [
      parseJob(job(ws.id, queued([report('production')]))),
      parseJob(job(ws.id, queued([report('browser')]))),
    ]);
    const after = await onlyGroup(ws.id);
    expect(after.status).toBe('unresolved');
    expect(after.regressed_at).not.toBeNull();
    expect(after.environments).toEqual(['browser', 'production', 'staging']);
  });

  it('gathers distinct environments, sorted, and stops at the cap', async () => {
    const ws = await createWorkspace(ctx.db);
    await writeErrors(
      deps,
      job(ws.id, queued([report('staging'), report(), report('production')])),
    );
    expect((await onlyGroup(ws.id)).environments).toEqual(['production', 'staging']);
    await writeErrors(deps, job(ws.id, queued([report('production')])));
    expect((await onlyGroup(ws.id)).environments).toEqual(['production', 'staging']);

    const many = Array.from({ length: ERROR_GROUP_ENVIRONMENTS_MAX + 5 }, (_, i) =>
      report(`env-${String(i).padStart(2, '0')}`),
    );
    for (let i = 0; i < many.length; i += 10) {
      await writeErrors(deps, job(ws.id, queued(many.slice(i, i + 10))));
    }
    const capped = (await onlyGroup(ws.id)).environments;
    expect(capped).toHaveLength(ERROR_GROUP_ENVIRONMENTS_MAX);
    expect(capped).toContain('production');
    expect(capped).toContain('staging');
  });
});
