import { postOutbound } from '@ferry/http';
import type { JobPayload } from '@ferry/queues';
import { agentOnline } from '@ferry/workspace';
import type { AgentGatewayDeps } from '../deps.js';
import { countUnacked } from '../work-log.js';

/**
 * `agent-wake`: POSTs `{agent, reason: "queued_work"}` with `X-Service-Wake-Token` to the agent's
 * wake URL, through the SSRF-checked sender. A failure (non-2xx, timeout, refused address) throws,
 * so BullMQ retries it with backoff. While the agent stays offline with work queued, the request
 * is repeated every AGENT_WAKE_REPEAT_MS (one delayed job per slot); an agent that connected, or
 * whose work was all acked, ends the episode.
 */
export async function wakeAgent(
  deps: AgentGatewayDeps,
  { agentId }: JobPayload<'agent-wake'>,
): Promise<{ sent: boolean }> {
  const agent = await deps.db
    .selectFrom('agents')
    .selectAll()
    .where('id', '=', agentId)
    .executeTakeFirst();
  if (!agent?.wake_url || !agent.woken_at || agentOnline(agent)) return { sent: false };
  if ((await countUnacked(deps.db, agent.id)) === 0) {
    await deps.db
      .updateTable('agents')
      .set({ woken_at: null })
      .where('id', '=', agent.id)
      .execute();
    return { sent: false };
  }
  const token = agent.wake_token_sealed ? deps.box.decrypt(agent.wake_token_sealed) : '';
  const result = await postOutbound(
    agent.wake_url,
    {
      'content-type': 'application/json',
      'user-agent': 'Ferry-Wake/1',
      ...(token ? { 'x-service-wake-token': token } : {}),
    },
    JSON.stringify({ agent: { id: agent.id, name: agent.name }, reason: 'queued_work' }),
    { timeoutMs: deps.settings.wakeTimeoutMs, ssrf: deps.settings.ssrf },
  );
  if (!result.ok) {
    throw new Error(`wake request to the agent's wake URL failed: ${result.error ?? 'no answer'}`);
  }
  const repeatMs = deps.settings.wakeRepeatMs;
  const slot = Math.floor(Date.now() / repeatMs) + 1;
  await deps.producer.add(
    'agent-wake',
    { agentId: agent.id, workspaceId: agent.workspace_id },
    { jobId: `wake-${agent.id}-repeat-${slot}`, delay: repeatMs },
  );
  return { sent: true };
}
