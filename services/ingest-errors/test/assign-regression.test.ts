import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import type { JobPayload } from '@ferry/queues';
import { createMember, createTestContext, createWorkspace, type TestContext } from '@ferry/testing';
import { assignErrorGroup, setErrorGroupStatus } from '@ferry/workspace';
import { fingerprint } from '../src/fingerprint.js';
import { writeErrors, type WriteErrorsDeps } from '../src/jobs/write-errors.js';
import type { QueuedReport } from '../src/queued.js';
import { parseBatch } from '../src/report.js';

/**
 * Issue 43: when the writer reopens a resolved group (a regression), the group's assignee is
 * notified in the same commit: a notice from Ferry counted among their mentions. Only the
 * reopening notifies, not each later occurrence, and an unassigned group notifies nobody.
 */
describe('error writer: an assigned group that regresses', () => {
  let ctx: TestContext;
  let deps: WriteErrorsDeps;
  beforeAll(async () => {
    ctx = await createTestContext();
    deps = { db: ctx.db, logger: ctx.logger, retentionLimit: 20_000, random: () => 1 };
  });
  afterAll(async () => {
    await ctx.close();
  });

  const job = (workspaceId: string, message: string): JobPayload<'error-ingest'> => ({
    workspaceId,
    visitorId: null,
    receivedAt: new Date().toISOString(),
    reports: parseBatch(
      { errors: [{ error_class: 'PaymentError', message, backtrace: ['app/pay.rb:1'] }] },
      new Date(),
    ).reports.map((report): QueuedReport => ({
      ...report,
      id: newId('errorOccurrence'),
      fingerprint: fingerprint(report),
    })),
  });

  async function notices(memberId: string) {
    return ctx.db
      .selectFrom('mentions')
      .innerJoin('messages', 'messages.id', 'mentions.message_id')
      .select(['mentions.reason', 'mentions.read_at', 'messages.body', 'messages.metadata'])
      .where('mentions.member_id', '=', memberId)
      .orderBy('messages.id')
      .execute();
  }

  it('notifies the assignee once when it reopens, and nobody for an unassigned group', async () => {
    const ws = await createWorkspace(ctx.db);
    const admin = await createMember(ctx.db, ws, { role: 'admin' });
    const ada = await createMember(ctx.db, ws, { role: 'member' });
    await writeErrors(deps, job(ws.id, 'declined'));
    const group = await ctx.db
      .selectFrom('error_groups')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();

    // Unassigned: a regression notifies nobody.
    await setErrorGroupStatus(ctx.db, ws.id, group.id, 'resolved');
    await writeErrors(deps, job(ws.id, 'declined again'));
    expect(
      await ctx.db
        .selectFrom('mentions')
        .select('member_id')
        .where('reason', '=', 'assignment')
        .innerJoin('members', 'members.id', 'mentions.member_id')
        .where('members.workspace_id', '=', ws.id)
        .execute(),
    ).toEqual([]);

    await assignErrorGroup(ctx.db, {
      workspaceId: ws.id,
      groupId: group.id,
      actor: { kind: 'member', memberId: admin.id, role: 'admin', name: 'Ann Admin' },
      assigneeId: ada.id,
    });
    expect((await notices(ada.id)).map((n) => n.body)).toEqual([
      'Ann Admin assigned you the error “PaymentError: declined again”.',
    ]);

    // Still unresolved: another occurrence is no regression.
    await writeErrors(deps, job(ws.id, 'still declined'));
    expect(await notices(ada.id)).toHaveLength(1);

    await setErrorGroupStatus(ctx.db, ws.id, group.id, 'resolved');
    await writeErrors(deps, job(ws.id, 'back again'));
    const after = await notices(ada.id);
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({
      reason: 'assignment',
      read_at: null,
      body: 'The error “PaymentError: back again”, assigned to you, came back after being resolved.',
      metadata: { errorGroupId: group.id },
    });
    // Both notices are in the one room Ferry keeps with this seat.
    const rooms = await ctx.db
      .selectFrom('member_notice_rooms')
      .select('room_id')
      .where('member_id', '=', ada.id)
      .execute();
    expect(rooms).toHaveLength(1);
    // The admin who assigned is told nothing.
    expect(await notices(admin.id)).toEqual([]);
  });
});
