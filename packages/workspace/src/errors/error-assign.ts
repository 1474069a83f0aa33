import { AppError, isId, newId } from '@ferry/core';
import type { Db, ErrorGroup, Role } from '@ferry/db';
import { z } from 'zod';
import { can } from '../members/capabilities.js';
import { findAssignable, type Assignee } from '../members/assignable.js';
import { postMessage } from '../messages/messages.js';
import { lockGroupsInWriterOrder } from './error-triage.js';
import type { EventActor } from '../event-webhooks/index.js';
import { API_ACTOR, emitGroupsAssigned, memberActor, SYSTEM_ACTOR } from './error-events.js';

/**
 * Assigning an error group to one member, or to nobody (issue 43). The rule is the feedback
 * tickets' (members/assignable.ts): the assignee is an active seat that may read errors, so never
 * a guest; and whoever assigns must be allowed to triage errors, so never a guest either. Both
 * checks live here, so the page, the API and anything later go through the same door.
 *
 * The assignee hears of it through their Mentions (count and page): a notice from Ferry in the
 * seat's own direct-message room with Ferry, with a mention row of reason `assignment`. The same
 * notice goes out when a group assigned to them regresses (the ingest writer calls
 * notifyRegressedAssignees in its transaction).
 */

const ASSIGNEE_MESSAGE = 'Must be a member id, or null to unassign.';

/** `assignee_id`: a member id, or null (or "", as a form sends it) for nobody. */
export const assigneeIdSchema = z
  .string(ASSIGNEE_MESSAGE)
  .trim()
  .max(100, ASSIGNEE_MESSAGE)
  .nullable()
  .transform((value) => (value === '' ? null : value));

/** Who assigns: a member (their role decides whether they may), or an API client (tenant:write). */
export type AssignActor =
  { kind: 'member'; memberId: string; role: Role; name: string } | { kind: 'api' };

/** A group's one-line name in a notice: its class and message, as the list shows it. */
function groupTitle(group: Pick<ErrorGroup, 'error_class' | 'latest_message'>): string {
  const line = `${group.error_class}: ${group.latest_message}`.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/**
 * Assigns the group to `assigneeId` (null: nobody). Asking for what already is writes nothing and
 * notifies nobody. Throws 403 for an actor who may not triage errors (a guest), 404 for a group
 * not of the workspace, 422 (field `assignee_id`) for someone who cannot be assigned.
 */
export async function assignErrorGroup(
  db: Db,
  input: { workspaceId: string; groupId: string; actor: AssignActor; assigneeId: string | null },
): Promise<ErrorGroup> {
  const { workspaceId, groupId, actor, assigneeId } = input;
  if (actor.kind === 'member' && !can(actor.role, 'errors.triage')) {
    throw new AppError('forbidden', 'Guests cannot assign error groups.');
  }
  if (!isId(groupId, 'errorGroup')) {
    throw new AppError('not_found', 'No such error group in this workspace.');
  }
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('error_groups')
      .selectAll()
      .where('id', '=', groupId)
      .where('workspace_id', '=', workspaceId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw new AppError('not_found', 'No such error group in this workspace.');
    let assignee: Assignee | null = null;
    if (assigneeId !== null) {
      assignee = (await findAssignable(trx, workspaceId, assigneeId, 'errors.read')) ?? null;
      if (!assignee) {
        const message = 'Pick an active member of this workspace; guests cannot be assigned.';
        throw new AppError('validation_failed', `The assignee is not valid. ${message}`, {
          fields: { assignee_id: message },
        });
      }
    }
    const nextId = assignee?.id ?? null;
    if (nextId === current.assignee_member_id) return current;
    const updated = await trx
      .updateTable('error_groups')
      .set({ assignee_member_id: nextId })
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await emitGroupsAssigned(
      trx,
      [updated],
      assignee ? { id: assignee.id, name: assignee.name } : null,
      actor.kind === 'member' ? memberActor(actor) : API_ACTOR,
    );
    // Assigning oneself needs no notice: one knows.
    if (assignee && !(actor.kind === 'member' && actor.memberId === assignee.id)) {
      const by = actor.kind === 'member' ? actor.name : 'An API client';
      await postAssigneeNotice(trx, {
        workspaceId,
        memberId: assignee.id,
        about: { errorGroupId: current.id },
        body: `${by} assigned you the error “${groupTitle(current)}”.`,
      });
    }
    return updated;
  });
}

/**
 * The writer's half: of the groups a batch just reopened (resolved, then a new occurrence), those
 * assigned to someone who may still read errors tell that someone. Runs in the writer's
 * transaction, so the notice exists exactly when the reopening does. One read when none is assigned.
 */
export async function notifyRegressedAssignees(
  trx: Db,
  groupIds: readonly string[],
): Promise<number> {
  if (groupIds.length === 0) return 0;
  const rows = await trx
    .selectFrom('error_groups as g')
    .innerJoin('members as m', 'm.id', 'g.assignee_member_id')
    .select(['g.id', 'g.workspace_id', 'g.error_class', 'g.latest_message', 'm.id as member_id'])
    .select('m.role')
    .where('g.id', 'in', [...groupIds])
    .where('m.left_at', 'is', null)
    .orderBy('m.id')
    .execute();
  let sent = 0;
  for (const row of rows) {
    if (!can(row.role, 'errors.read')) continue;
    await postAssigneeNotice(trx, {
      workspaceId: row.workspace_id,
      memberId: row.member_id,
      about: { errorGroupId: row.id },
      body: `The error “${groupTitle(row)}”, assigned to you, came back after being resolved.`,
    });
    sent += 1;
  }
  return sent;
}

