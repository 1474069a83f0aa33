import type { Agent, Db, Feedback } from '@ferry/db';
import type { JobPayload } from '@ferry/queues';
import { agentOnline, findFeedback, workTicket } from '@ferry/workspace';
import type { AgentGatewayDeps } from '../deps.js';
import { nudge } from '../streams.js';
import { logWork, type NewWork } from '../work-log.js';

/**
 * `agent-work`: a filed ticket goes to the workspace's receiving agent; a member message
 * addressed to agents goes to each of them. Logged once per (agent, source) however often the
 * job runs; then the agent's stream is nudged, and an offline agent with a wake URL is woken
 * (once per offline episode: `woken_at` is set here and cleared when it connects).
 */
export async function routeWork(
  deps: AgentGatewayDeps,
  payload: JobPayload<'agent-work'>,
): Promise<{ logged: number }> {
  const { db } = deps;
  const items: { agent: Agent; work: NewWork }[] = [];
  if (payload.kind === 'feedback') {
    const agent = await db
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', payload.workspaceId)
      .where('receives_feedback', '=', true)
      .orderBy('created_at')
      .executeTakeFirst();
    const ticket = agent && (await findFeedback(db, payload.workspaceId, payload.feedbackId));
    if (agent && ticket) {
      items.push({
        agent,
        work: {
          agentId: agent.id,
          workspaceId: payload.workspaceId,
          kind: 'feedback',
          source: `feedback:${ticket.id}`,
          conversationId: ticket.room_id,
          payload: { feedback: await feedbackOf(deps, ticket), message: null },
        },
      });
    }
  } else {
    const message = await db
      .selectFrom('messages')
      .select(['id', 'body', 'display_name', 'room_id'])
      .where('id', '=', payload.messageId)
      .executeTakeFirst();
    const agents = await db
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', payload.workspaceId)
      .where('id', 'in', payload.agentIds)
      .execute();
    const ticket = message && (await ticketOfRoom(db, payload.workspaceId, message.room_id));
    for (const agent of message ? agents : []) {
      items.push({
        agent,
        work: {
          agentId: agent.id,
          workspaceId: payload.workspaceId,
          kind: 'message',
          source: `message:${payload.messageId}`,
          conversationId: payload.roomId,
          payload: {
            feedback: ticket ? await feedbackOf(deps, ticket) : null,
            message: {
              id: message!.id,
              body: message!.body,
              author: { name: message!.display_name },
            },
          },
        },
      });
    }
  }
  let logged = 0;
  for (const { agent, work } of items) {
    if (await logWork(db, work)) logged++;
    await nudge(deps.redis, deps.config.REDIS_PREFIX, agent.id, deps.logger);
    await wakeIfOffline(deps, agent);
  }
  return { logged };
}

/** The ticket as the agent gets it: its context, and its evidence (issue 45) when it has some. */
async function feedbackOf(deps: AgentGatewayDeps, ticket: Feedback) {
  return workTicket(deps.db, ticket, {
    symbolicator: deps.symbolicator,
    rules: await deps.scrubRules.rules(ticket.workspace_id),
  });
}

async function ticketOfRoom(db: Db, workspaceId: string, roomId: string) {
  const row = await db
    .selectFrom('feedback')
    .select('id')
    .where('room_id', '=', roomId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row ? findFeedback(db, workspaceId, row.id) : undefined;
}

/** One wake request per offline episode: claimed by setting `woken_at` while it is null. */
export async function wakeIfOffline(deps: AgentGatewayDeps, agent: Agent): Promise<boolean> {
  if (!agent.wake_url || agentOnline(agent)) return false;
  const claimed = await deps.db
    .updateTable('agents')
    .set({ woken_at: new Date() })
    .where('id', '=', agent.id)
    .where('woken_at', 'is', null)
    .returning('woken_at')
    .executeTakeFirst();
  if (!claimed?.woken_at) return false;
  await deps.producer.add(
    'agent-wake',
    { agentId: agent.id, workspaceId: agent.workspace_id },
    { jobId: `wake-${agent.id}-${claimed.woken_at.getTime()}` },
  );
  return true;
}
