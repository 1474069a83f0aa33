import { AppError, isId } from '@ferry/core';
import type { Db, Feedback, FeedbackStatus } from '@ferry/db';
import { z } from 'zod';
import { assignableTo, findAssignable, type Assignee } from '../members/assignable.js';
import { postMessage } from '../messages/messages.js';
import { memberName } from '../members/members.js';
import {
  emitWorkspaceEvents,
  ticketData,
  workspaceEvent,
  type EventActor,
  type WorkspaceEvent,
} from '../event-webhooks/index.js';

/**
 * Triage of a feedback ticket: its status (new, triaged, closed) and who looks after it. Every
 * change is also a small system message in the ticket's conversation ("Ada closed this"), written
 * in the same transaction, so the history reads where the talk about the ticket is.
 */

export const FEEDBACK_STATUSES = [
  'new',
  'triaged',
  'closed',
] as const satisfies readonly FeedbackStatus[];

const STATUS_MESSAGE = 'Must be "new", "triaged" or "closed".';

/** What a change asks for: a key left out stays as it is; `assignee_id: null` unassigns. */
export const triageSchema = z
  .object(
    {
      status: z.enum(FEEDBACK_STATUSES, STATUS_MESSAGE).optional(),
      assignee_id: z
        .string('Must be a member id, or null to unassign.')
        .trim()
        .max(100, 'Must be a member id, or null to unassign.')
        .nullable()
        .optional()
        .transform((value) => (value === '' ? null : value)),
    },
    'Send a JSON object with "status", "assignee_id" or both.',
  )
  // Anything else ("title", a typo of a key) is refused rather than silently ignored.
  .strict()
  .refine((input) => input.status !== undefined || input.assignee_id !== undefined, {
    message: 'Send "status", "assignee_id" or both.',
  });
export type TriageInput = z.infer<typeof triageSchema>;
export type { Assignee };

/**
 * Who a ticket can be assigned to: active seats of the workspace that may read feedback (a guest
 * could not open the ticket they were given), by name. The rule is members/assignable.ts's.
 */
export function assignableMembers(db: Db, workspaceId: string): Promise<Assignee[]> {
  return assignableTo(db, workspaceId, 'feedback.read');
}

/** Who made the change: a member (by name), or an API client, which is no person. */
export type TriageActor = { kind: 'member'; name: string; memberId?: string } | { kind: 'api' };

/** The actor as events name it (issue 44). */
function eventActor(actor: TriageActor): EventActor {
  return actor.kind === 'member'
    ? { type: 'member', id: actor.memberId ?? null, name: actor.name }
    : { type: 'api', id: null, name: null };
}

function statusNotice(actor: TriageActor, from: FeedbackStatus, to: FeedbackStatus): string {
  const verb =
    to === 'closed'
      ? 'closed this'
      : to === 'triaged'
        ? 'marked this triaged'
        : from === 'closed'
          ? 'reopened this'
          : 'moved this back to new';
  return actor.kind === 'member'
    ? `${actor.name} ${verb}`
    : `${verb[0]!.toUpperCase()}${verb.slice(1)} through the API`;
}

function assigneeNotice(actor: TriageActor, to: string | null, from: string | null): string {
  const by = actor.kind === 'member' ? ` by ${actor.name}` : ' through the API';
  if (to) return `Assigned to ${to}${by}`;
  return `${from ? `${from} unassigned` : 'Unassigned'}${by}`;
}

/**
 * Applies a triage change to a ticket of the workspace, with one system message per thing that
 * changed; asking for what already is writes nothing. The row is locked for the transaction so two
 * people changing the same ticket at once each see the other's result in their message.
 * Throws 404 for an unknown ticket and 422 (field `assignee_id`) for someone who cannot be assigned.
 */