/**
 * The seat's direct-message room with Ferry, made the first time it is needed. The seat's row is
 * locked (no key update: inserts that reference it are not held up) while the room is looked up,
 * so two notices at once make one room, not two.
 */
async function noticesRoom(trx: Db, workspaceId: string, memberId: string): Promise<string> {
  await trx
    .selectFrom('members')
    .select('id')
    .where('id', '=', memberId)
    .forNoKeyUpdate()
    .executeTakeFirstOrThrow();
  const found = await trx
    .selectFrom('member_notice_rooms')
    .select('room_id')
    .where('member_id', '=', memberId)
    .executeTakeFirst();
  if (found) return found.room_id;
  const roomId = newId('room');
  await trx
    .insertInto('rooms')
    .values({ id: roomId, workspace_id: workspaceId, kind: 'dm', name: 'Ferry', created_by: null })
    .execute();
  await trx.insertInto('room_members').values({ room_id: roomId, member_id: memberId }).execute();
  await trx
    .insertInto('member_notice_rooms')
    .values({ member_id: memberId, room_id: roomId })
    .execute();
  return roomId;
}

/**
 * What a notice is about, in its message's metadata: one group (the Mentions card opens it), or
 * a search (a bulk assignment: the card opens the list of that search).
 */
type NoticeAbout = { errorGroupId: string } | { errorsQuery: string };

/** A notice from Ferry to one seat, counted among its mentions (reason `assignment`). */
async function postAssigneeNotice(
  trx: Db,
  notice: { workspaceId: string; memberId: string; about: NoticeAbout; body: string },
): Promise<void> {
  const roomId = await noticesRoom(trx, notice.workspaceId, notice.memberId);
  const message = await postMessage(trx, {
    roomId,
    workspaceId: notice.workspaceId,
    authorKind: 'system',
    displayName: 'Ferry',
    body: notice.body,
    metadata: notice.about,
  });
  // recordMentions finds @handles and ticket replies; this reason is known here, not in the text.
  await trx
    .insertInto('mentions')
    .values({
      member_id: notice.memberId,
      message_id: message.id,
      room_id: roomId,
      reason: 'assignment',
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/**
 * Assigns many of the workspace's groups to one seat, or to nobody (a bulk action's chunk), in
 * the caller's transaction. The seat was checked when the action was asked for (findAssignable),
 * and is checked again here: one who left or became a guest meanwhile gets nothing (422). The
 * rows are locked in the writer's order first (error-triage.ts). Notices are the caller's: one
 * for the whole action, not one per group. Returns how many of the ids were the workspace's.
 */
export async function assignErrorGroups(
  trx: Db,
  workspaceId: string,
  groupIds: readonly string[],
  assigneeId: string | null,
  actor: EventActor = SYSTEM_ACTOR,
): Promise<number> {
  const assignee =
    assigneeId === null ? null : await findAssignable(trx, workspaceId, assigneeId, 'errors.read');
  if (assigneeId !== null && !assignee) {
    throw new AppError(
      'validation_failed',
      'The assignee is not valid. They left the workspace or became a guest after the action was asked for.',
      { fields: { assignee_id: 'Pick an active member of this workspace.' } },
    );
  }
  const locked = await lockGroupsInWriterOrder(trx, workspaceId, groupIds);
  if (locked.length === 0) return 0;
  const changed = await trx
    .updateTable('error_groups')
    .set({ assignee_member_id: assigneeId })
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', locked)
    .where('assignee_member_id', 'is distinct from', assigneeId)
    .returningAll()
    .execute();
  // Issue 44: each group whose assignee changed is an event, in the chunk's commit.
  await emitGroupsAssigned(
    trx,
    changed,
    assignee ? { id: assignee.id, name: assignee.name } : null,
    actor,
  );
  return locked.length;
}

/**
 * One notice for a bulk assignment: "<who> assigned you N errors", opening the assignee's own
 * list. Nothing when they assigned themselves, or when nothing was assigned.
 */
export async function noticeBulkAssignment(
  trx: Db,
  input: { workspaceId: string; assigneeId: string; actor: AssignActor; count: number },
): Promise<void> {
  const { actor, assigneeId, count } = input;
  if (count === 0 || (actor.kind === 'member' && actor.memberId === assigneeId)) return;
  const by = actor.kind === 'member' ? actor.name : 'An API client';
  await postAssigneeNotice(trx, {
    workspaceId: input.workspaceId,
    memberId: assigneeId,
    about: { errorsQuery: 'assigned:me' },
    body: `${by} assigned you ${count === 1 ? 'an error' : `${count.toLocaleString('en-US')} errors`}.`,
  });
}

/** The assignee's name for the list and the group page (null: nobody, or a seat since gone). */
export async function assigneeNames(
  db: Db,
  memberIds: readonly (string | null)[],
): Promise<Map<string, string>> {
  const ids = [...new Set(memberIds.filter((id): id is string => id !== null))];
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select(['members.id', 'users.name'])
    .where('members.id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
