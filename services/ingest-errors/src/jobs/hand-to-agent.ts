import type { Db } from '@ferry/db';
import type { JobPayload } from '@ferry/queues';
import { fileTicketForErrorGroup, type Symbolicator } from '@ferry/workspace';

/**
 * `error-handoff` (issue 43): an alert rule handed the group to the agent, in the writer's
 * transaction that raised the alert (error_alert_handoffs, at most once a group); this files the
 * same ticket "Fix with agent" files, with the app's frames mapped. The local agent hears of it
 * as of any ticket (feedback_filed). Idempotent: a group has one ticket, so a re-run finds it. A
 * group merged or deleted since files nothing.
 */
export async function handToAgentJob(
  deps: { db: Db; symbolicator: Symbolicator },
  payload: JobPayload<'error-handoff'>,
): Promise<{ ticketId: string; created: boolean } | null> {
  const filed = await fileTicketForErrorGroup(deps.db, payload.workspaceId, payload.groupId, {
    symbolicator: deps.symbolicator,
  });
  return filed ? { ticketId: filed.ticket.id, created: filed.created } : null;
}
