import { z } from 'zod';
import { AppError, newId } from '@ferry/core';
import type { Agent, AgentWork, Db, MessageKind } from '@ferry/db';
import { decideRoute, postMessage, shipPolicy } from '@ferry/workspace';
import type { EventAnswer } from './api-schemas.js';

/** POST /agents/v1/events: progress chips, replies and proposals into the item's conversation. */
export const PROGRESS_MAX = 300;

export const agentEventSchema = z
  .object({
    work_id: z
      .string('Name the work item: "work_id".')
      .regex(/^wrk_[0-9a-z]{26}$/, 'Not a work id.'),
    kind: z.enum(['progress', 'reply', 'proposal'], 'One of "progress", "reply", "proposal".'),
    text: z.string('Must be text.').trim().max(20_000, 'At most 20,000 characters.').default(''),
    proposal: z
      .object(
        {
          summary: z
            .string('Must be text.')
            .trim()
            .min(1, 'Required.')
            .max(500, 'At most 500 characters.'),
          files: z
            .array(z.string().min(1).max(500), 'A list of changed paths.')
            .min(1, 'At least one changed file.')
            .max(500, 'At most 500 files.'),
          lines: z.number('A number of changed lines.').int().min(0).max(10_000_000),
        },
        'An object: {"summary", "files", "lines"}.',
      )
      .optional(),
  })
  .superRefine((event, ctx) => {
    if (event.kind === 'proposal' && !event.proposal) {
      ctx.addIssue({
        code: 'custom',
        path: ['proposal'],
        message: 'Required with kind "proposal".',
      });
    }
    if (event.kind !== 'proposal' && !event.text) {
      ctx.addIssue({ code: 'custom', path: ['text'], message: 'Required.' });
    }
  });

export type AgentEvent = z.output<typeof agentEventSchema>;

export type { EventAnswer };

/** Stores the event as a message of the agent in the work item's conversation. */
export async function recordAgentEvent(
  db: Db,
  agent: Agent,
  work: AgentWork,
  event: AgentEvent,
): Promise<EventAnswer> {
  const post = (kind: MessageKind, body: string, metadata: Record<string, unknown>) =>
    postMessage(db, {
      roomId: work.conversation_id,
      workspaceId: work.workspace_id,
      authorKind: 'agent',
      authorRef: agent.id,
      displayName: agent.name,
      body,
      kind,
      metadata: { work_id: work.id, ...metadata },
    });
  if (event.kind === 'progress') {
    const text = event.text.replace(/\s+/g, ' ').slice(0, PROGRESS_MAX);
    return { message_id: (await post('progress', text, {})).id };
  }
  if (event.kind === 'reply') return { message_id: (await post('text', event.text, {})).id };
  const proposal = event.proposal;
  if (!proposal) throw new AppError('validation_failed', 'A proposal needs "proposal".');
  const decision = decideRoute(await shipPolicy(db, work.workspace_id), proposal);
  const message = await post('proposal', proposal.summary, {
    route: decision.route,
    reason: decision.reason,
    files: proposal.files,
    lines: proposal.lines,
  });
  await db
    .insertInto('agent_proposals')
    .values({
      id: newId('agentProposal'),
      work_id: work.id,
      agent_id: agent.id,
      message_id: message.id,
      summary: proposal.summary,
      files: JSON.stringify(proposal.files),
      lines: proposal.lines,
      route: decision.route,
      reason: decision.reason,
    })
    .execute();
  return { message_id: message.id, route: decision.route, reason: decision.reason };
}
