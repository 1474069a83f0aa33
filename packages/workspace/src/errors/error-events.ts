import type { Db, ErrorGroup } from '@ferry/db';
import {
  emitWorkspaceEvents,
  groupData,
  workspaceEvent,
  type EventActor,
  type WorkspaceEvent,
} from '../event-webhooks/index.js';
import type { AlertCandidate } from './error-alert-raise.js';

/**
 * Error group events for event webhooks (issue 44), each emitted in the transaction of the action:
 * created and regressed by the error writer, resolved by triage (page, API, bulk), assigned by
 * assignErrorGroup(s).
 */

export const SYSTEM_ACTOR: EventActor = { type: 'system', id: null, name: null };
export const API_ACTOR: EventActor = { type: 'api', id: null, name: null };

/**
 * The writer's batch as events: a group it created, a group it reopened. Built from what its
 * upsert returned: `group.environments` is the row's after the write (a regressed group's earlier
 * environments with the batch's); endpoints' environment filters look at the batch's occurrences
 * (the environments the event happened in).
 */
export function errorWriterEvents(candidates: readonly AlertCandidate[]): WorkspaceEvent[] {
  const events: WorkspaceEvent[] = [];
  for (const candidate of candidates) {
    if (candidate.newOccurrences <= 0 || !(candidate.created || candidate.regressed)) continue;
    const environments = [...candidate.environments.keys()].sort();
    const { group, groupEnvironments } = candidate;
    const data = {
      group: {
        id: group.id,
        error_class: group.error_class,
        latest_message: group.latest_message,
        status: candidate.status,
        occurrence_count: group.occurrence_count,
        first_seen_at: group.first_seen_at,
        last_seen_at: group.last_seen_at,
        environments: [...groupEnvironments],
      },
      environment: group.environment,
    };
    events.push(
      workspaceEvent({
        workspaceId: candidate.workspaceId,
        type: candidate.created ? 'error.group.created' : 'error.group.regressed',
        data,
        environments,
      }),
    );
  }
  return events;
}

/** error.group.resolved for groups that became resolved (were not before). */
export async function emitGroupsResolved(
  tx: Db,
  groups: readonly ErrorGroup[],
  actor: EventActor,
): Promise<void> {
  await emitWorkspaceEvents(
    tx,
    groups.map((group) =>
      workspaceEvent({
        workspaceId: group.workspace_id,
        type: 'error.group.resolved',
        data: { group: groupData(group), actor },
        environments: group.environments,
      }),
    ),
  );
}

/** error.group.assigned for groups whose assignee changed. */
export async function emitGroupsAssigned(
  tx: Db,
  groups: readonly ErrorGroup[],
  assignee: { id: string; name: string } | null,
  actor: EventActor,
): Promise<void> {
  await emitWorkspaceEvents(
    tx,
    groups.map((group) =>
      workspaceEvent({
        workspaceId: group.workspace_id,
        type: 'error.group.assigned',
        data: { group: groupData(group), assignee, actor },
        environments: group.environments,
      }),
    ),
  );
}

export function memberActor(member: { memberId: string; name: string }): EventActor {
  return { type: 'member', id: member.memberId, name: member.name };
}