export async function triageFeedback(
  db: Db,
  input: { workspaceId: string; feedbackId: string; actor: TriageActor; change: TriageInput },
): Promise<Feedback> {
  const { workspaceId, feedbackId, actor, change } = input;
  if (!isId(feedbackId, 'feedback')) {
    throw new AppError('not_found', 'No such feedback ticket in this workspace.');
  }
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('feedback')
      .selectAll()
      .where('id', '=', feedbackId)
      .where('workspace_id', '=', workspaceId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw new AppError('not_found', 'No such feedback ticket in this workspace.');

    let assignee: Assignee | null | undefined;
    if (change.assignee_id) {
      assignee = await findAssignable(trx, workspaceId, change.assignee_id, 'feedback.read');
      if (!assignee) {
        const message = 'Pick an active member of this workspace.';
        throw new AppError('validation_failed', `The assignee is not valid. ${message}`, {
          fields: { assignee_id: message },
        });
      }
    } else if (change.assignee_id === null) {
      assignee = null;
    }

    const status = change.status ?? current.status;
    const assigneeId = assignee === undefined ? current.assignee_member_id : (assignee?.id ?? null);
    const notices: string[] = [];
    if (status !== current.status) notices.push(statusNotice(actor, current.status, status));
    if (assigneeId !== current.assignee_member_id) {
      notices.push(
        assigneeNotice(
          actor,
          assignee?.name ?? null,
          await memberName(trx, current.assignee_member_id),
        ),
      );
    }
    if (!notices.length) return current;

    const updated = await trx
      .updateTable('feedback')
      .set({ status, assignee_member_id: assigneeId, updated_at: new Date() })
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    for (const body of notices) {
      await postMessage(trx, {
        roomId: current.room_id,
        workspaceId,
        authorKind: 'system',
        displayName: 'Ferry',
        body,
        metadata: { feedbackId: current.id, triage: { status, assigneeId } },
      });
    }
    // Issue 44: triaged and assigned are events, in this commit (the ticket's row lock orders them).
    const events: WorkspaceEvent[] = [];
    // Every status change is a triage (new → triaged, → closed, reopened): `ticket.status` is the
    // new status, `previous_status` the old one.
    if (status !== current.status) {
      events.push(
        workspaceEvent({
          workspaceId,
          type: 'feedback.triaged',
          data: {
            ticket: ticketData(updated),
            previous_status: current.status,
            actor: eventActor(actor),
          },
        }),
      );
    }
    if (assigneeId !== current.assignee_member_id) {
      events.push(
        workspaceEvent({
          workspaceId,
          type: 'feedback.assigned',
          data: {
            ticket: ticketData(updated),
            assignee: assignee ? { id: assignee.id, name: assignee.name } : null,
            actor: eventActor(actor),
          },
        }),
      );
    }
    await emitWorkspaceEvents(trx, events);
    return updated;
  });
}

/**
 * A hosted dispatch that got an agent working marks its ticket triaged (SPEC.md), but only a new
 * one: a ticket someone closed stays closed (a dispatch is work on it, not a decision to reopen),
 * and a triaged one has nothing to change. True when the status moved.
 */
export async function markTriagedByDispatch(db: Db, feedbackId: string): Promise<boolean> {
  const ticket = await db
    .updateTable('feedback')
    .set({ status: 'triaged', updated_at: new Date() })
    .where('id', '=', feedbackId)
    .where('status', '=', 'new')
    .returningAll()
    .executeTakeFirst();
  if (!ticket) return false;
  // Issue 44: in the dispatch step's transaction (the caller's), as every triage is.
  await emitWorkspaceEvents(db, [
    workspaceEvent({
      workspaceId: ticket.workspace_id,
      type: 'feedback.triaged',
      data: { ticket: ticketData(ticket), previous_status: 'new', actor: SYSTEM_EVENT_ACTOR },
    }),
  ]);
  return true;
}

const SYSTEM_EVENT_ACTOR: EventActor = { type: 'system', id: null, name: null };
