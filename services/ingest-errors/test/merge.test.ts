import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, newId } from '@ferry/core';
import type { JobPayload } from '@ferry/queues';
import { sql } from 'kysely';
import {
  createMember,
  createTestContext,
  createWorkspace,
  waitUntil,
  type TestContext,
} from '@ferry/testing';
import {
  fileTicketForErrorGroup,
  groupFingerprints,
  mergeErrorGroups,
  mergedInto,
  retainedOccurrences,
  setErrorGroupStatus,
  unmergeFingerprint,
  type MergeActor,
} from '@ferry/workspace';
import { fingerprint } from '../src/fingerprint.js';
import { writeErrors, type WriteErrorsDeps } from '../src/jobs/write-errors.js';
import type { QueuedReport } from '../src/queued.js';
import { parseBatch } from '../src/report.js';

/**
 * Issue 43, merge and unmerge, driven through the real error writer: a merge moves occurrences
 * and counts to the target and later occurrences of every merged fingerprint join it; unmerge
 * splits a fingerprint back out for its occurrences from then on; a writer batch racing a merge,
 * and a job replayed after one, leave counts that add up.
 */
describe('merging and unmerging error groups', () => {
  let ctx: TestContext;
  let deps: WriteErrorsDeps;
  const api: MergeActor = { kind: 'api' };

  beforeAll(async () => {
    ctx = await createTestContext();
    deps = { db: ctx.db, logger: ctx.logger, retentionLimit: 20_000, random: () => 1 };
  });
  afterAll(async () => {
    await ctx.close();
  });

  /** `n` reports of one bug: the class and frame make the fingerprint. */
  function reports(errorClass: string, n: number, occurredAt?: string): QueuedReport[] {
    const raw = Array.from({ length: n }, (_, i) => ({
      error_class: errorClass,
      message: `${errorClass} #${i}`,
      backtrace: [`app/${errorClass.toLowerCase()}.js:1`],
      ...(occurredAt ? { occurred_at: occurredAt } : {}),
    }));
    return parseBatch({ errors: raw }, new Date()).reports.map((report) => ({
      ...report,
      id: newId('errorOccurrence'),
      fingerprint: fingerprint(report),
    }));
  }

  const job = (workspaceId: string, queued: QueuedReport[]): JobPayload<'error-ingest'> => ({
    workspaceId,
    visitorId: null,
    receivedAt: new Date().toISOString(),
    reports: queued,
  });

  async function write(workspaceId: string, errorClass: string, n: number, occurredAt?: string) {
    return writeErrors(deps, job(workspaceId, reports(errorClass, n, occurredAt)));
  }

  async function groupsOf(workspaceId: string) {
    return ctx.db
      .selectFrom('error_groups')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('error_class')
      .execute();
  }

  async function groupOf(workspaceId: string, errorClass: string) {
    return ctx.db
      .selectFrom('error_groups')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('error_class', '=', errorClass)
      .executeTakeFirstOrThrow();
  }

  /** Occurrences per group id, as stored. */
  async function occurrencesByGroup(workspaceId: string): Promise<Record<string, number>> {
    const rows = await ctx.db
      .selectFrom('error_occurrences')
      .select(['group_id', (eb) => eb.fn.countAll<string>().as('n')])
      .where('workspace_id', '=', workspaceId)
      .groupBy('group_id')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.group_id, Number(row.n)]));
  }

  async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
    return { status: error.status, message: error.message };
  }

  it('merges then unmerges, with counts checked at each step', async () => {
    const ws = await createWorkspace(ctx.db);
    const admin = await createMember(ctx.db, ws, { role: 'admin' });
    const actor: MergeActor = {
      kind: 'member',
      memberId: admin.id,
      role: 'admin',
      name: admin.user.name,
    };
    await write(ws.id, 'Alpha', 2);
    await write(ws.id, 'Beta', 3);
    await write(ws.id, 'Gamma', 1);
    const [alpha, beta, gamma] = await groupsOf(ws.id);

    const first = await mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor,
      targetId: alpha!.id,
      sourceIds: [beta!.id, gamma!.id],
    });
    expect(first.merged).toBe(2);
    expect(Number(first.target.occurrence_count)).toBe(6);
    expect((await groupsOf(ws.id)).map((g) => g.id)).toEqual([alpha!.id]);
    expect(await occurrencesByGroup(ws.id)).toEqual({ [alpha!.id]: 6 });
    // Moving occurrences is no insert nor delete: the workspace's retained counter is unchanged.
    expect(await retainedOccurrences(ctx.db, ws.id)).toBe(6);
    // The target shows the class and message of whichever group was seen last: Gamma.
    expect(first.target.error_class).toBe('Gamma');
    const held = await groupFingerprints(ctx.db, ws.id, alpha!.id);
    expect(held.map((f) => [f.own, f.fingerprint, f.error_class, f.occurrence_count])).toEqual([
      [true, alpha!.fingerprint, 'Gamma', null],
      ...[
        [false, beta!.fingerprint, 'Beta', 3],
        [false, gamma!.fingerprint, 'Gamma', 1],
      ].sort((a, b) => (String(a[1]) < String(b[1]) ? -1 : 1)),
    ]);
    expect(held[1]).toMatchObject({ merged_by: admin.id, merged_by_name: admin.user.name });
    // Old links lead to the target.
    expect(await mergedInto(ctx.db, ws.id, beta!.id)).toBe(alpha!.id);

    // The same chunk again (a retried bulk job): nothing more merged, nothing counted twice.
    const again = await mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor,
      targetId: alpha!.id,
      sourceIds: [beta!.id, gamma!.id],
    });
    expect(again.merged).toBe(0);
    expect(Number(again.target.occurrence_count)).toBe(6);

    // A new occurrence of a merged fingerprint joins the target.
    expect((await write(ws.id, 'Beta', 1)).inserted).toBe(1);
    expect((await groupsOf(ws.id)).map((g) => [g.id, Number(g.occurrence_count)])).toEqual([
      [alpha!.id, 7],
    ]);
    expect(await occurrencesByGroup(ws.id)).toEqual({ [alpha!.id]: 7 });

    // Unmerge Beta: the target keeps what it has; Beta's next occurrence makes a group of its own.
    const split = await unmergeFingerprint(ctx.db, {
      workspaceId: ws.id,
      actor,
      groupId: alpha!.id,
      fingerprint: beta!.fingerprint,
    });
    expect(Number(split.occurrence_count)).toBe(7);
    expect(await mergedInto(ctx.db, ws.id, beta!.id)).toBeUndefined();
    await write(ws.id, 'Beta', 1);
    const after = await groupsOf(ws.id);
    const split2 = after.find((g) => g.id !== alpha!.id)!;
    expect(after).toHaveLength(2);
    expect(split2).toMatchObject({ fingerprint: beta!.fingerprint, error_class: 'Beta' });
    expect(split2.id).not.toBe(beta!.id);
    expect(Number(split2.occurrence_count)).toBe(1);
    expect(Number(after.find((g) => g.id === alpha!.id)!.occurrence_count)).toBe(7);
    // Gamma is still merged: its occurrences keep joining Alpha.
    await write(ws.id, 'Gamma', 2);
    expect(await occurrencesByGroup(ws.id)).toEqual({ [alpha!.id]: 9, [split2.id]: 1 });
    const alphaNow = await ctx.db
      .selectFrom('error_groups')
      .select('occurrence_count')
      .where('id', '=', alpha!.id)
      .executeTakeFirstOrThrow();
    expect(Number(alphaNow.occurrence_count)).toBe(9);
    expect(await retainedOccurrences(ctx.db, ws.id)).toBe(10);

    // The group's own fingerprint cannot be unmerged; one it does not hold is not found.
    expect(
      await refusal(
        unmergeFingerprint(ctx.db, {
          workspaceId: ws.id,
          actor,
          groupId: alpha!.id,
          fingerprint: alpha!.fingerprint,
        }),
      ),
    ).toMatchObject({ status: 422 });
    expect(
      await refusal(
        unmergeFingerprint(ctx.db, {
          workspaceId: ws.id,
          actor,
          groupId: alpha!.id,
          fingerprint: beta!.fingerprint,
        }),
      ),
    ).toMatchObject({ status: 404 });
  });

  it('re-points fingerprints merged before when their group is merged in turn', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, 'Alpha', 1);
    await write(ws.id, 'Beta', 1);
    await write(ws.id, 'Gamma', 1);
    const [alpha, beta, gamma] = await groupsOf(ws.id);
    await mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor: api,
      targetId: beta!.id,
      sourceIds: [gamma!.id],
    });
    await mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor: api,
      targetId: alpha!.id,
      sourceIds: [beta!.id],
    });
    expect(await mergedInto(ctx.db, ws.id, gamma!.id)).toBe(alpha!.id);
    expect(await mergedInto(ctx.db, ws.id, beta!.id)).toBe(alpha!.id);
    await write(ws.id, 'Gamma', 1);
    expect((await groupsOf(ws.id)).map((g) => [g.id, Number(g.occurrence_count)])).toEqual([
      [alpha!.id, 4],
    ]);
    const held = await groupFingerprints(ctx.db, ws.id, alpha!.id);
    expect(held.map((f) => f.fingerprint).sort()).toEqual(
      [alpha!.fingerprint, beta!.fingerprint, gamma!.fingerprint].sort(),
    );
  });

  it('sums first/last seen, latest message, environments and releases into the target', async () => {
    const ws = await createWorkspace(ctx.db);
    const old = '2026-01-01T00:00:00.000Z';
    const recent = '2026-03-01T00:00:00.000Z';
    const at = (errorClass: string, occurredAt: string, environment: string, release: string) =>
      writeErrors(
        deps,
        job(
          ws.id,
          reports(errorClass, 1, occurredAt).map((r) => ({
            ...r,
            environment,
            app_version: release,
          })),
        ),
      );
    await at('Target', '2026-02-01T00:00:00.000Z', 'staging', '1.1.0');
    await at('Older', old, 'production', '1.0.0');
    await at('Newer', recent, 'preview', '1.2.0');
    const target = await groupOf(ws.id, 'Target');
    await setErrorGroupStatus(ctx.db, ws.id, target.id, 'ignored');
    const { target: merged } = await mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor: api,
      targetId: target.id,
      sourceIds: [(await groupOf(ws.id, 'Older')).id, (await groupOf(ws.id, 'Newer')).id],
    });
    expect(merged).toMatchObject({
      id: target.id,
      fingerprint: target.fingerprint,
      error_class: 'Newer',
      status: 'ignored',
      environments: ['preview', 'production', 'staging'],
      first_release: '1.0.0',
      last_release: '1.2.0',
    });
    expect(Number(merged.occurrence_count)).toBe(3);
    expect(merged.first_seen_at.toISOString()).toBe(old);
    expect(merged.last_seen_at.toISOString()).toBe(recent);
  });

  it('adds the sources’ spike counts to the target’s, aligned on the newest slot', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, 'Alpha', 1);
    await write(ws.id, 'Beta', 1);
    await write(ws.id, 'Gamma', 1);
    const [alpha, beta, gamma] = await groupsOf(ws.id);
    const spikes = (id: string, seconds: number, latest: number, slots: number[]) =>
      ctx.db
        .updateTable('error_groups')
        .set({ spike_slot_seconds: seconds, spike_latest_slot: String(latest), spike_slots: slots })
        .where('id', '=', id)
        .execute();
    await spikes(alpha!.id, 60, 1000, [5, 4, 3, 2, 1, 0, 0]);
    // One slot newer: the target's slots move one older under it.
    await spikes(beta!.id, 60, 1001, [1, 1, 1, 1, 1, 1, 1]);
    // Counted in another slot length (its rule changed since): cannot be aligned, left out.
    await spikes(gamma!.id, 30, 2002, [9, 9, 9, 9, 9, 9, 9]);
    const { target } = await mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor: api,
      targetId: alpha!.id,
      sourceIds: [beta!.id, gamma!.id],
    });
    expect(target).toMatchObject({
      spike_slot_seconds: 60,
      spike_latest_slot: '1001',
      spike_slots: [1, 6, 5, 4, 3, 2, 1],
    });
  });

  it('reopens a resolved target when an occurrence of a merged fingerprint arrives', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, 'Alpha', 1);
    await write(ws.id, 'Beta', 1);
    const [alpha, beta] = await groupsOf(ws.id);
    await mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor: api,
      targetId: alpha!.id,
      sourceIds: [beta!.id],
    });
    await setErrorGroupStatus(ctx.db, ws.id, alpha!.id, 'resolved');
    await write(ws.id, 'Beta', 1);
    const reopened = await groupOf(ws.id, 'Beta'); // the target now shows Beta's latest class
    expect(reopened.id).toBe(alpha!.id);
    expect(reopened.status).toBe('unresolved');
    expect(reopened.regressed_at).not.toBeNull();
    expect(Number(reopened.occurrence_count)).toBe(3);
  });

  it('refuses guests (403), other workspaces’ ids (404) and bad selections (422)', async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    const guest = await createMember(ctx.db, ws, { role: 'guest' });
    await write(ws.id, 'Alpha', 1);
    await write(ws.id, 'Beta', 1);
    await write(other.id, 'Elsewhere', 1);
    const [alpha, beta] = await groupsOf(ws.id);
    const [elsewhere] = await groupsOf(other.id);
    const merge = (actor: MergeActor, targetId: string, sourceIds: string[]) =>
      refusal(mergeErrorGroups(ctx.db, { workspaceId: ws.id, actor, targetId, sourceIds }));
    const asGuest: MergeActor = {
      kind: 'member',
      memberId: guest.id,
      role: 'guest',
      name: guest.user.name,
    };
    expect(await merge(asGuest, alpha!.id, [beta!.id])).toMatchObject({ status: 403 });
    expect(
      await refusal(
        unmergeFingerprint(ctx.db, {
          workspaceId: ws.id,
          actor: asGuest,
          groupId: alpha!.id,
          fingerprint: beta!.fingerprint,
        }),
      ),
    ).toMatchObject({ status: 403 });
    expect(await merge(api, elsewhere!.id, [beta!.id])).toMatchObject({ status: 404 });
    expect(await merge(api, alpha!.id, [elsewhere!.id])).toMatchObject({ status: 404 });
    expect(await merge(api, alpha!.id, ['egr_nonsense'])).toMatchObject({ status: 404 });
    expect(await merge(api, alpha!.id, [newId('errorGroup')])).toMatchObject({ status: 404 });
    expect(await merge(api, alpha!.id, [])).toMatchObject({
      status: 422,
      message: 'Name at least one group to merge.',
    });
    expect(await merge(api, alpha!.id, [beta!.id, alpha!.id])).toMatchObject({
      status: 422,
      message: expect.stringContaining('cannot merge into itself') as unknown,
    });
    const many = Array.from({ length: 1001 }, () => newId('errorGroup'));
    expect(await merge(api, alpha!.id, many)).toMatchObject({
      status: 422,
      message: 'Merge at most 1000 groups at a time (1001 were sent).',
    });
    expect(
      await refusal(
        unmergeFingerprint(ctx.db, {
          workspaceId: other.id,
          actor: api,
          groupId: alpha!.id,
          fingerprint: beta!.fingerprint,
        }),
      ),
    ).toMatchObject({ status: 404 });
    // Nothing was touched by the refusals.
    expect((await groupsOf(ws.id)).map((g) => Number(g.occurrence_count))).toEqual([1, 1]);
    expect(await groupFingerprints(ctx.db, other.id, alpha!.id)).toEqual([]);
  });

  it('uncounts a job replayed after the merge from the target, not from a new group', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, 'Alpha', 2);
    const payload = job(ws.id, reports('Beta', 3));
    expect((await writeErrors(deps, payload)).inserted).toBe(3);
    const [alpha, beta] = await groupsOf(ws.id);
    await mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor: api,
      targetId: alpha!.id,
      sourceIds: [beta!.id],
    });
    // The job runs again (its worker died after the commit): its reports are stored, and moved.
    expect((await writeErrors(deps, payload)).inserted).toBe(0);
    expect((await groupsOf(ws.id)).map((g) => [g.id, Number(g.occurrence_count)])).toEqual([
      [alpha!.id, 5],
    ]);
    expect(await occurrencesByGroup(ws.id)).toEqual({ [alpha!.id]: 5 });
    expect(await retainedOccurrences(ctx.db, ws.id)).toBe(5);
  });

  it('makes no empty group for a job replayed after its fingerprint was merged and unmerged', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, 'Alpha', 2);
    const payload = job(ws.id, reports('Beta', 3));
    await writeErrors(deps, payload);
    const [alpha, beta] = await groupsOf(ws.id);
    await mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor: api,
      targetId: alpha!.id,
      sourceIds: [beta!.id],
    });
    await unmergeFingerprint(ctx.db, {
      workspaceId: ws.id,
      actor: api,
      groupId: alpha!.id,
      fingerprint: beta!.fingerprint,
    });
    // Its reports are stored (on Alpha, where the merge moved them): nothing new, no group made.
    expect((await writeErrors(deps, payload)).inserted).toBe(0);
    expect((await groupsOf(ws.id)).map((g) => [g.id, Number(g.occurrence_count)])).toEqual([
      [alpha!.id, 5],
    ]);
    // Beta's next occurrence makes its group, counted from 1.
    await write(ws.id, 'Beta', 1);
    const fresh = (await groupsOf(ws.id)).find((g) => g.id !== alpha!.id);
    expect(fresh).toMatchObject({ fingerprint: beta!.fingerprint, occurrence_count: '1' });
  });

  it('lets a writer batch in flight finish before the merge, and files the next under the target', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, 'Alpha', 1);
    await write(ws.id, 'Beta', 1);
    const [alpha, beta] = await groupsOf(ws.id);
    let reached!: () => void;
    const atInsert = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Batch A has inserted two Beta occurrences (into Beta's group) and pauses before its commit.
    const paused = writeErrors(
      {
        ...deps,
        afterInsert: () => {
          reached();
          return released;
        },
      },
      job(ws.id, reports('Beta', 2)),
    );
    await atInsert;
    const advisoryWaiters = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event = 'advisory'`.execute(ctx.db)
      ).rows[0]!.n;
    // The merge waits for batch A (its shared lock).
    const merging = mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor: api,
      targetId: alpha!.id,
      sourceIds: [beta!.id],
    });
    await waitUntil(async () => (await advisoryWaiters()) === 1, 'the merge to wait for batch A');
    // Batch B starts now: it queues behind the merge, and then sees Beta merged.
    const next = writeErrors(deps, job(ws.id, reports('Beta', 3)));
    await waitUntil(
      async () => (await advisoryWaiters()) === 2,
      'batch B to queue behind the waiting merge',
    );
    release();
    expect((await paused).inserted).toBe(2);
    expect((await merging).merged).toBe(1);
    expect((await next).inserted).toBe(3);
    // Every occurrence is on the target, none on the deleted group, and the counts add up.
    expect(await occurrencesByGroup(ws.id)).toEqual({ [alpha!.id]: 7 });
    expect((await groupsOf(ws.id)).map((g) => [g.id, Number(g.occurrence_count)])).toEqual([
      [alpha!.id, 7],
    ]);
    expect(await retainedOccurrences(ctx.db, ws.id)).toBe(7);
    const [, merged] = await groupFingerprints(ctx.db, ws.id, alpha!.id);
    expect(merged).toMatchObject({ fingerprint: beta!.fingerprint, occurrence_count: 3 });
  });

  it('moves a source’s ticket to a target without one, and carries alert cooldowns over', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.id, 'Alpha', 1);
    await write(ws.id, 'Beta', 1);
    await write(ws.id, 'Gamma', 1);
    const [alpha, beta, gamma] = await groupsOf(ws.id);
    const betaTicket = await fileTicketForErrorGroup(ctx.db, ws.id, beta!.id);
    const gammaTicket = await fileTicketForErrorGroup(ctx.db, ws.id, gamma!.id);
    const ruleId = newId('errorAlertRule');
    await ctx.db
      .insertInto('error_alert_rules')
      .values({
        id: ruleId,
        workspace_id: ws.id,
        room_id: null,
        new_group: true,
        regression: true,
        frequency_count: null,
        frequency_minutes: null,
        hook_id: null,
        environments: null,
        sources: null,
        levels: null,
        releases: null,
        tags: null,
        notify_member_ids: null,
        updated_by: null,
      })
      .execute();
    const alerted = new Date('2026-06-01T10:00:00.000Z');
    await ctx.db
      .insertInto('error_alert_state')
      .values({
        group_id: gamma!.id,
        rule_id: ruleId,
        trigger: 'regressed',
        last_alert_at: alerted,
      })
      .execute();
    await mergeErrorGroups(ctx.db, {
      workspaceId: ws.id,
      actor: api,
      targetId: alpha!.id,
      sourceIds: [beta!.id, gamma!.id],
    });
    const tickets = await ctx.db
      .selectFrom('feedback')
      .select(['id', 'error_group_id'])
      .where('workspace_id', '=', ws.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    // The oldest source ticket is the target's now; the other stays, linked to no group.
    expect(tickets).toEqual([
      { id: betaTicket!.ticket.id, error_group_id: alpha!.id },
      { id: gammaTicket!.ticket.id, error_group_id: null },
    ]);
    const state = await ctx.db
      .selectFrom('error_alert_state')
      .select(['group_id', 'trigger', 'last_alert_at'])
      .where('rule_id', '=', ruleId)
      .execute();
    expect(state).toEqual([{ group_id: alpha!.id, trigger: 'regressed', last_alert_at: alerted }]);
  });
});
