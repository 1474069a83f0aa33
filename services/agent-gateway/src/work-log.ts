import { sql } from 'kysely';
import { newId } from '@ferry/core';
import type { AgentWork, AgentWorkKind, Db } from '@ferry/db';

/**
 * Each agent's durable work log: ordered by `seq`, delivered over the agent's stream until acked.
 * Postgres is the truth; Redis only nudges the gateway process holding the stream.
 */

export interface NewWork {
  agentId: string;
  workspaceId: string;
  kind: AgentWorkKind;
  /** What made it (`feedback:<id>`, `message:<id>`): logging it twice logs it once. */
  source: string;
  conversationId: string;
  payload: object;
}

/** Logs the item unless its source already is in the agent's log; true when it was new. */
export async function logWork(db: Db, work: NewWork): Promise<boolean> {
  const inserted = await db
    .insertInto('agent_work')
    .values({
      id: newId('agentWork'),
      agent_id: work.agentId,
      workspace_id: work.workspaceId,
      kind: work.kind,
      source: work.source,
      conversation_id: work.conversationId,
      payload: JSON.stringify(work.payload),
    })
    .onConflict((oc) => oc.columns(['agent_id', 'source']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The agent's unacked items after `afterSeq`, oldest first. */
export function unackedWork(
  db: Db,
  agentId: string,
  afterSeq = '0',
  limit = 100,
): Promise<AgentWork[]> {
  return db
    .selectFrom('agent_work')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('acked_at', 'is', null)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

export async function countUnacked(db: Db, agentId: string): Promise<number> {
  const row = await db
    .selectFrom('agent_work')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('agent_id', '=', agentId)
    .where('acked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function markDelivered(db: Db, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await db
    .updateTable('agent_work')
    .set({ delivered_at: sql<Date>`now()` })
    .where('id', 'in', [...ids])
    .where('delivered_at', 'is', null)
    .execute();
}

/** Acks an item of this agent (again is fine); false when the agent has no such item. */
export async function ackWork(db: Db, agentId: string, workId: string): Promise<boolean> {
  const row = await db
    .updateTable('agent_work')
    .set({ acked_at: sql<Date>`coalesce(acked_at, now())` })
    .where('id', '=', workId)
    .where('agent_id', '=', agentId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export function findWork(db: Db, agentId: string, workId: string): Promise<AgentWork | undefined> {
  return db
    .selectFrom('agent_work')
    .selectAll()
    .where('id', '=', workId)
    .where('agent_id', '=', agentId)
    .executeTakeFirst();
}
