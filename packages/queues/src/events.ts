import { z } from 'zod';
import type { AuthorKind } from '@ferry/db';
import {
  describeIssues,
  idSchema,
  InvalidPayloadError,
  safeParseJob,
  type BulkJob,
  type JobInput,
  type QueueName,
} from './catalog.js';

/**
 * THE event catalog: domain events written to the outbox in the transaction that caused them
 * (see outbox.ts), each with its payload schema and the queues the relay hands it to. A route
 * turns the event into that queue's job; returning null means "no job for this one". Adding an
 * event is one entry below; adding a consumer is one route.
 */
type Routes<P> = {
  readonly [Q in QueueName]?: (payload: P, eventId: string) => JobInput<Q> | null;
};

export interface EventDefinition<S extends z.ZodType = z.ZodType> {
  schema: S;
  relayTo: Routes<z.output<S>>;
  /** How long the relayed jobs wait before they run (ms from the relay's now); none when absent. */
  delayMs?: (payload: z.output<S>) => number;
}

const defineEvent = <S extends z.ZodType>(definition: EventDefinition<S>): EventDefinition<S> =>
  definition;

const authorKinds = ['member', 'webhook', 'agent', 'system'] as const satisfies AuthorKind[];

/**
 * The outgoing loop guard: only what members write goes out to room hooks; webhook, agent and
 * system messages never do, so an incoming webhook fed by an outgoing one cannot loop. Here, below
 * both places that apply it: the relay's route below (no job at all) and webhooks-out's fan-out
 * (owe.ts, which checks the message itself again). Services may import this package, not each other.
 */
export function sentToRoomHooks(authorKind: AuthorKind): boolean {
  return authorKind === 'member';
}

export const eventCatalog = {
  message_created: defineEvent({
    schema: z.object({
      messageId: idSchema('message'),
      roomId: idSchema('room'),
      workspaceId: idSchema('workspace'),
      authorKind: z.enum(authorKinds),
    }),
    relayTo: {
      // Only what members write goes out to outgoing webhooks (the loop guard). authorKind is
      // written with the message in one transaction, so the relay can apply the guard: no job at
      // all for webhook, agent and system messages, which at incoming-webhook rates would be one
      // useless job per post. The fan-out checks the message itself again.
      'webhook-delivery': ({ messageId, roomId, workspaceId, authorKind }, eventId) =>
        sentToRoomHooks(authorKind) ? { eventId, messageId, roomId, workspaceId } : null,
    },
  }),
  /**
   * A stored message was edited or deleted (an incoming webhook's Discord-style PATCH/DELETE, issue
   * 44). No queue: the relay's onRelayed hook announces it to every web process, which re-renders
   * or removes it on the pages showing the room (packages/workspace messages/live.ts).
   */
  message_changed: defineEvent({
    schema: z.object({
      messageId: idSchema('message'),
      roomId: idSchema('room'),
      workspaceId: idSchema('workspace'),
      change: z.enum(['updated', 'deleted']),
    }),
    relayTo: {},
  }),
  /**
   * A member's message addressed to local agents: posted in an agent's own room, or @-mentioning
   * agents in a ticket conversation (postMessage decides, in the message's transaction). Only
   * members address agents: what agents, webhooks and the system post never routes back.
   */
  agent_addressed: defineEvent({
    schema: z.object({
      messageId: idSchema('message'),
      roomId: idSchema('room'),
      workspaceId: idSchema('workspace'),
      agentIds: z.array(idSchema('agent')).min(1).max(50),
    }),
    relayTo: {
      'agent-work': ({ messageId, roomId, workspaceId, agentIds }, eventId) => ({
        kind: 'message' as const,
        eventId,
        messageId,
        roomId,
        workspaceId,
        agentIds,
      }),
    },
  }),
  feedback_filed: defineEvent({
    schema: z.object({ feedbackId: idSchema('feedback'), workspaceId: idSchema('workspace') }),
    relayTo: {
      'agent-work': ({ feedbackId, workspaceId }, eventId) => ({
        kind: 'feedback' as const,
        eventId,
        feedbackId,
        workspaceId,
      }),
    },
  }),
  /**
   * The error writer owed alert deliveries to the workspace's alert URL hook (issue 26): its
   * drain in webhooks-out is woken, as a room message's fan-out wakes its hooks.
   */
  error_alert_owed: defineEvent({
    schema: z.object({ hookId: idSchema('outgoingWebhook'), workspaceId: idSchema('workspace') }),
    relayTo: {
      'webhook-drain': ({ hookId }) => ({ hookId }),
    },
  }),
  /**
   * A workspace event (issue 44) was owed to an event webhook endpoint in the transaction of the
   * action that caused it: the endpoint's drain in webhooks-out is woken.
   */
  event_webhook_owed: defineEvent({
    schema: z.object({ hookId: idSchema('outgoingWebhook'), workspaceId: idSchema('workspace') }),
    relayTo: {
      'webhook-drain': ({ hookId }) => ({ hookId }),
    },
  }),
  /**
   * A rule's alerts went over the room's hourly cap: at the hour's end one line says how many
   * were held (the job is delayed until then).
   */
  error_alerts_held: defineEvent({
    schema: z.object({
      workspaceId: idSchema('workspace'),
      /** The rule whose cap it was (issue 43); absent in events written before. */
      ruleId: idSchema('errorAlertRule').optional(),
      windowStart: z.iso.datetime({ offset: true }),
      windowEnd: z.iso.datetime({ offset: true }),
      errorsUrl: z.url(),
    }),
    relayTo: {
      'error-alerts-held': ({ workspaceId, ruleId, windowStart, errorsUrl }) => ({
        workspaceId,
        ruleId,
        windowStart,
        errorsUrl,
      }),
    },
    delayMs: ({ windowEnd }) => Math.max(0, Date.parse(windowEnd) - Date.now()),
  }),
  /** An alert rule handed an error group to the agent (issue 43): a job files its ticket. */
  error_handoff_requested: defineEvent({
    schema: z.object({ workspaceId: idSchema('workspace'), groupId: idSchema('errorGroup') }),
    relayTo: {
      'error-handoff': ({ workspaceId, groupId }) => ({ workspaceId, groupId }),
    },
  }),
  /** A bulk action over error groups was asked for (issue 43): a job runs it. */
  error_bulk_requested: defineEvent({
    schema: z.object({
      actionId: idSchema('errorBulkAction'),
      workspaceId: idSchema('workspace'),
    }),
    relayTo: {
      'error-bulk': ({ actionId, workspaceId }) => ({ actionId, workspaceId }),
    },
  }),
  /** A dispatch row was written (API or ticket page): its hosted-agent flow starts. */
  dispatch_requested: defineEvent({
    schema: z.object({ dispatchId: idSchema('dispatch'), workspaceId: idSchema('workspace') }),
    relayTo: {
      dispatch: ({ dispatchId }) => ({ dispatchId, round: 0 }),
    },
  }),
};

