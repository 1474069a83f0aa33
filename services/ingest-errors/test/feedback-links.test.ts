import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import type { JobPayload } from '@ferry/queues';
import { createMember, createTestContext, createWorkspace, type TestContext } from '@ferry/testing';
import {
  fileFeedback,
  groupTickets,
  linkTicketToGroup,
  mergeErrorGroups,
  registerVisitor,
  ticketErrorGroups,
  unlinkTicketFromGroup,
  type LinkInput,
} from '@ferry/workspace';
import { fingerprint } from '../src/fingerprint.js';
import { writeErrors, type WriteErrorsDeps } from '../src/jobs/write-errors.js';
import type { QueuedReport } from '../src/queued.js';
import { parseBatch } from '../src/report.js';

/**
 * Issue 45 part 3, through the real error writer and fileFeedback: a visitor's occurrences in the
 * 10 minutes around their ticket link it to the groups, whichever was stored first; one outside
 * the window does not; another visitor's never. A member's unlink sticks against the visitor's
 * next occurrence, a hand link shows on both sides, a merge carries links to the target, and the
 * group counts different people, not tickets.
 */
describe('tickets linked to error groups', () => {
  let ctx: TestContext;
  let deps: WriteErrorsDeps;

  beforeAll(async () => {
    ctx = await createTestContext();
    deps = { db: ctx.db, logger: ctx.logger, retentionLimit: 20_000, random: () => 1 };
  });
  afterAll(async () => {
    await ctx.close();
  });

  const minutes = (n: number) => new Date(Date.now() + n * 60_000).toISOString();

  /** One report of `errorClass` (class and frame make its group) at `occurredAt`. */
  async function hit(
    workspaceId: string,
    visitorId: string | null,
    errorClass: string,
    occurredAt: string,
  ) {
    const reports: QueuedReport[] = parseBatch(
      {
        errors: [
          {
            error_class: errorClass,
            message: `${errorClass} happened`,
            backtrace: [`app/${errorClass.toLowerCase()}.js:1`],
            occurred_at: occurredAt,
          },
        ],
      },
      new Date(),
    ).reports.map((report) => ({
      ...report,
      id: newId('errorOccurrence'),
      fingerprint: fingerprint(report),
    }));
    const job: JobPayload<'error-ingest'> = {
      workspaceId,
      visitorId,
      receivedAt: new Date().toISOString(),
      reports,
    };
    await writeErrors(deps, job);
  }

  async function groupId(workspaceId: string, errorClass: string) {
    const row = await ctx.db
      .selectFrom('error_groups')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('error_class', '=', errorClass)
      .executeTakeFirstOrThrow();
    return row.id;
  }

  const ticket = (workspaceId: string, visitorId: string | null, note: string) =>
    fileFeedback(ctx.db, workspaceId, { note, title: null }, { visitorId });

  const classes = async (workspaceId: string, feedbackId: string) =>
    (await ticketErrorGroups(ctx.db, workspaceId, feedbackId)).map((g) => g.error_class).sort();

  it('links a visitor’s occurrences around the report, both ways, whichever came first', async () => {
    const workspace = await createWorkspace(ctx.db);
    const ada = await registerVisitor(ctx.db, workspace.id);
    const bob = await registerVisitor(ctx.db, workspace.id);
    // Before the report: 3 minutes (in) and 11 minutes (out); another visitor's at the same time.
    await hit(workspace.id, ada.id, 'CartError', minutes(-3));
    await hit(workspace.id, ada.id, 'CartError', minutes(-2));
    await hit(workspace.id, ada.id, 'StaleError', minutes(-11));
    await hit(workspace.id, bob.id, 'BobError', minutes(-1));
    await hit(workspace.id, null, 'ServerError', minutes(-1));
    const filed = await ticket(workspace.id, ada.id, 'The cart is empty');
    expect(await classes(workspace.id, filed.id)).toEqual(['CartError']);
    const [cart] = await ticketErrorGroups(ctx.db, workspace.id, filed.id);
    expect(cart).toMatchObject({ origin: 'visitor', visitor_occurrences: 2 });

    // After the report: an occurrence within 10 minutes links at write time, counts add up.
    await hit(workspace.id, ada.id, 'PayError', minutes(4));
    await hit(workspace.id, ada.id, 'CartError', minutes(1));
    expect(await classes(workspace.id, filed.id)).toEqual(['CartError', 'PayError']);
    const counted = await ticketErrorGroups(ctx.db, workspace.id, filed.id);
    expect(counted.find((g) => g.error_class === 'CartError')?.visitor_occurrences).toBe(3);

    // The group's side: its tickets and how many people.
    const cartId = await groupId(workspace.id, 'CartError');
    const side = await groupTickets(ctx.db, workspace.id, cartId);
    expect(side).toMatchObject({ total: 1, people: 1 });
    expect(side.tickets[0]).toMatchObject({ feedback_id: filed.id, note: 'The cart is empty' });
    // A second ticket by the same visitor is the same person; a third visitor's is another.
    const again = await ticket(workspace.id, ada.id, 'Still empty');
    const carol = await registerVisitor(ctx.db, workspace.id);
    const hers = await ticket(workspace.id, carol.id, 'Mine too');
    await hit(workspace.id, carol.id, 'CartError', minutes(0));
    expect(await groupTickets(ctx.db, workspace.id, cartId)).toMatchObject({ total: 3, people: 2 });
    expect(await classes(workspace.id, again.id)).toEqual(['CartError', 'PayError']);
    expect(await classes(workspace.id, hers.id)).toEqual(['CartError']);
  });

  it('links and unlinks by hand; an unlink sticks against the visitor’s next occurrence', async () => {
    const workspace = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, workspace, { role: 'member' });
    const visitor = await registerVisitor(ctx.db, workspace.id);
    await hit(workspace.id, visitor.id, 'LinkedError', minutes(-1));
    await hit(workspace.id, null, 'ServerError', minutes(-60));
    const filed = await ticket(workspace.id, visitor.id, 'Broken');
    const linked = await groupId(workspace.id, 'LinkedError');
    const server = await groupId(workspace.id, 'ServerError');
    const input = (group: string): LinkInput => ({
      workspaceId: workspace.id,
      feedbackId: filed.id,
      groupId: group,
      actor: { kind: 'member', memberId: member.id, name: member.user.name },
    });

    expect(await unlinkTicketFromGroup(ctx.db, input(linked))).toBe(true);
    expect(await unlinkTicketFromGroup(ctx.db, input(linked))).toBe(false);
    await hit(workspace.id, visitor.id, 'LinkedError', minutes(1));
    expect(await classes(workspace.id, filed.id)).toEqual([]);
    expect((await groupTickets(ctx.db, workspace.id, linked)).total).toBe(0);

    expect(await linkTicketToGroup(ctx.db, input(server))).toEqual({
      groupId: server,
      changed: true,
    });
    expect((await linkTicketToGroup(ctx.db, input(server))).changed).toBe(false);
    expect(await linkTicketToGroup(ctx.db, input(linked))).toMatchObject({ changed: true });
    expect(await classes(workspace.id, filed.id)).toEqual(['LinkedError', 'ServerError']);
    const byHand = await groupTickets(ctx.db, workspace.id, server);
    expect(byHand.tickets[0]).toMatchObject({ origin: 'hand', visitor_occurrences: 0 });

    // Each change is a notice in the ticket's conversation.
    const notices = await ctx.db
      .selectFrom('messages')
      .select('body')
      .where('room_id', '=', filed.room_id)
      .where('author_kind', '=', 'system')
      .orderBy('created_at')
      .execute();
    expect(notices.map((n) => n.body).slice(1)).toEqual([
      `${member.user.name} unlinked this ticket from the error LinkedError: LinkedError happened.`,
      `${member.user.name} linked this ticket to the error ServerError: ServerError happened.`,
      `${member.user.name} linked this ticket to the error LinkedError: LinkedError happened.`,
    ]);

    // Another workspace's group or ticket is not found, and names which.
    const other = await createWorkspace(ctx.db);
    await hit(other.id, null, 'ElsewhereError', minutes(0));
    const elsewhere = await groupId(other.id, 'ElsewhereError');
    await expect(linkTicketToGroup(ctx.db, input(elsewhere))).rejects.toMatchObject({
      code: 'not_found',
      options: { fields: { group: 'No such error group in this workspace.' } },
    });
    await expect(
      linkTicketToGroup(ctx.db, { ...input(server), feedbackId: newId('feedback') }),
    ).rejects.toMatchObject({
      code: 'not_found',
      options: { fields: { ticket: expect.any(String) as string } },
    });
  });

  it('a merge carries the merged groups’ links to the target, one per ticket', async () => {
    const workspace = await createWorkspace(ctx.db);
    const visitor = await registerVisitor(ctx.db, workspace.id);
    await hit(workspace.id, visitor.id, 'FirstError', minutes(-2));
    await hit(workspace.id, visitor.id, 'SecondError', minutes(-1));
    await hit(workspace.id, visitor.id, 'SecondError', minutes(-1));
    await hit(workspace.id, null, 'TargetError', minutes(-1));
    const filed = await ticket(workspace.id, visitor.id, 'Two errors');
    const first = await groupId(workspace.id, 'FirstError');
    const second = await groupId(workspace.id, 'SecondError');
    const target = await groupId(workspace.id, 'TargetError');
    await mergeErrorGroups(ctx.db, {
      workspaceId: workspace.id,
      actor: { kind: 'api' },
      targetId: target,
      sourceIds: [first, second],
    });
    const links = await ticketErrorGroups(ctx.db, workspace.id, filed.id);
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({ group_id: target, visitor_occurrences: 3 });
    // Linking by a merged-away id links the group that holds it.
    const member = await createMember(ctx.db, workspace, { role: 'member' });
    const hand = await linkTicketToGroup(ctx.db, {
      workspaceId: workspace.id,
      feedbackId: filed.id,
      groupId: first,
      actor: { kind: 'member', memberId: member.id, name: member.user.name },
    });
    expect(hand).toEqual({ groupId: target, changed: false });
  });
});
