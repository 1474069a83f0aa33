import { sql } from 'kysely';
import type { Agent, Db } from '@ferry/db';
import { emitWorkspaceEvents, workspaceEvent } from '@ferry/workspace';

/**
 * The agent's stream opening and closing, as the Dispatch card reads it (stream_seen_at) and as
 * event webhooks hear it (issue 44: agent.connected, agent.disconnected), each in one transaction:
 * the event exists exactly when the state changed.
 */

/** DESIGN.md: online is a stream seen within 60 s; a stream opening after that is a connect. */
const ONLINE_WINDOW_S = 60;

type AgentRef = Pick<Agent, 'id' | 'workspace_id' | 'name' | 'room_id'>;

const agentData = (agent: AgentRef) => ({
  agent: { id: agent.id, name: agent.name, room_id: agent.room_id },
});

export async function markStreamOpen(db: Db, agent: AgentRef): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('agents')
      .select(
        sql<boolean>`stream_seen_at is not null
          and stream_seen_at > now() - ${ONLINE_WINDOW_S} * interval '1 second'`.as('online'),
      )
      .where('id', '=', agent.id)
      .forUpdate()
      .executeTakeFirst();
    await trx
      .updateTable('agents')
      .set({ stream_seen_at: sql<Date>`now()`, woken_at: null })
      .where('id', '=', agent.id)
      .execute();
    if (before && !before.online) {
      await emitWorkspaceEvents(trx, [
        workspaceEvent({
          workspaceId: agent.workspace_id,
          type: 'agent.connected',
          data: agentData(agent),
        }),
      ]);
    }
  });
}

export async function markStreamClosed(db: Db, agent: AgentRef): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const closed = await trx
      .updateTable('agents')
      .set({ stream_seen_at: null })
      .where('id', '=', agent.id)
      .where('stream_seen_at', 'is not', null)
      .returning('id')
      .executeTakeFirst();
    if (!closed) return;
    await emitWorkspaceEvents(trx, [
      workspaceEvent({
        workspaceId: agent.workspace_id,
        type: 'agent.disconnected',
        data: agentData(agent),
      }),
    ]);
  });
}