export type EventType = keyof typeof eventCatalog;

/** Every queue some event is relayed to: each needs a consumer wherever the relay runs. */
export function routedQueues(): QueueName[] {
  const routed = new Set<QueueName>();
  for (const definition of Object.values(eventCatalog) as { relayTo: object }[]) {
    for (const queue of Object.keys(definition.relayTo) as QueueName[]) routed.add(queue);
  }
  return [...routed];
}
export type EventPayload<E extends EventType> = z.output<(typeof eventCatalog)[E]['schema']>;
export type EventInput<E extends EventType> = z.input<(typeof eventCatalog)[E]['schema']>;

export const eventTypes = Object.keys(eventCatalog) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(eventCatalog, value);
}

/** Validates an event payload; throws InvalidPayloadError naming the event and each problem. */
export function parseEvent<E extends EventType>(type: E, payload: unknown): EventPayload<E> {
  const result = eventCatalog[type].schema.safeParse(payload);
  if (!result.success) {
    throw new InvalidPayloadError(
      `event "${type}"`,
      result.error.issues,
      describeIssues(result.error),
    );
  }
  // E's own schema parsed it; indexing with a generic E only widened the static type.
  return result.data as EventPayload<E>;
}

/** A catalog entry with its types erased, for code that handles any event (the relay). */
interface ErasedEventDefinition {
  schema: z.ZodType;
  relayTo: Partial<Record<QueueName, (payload: unknown, eventId: string) => unknown>>;
  delayMs?: (payload: unknown) => number;
}

/**
 * The jobs one outbox row becomes: one per route, each with jobId = the event id, each payload
 * already validated against its queue's schema. Throws InvalidPayloadError when the event's
 * payload or a route's output is invalid, so the caller can set the row aside instead of enqueuing
 * part of it.
 */
export function jobsForEvent(type: EventType, payload: unknown, eventId: string): BulkJob[] {
  // Sound: each route is only called with its own event schema's output, and what it returns is
  // validated against the target queue's schema below.
  const definition = eventCatalog[type] as unknown as ErasedEventDefinition;
  const event = parseEvent(type, payload);
  const jobs: BulkJob[] = [];
  for (const [queue, route] of Object.entries(definition.relayTo) as [
    QueueName,
    (payload: unknown, eventId: string) => unknown,
  ][]) {
    const mapped = route(event, eventId);
    if (mapped === null) continue;
    const parsed = safeParseJob(queue, mapped);
    if (!parsed.success) {
      throw new InvalidPayloadError(
        `queue "${queue}" (routed from event "${type}")`,
        parsed.error.issues,
        describeIssues(parsed.error),
      );
    }
    const delay = definition.delayMs?.(event);
    jobs.push({
      queue,
      payload: parsed.data,
      opts: delay ? { jobId: eventId, delay } : { jobId: eventId },
    } as BulkJob);
  }
  return jobs;
}
