import { z } from 'zod';
import type { Dispatch, ErrorGroup, Feedback, Message } from '@ferry/db';

/**
 * THE catalog of workspace event types (issue 44 part 2): one entry per type, its payload's
 * `data` as a zod schema. The Settings → Event webhooks → Catalog page and
 * `GET /api/v1/event-types` publish each schema as JSON Schema (zod's toJSONSchema), and the
 * emitters (emit.ts) build `data` through the helpers below, typed by the same schemas, so what is
 * sent is what is published.
 *
 * Every delivery body is the Standard Webhooks envelope `{type, timestamp, data}`; the
 * `webhook-id` header is the delivery's id (stable across retries, one per endpoint).
 */

const iso = z.iso.datetime({ offset: true });

/** Who did it: a member, an API client (a token), or Ferry itself (the error writer, a dispatch). */
export const actorSchema = z.object({
  type: z.enum(['member', 'api', 'system']),
  /** The member's seat id; null for the API and the system. */
  id: z.string().nullable(),
  name: z.string().nullable(),
});
export type EventActor = z.output<typeof actorSchema>;

const errorGroupSchema = z.object({
  id: z.string(),
  error_class: z.string(),
  latest_message: z.string(),
  status: z.enum(['unresolved', 'resolved', 'ignored']),
  occurrence_count: z.number().int(),
  first_seen_at: iso,
  last_seen_at: iso,
  /** The environments its occurrences came from (sorted). */
  environments: z.array(z.string()),
});

const memberRefSchema = z.object({ id: z.string(), name: z.string() }).nullable();

const ticketSchema = z.object({
  id: z.string(),
  status: z.enum(['new', 'triaged', 'closed']),
  title: z.string().nullable(),
  note: z.string(),
  /** The ticket's conversation room. */
  room_id: z.string(),
  page_url: z.string().nullable(),
  reporter_label: z.string().nullable(),
  error_group_id: z.string().nullable(),
  assignee_member_id: z.string().nullable(),
  created_at: iso,
});

const dispatchSchema = z.object({
  id: z.string(),
  feedback_id: z.string(),
  repo_id: z.string(),
  status: z.string(),
  issue_url: z.string().nullable(),
  pr_url: z.string().nullable(),
  error: z.string().nullable(),
  created_at: iso,
});

const agentSchema = z.object({ id: z.string(), name: z.string(), room_id: z.string() });

const messageSchema = z.object({
  id: z.string(),
  room_id: z.string(),
  body: z.string(),
  sender: z.object({
    type: z.enum(['member', 'webhook', 'agent', 'system']),
    id: z.string().nullable(),
    name: z.string(),
  }),
  created_at: iso,
});

const groupEvent = z.object({
  group: errorGroupSchema,
  /** The environment of the occurrence that raised it (null when the report named none). */
  environment: z.string().nullable(),
});

interface CatalogEntry {
  title: string;
  description: string;
  /** The resource whose events one endpoint receives in order (all of its events are, anyway). */
  resource: 'error_group' | 'feedback' | 'dispatch' | 'agent' | 'message';
  schema: z.ZodType;
}

export const EVENT_CATALOG = {
  'error.group.created': {
    title: 'Error group created',
    description: 'The first occurrence of a new error: the error writer made its group.',
    resource: 'error_group',
    schema: groupEvent,
  },
  'error.group.regressed': {
    title: 'Error group regressed',
    description: 'A resolved error group got a new occurrence and is unresolved again.',
    resource: 'error_group',
    schema: groupEvent,
  },
  'error.group.resolved': {
    title: 'Error group resolved',
    description: 'Someone marked an error group resolved (its page, a bulk action or the API).',
    resource: 'error_group',
    schema: z.object({ group: errorGroupSchema, actor: actorSchema }),
  },
  'error.group.assigned': {
    title: 'Error group assigned',
    description: 'An error group got a new assignee, or was unassigned (assignee null).',
    resource: 'error_group',
    schema: z.object({ group: errorGroupSchema, assignee: memberRefSchema, actor: actorSchema }),
  },
  'feedback.created': {
    title: 'Feedback filed',
    description: 'A feedback ticket was filed (the widget, the API, or "Fix with agent").',
    resource: 'feedback',
    schema: z.object({ ticket: ticketSchema }),
  },
  'feedback.triaged': {
    title: 'Feedback triaged (status changed)',
    description:
      "A ticket's status changed (new, triaged, closed, either way): `ticket.status` is the new status, `previous_status` the old one. By a member, through the API, or by a dispatch getting an agent to work (new to triaged).",
    resource: 'feedback',
    schema: z.object({
      ticket: ticketSchema,
      previous_status: z.enum(['new', 'triaged', 'closed']),
      actor: actorSchema,
    }),
  },
  'feedback.assigned': {
    title: 'Feedback assigned',
    description: 'A ticket got a new assignee, or was unassigned (assignee null).',
    resource: 'feedback',
    schema: z.object({ ticket: ticketSchema, assignee: memberRefSchema, actor: actorSchema }),
  },
  'dispatch.started': {
    title: 'Dispatch started',
    description:
      'A hosted coding agent started on a ticket (an agent task, or the issue assigned).',
    resource: 'dispatch',
    schema: z.object({ dispatch: dispatchSchema }),
  },
  'dispatch.pr_opened': {
    title: 'Dispatch opened a pull request',
    description: "The dispatch's agent opened a pull request (pr_url).",
    resource: 'dispatch',
    schema: z.object({ dispatch: dispatchSchema }),
  },
  'dispatch.completed': {
    title: 'Dispatch completed',
    description: "The dispatch's agent finished its task.",
    resource: 'dispatch',
    schema: z.object({ dispatch: dispatchSchema }),
  },
  'dispatch.failed': {
    title: 'Dispatch failed',
    description: 'The dispatch failed; `error` says why.',
    resource: 'dispatch',
    schema: z.object({ dispatch: dispatchSchema }),
  },
  'agent.connected': {
    title: 'Local agent connected',
    description: "A local agent's live connection opened after it was not connected.",
    resource: 'agent',
    schema: z.object({ agent: agentSchema }),
  },
  'agent.disconnected': {
    title: 'Local agent disconnected',
    description: "A local agent's last live connection closed.",
    resource: 'agent',
    schema: z.object({ agent: agentSchema }),
  },
  'message.created': {
    title: 'Message posted',
    description:
      "A member posted a message in one of the endpoint's chosen rooms (webhook, agent and system messages are never sent: the loop guard room hooks have).",
    resource: 'message',
    schema: z.object({ message: messageSchema }),
  },
} as const satisfies Record<string, CatalogEntry>;

export type EventType = keyof typeof EVENT_CATALOG;
export type EventData<T extends EventType> = z.output<(typeof EVENT_CATALOG)[T]['schema']>;

export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_CATALOG, value);
}

/** Error events: those an endpoint's environment filter applies to. */
export const ERROR_EVENT_TYPES: readonly EventType[] = [
  'error.group.created',
  'error.group.regressed',
  'error.group.resolved',
  'error.group.assigned',
];

/** The delivery body of every event: the Standard Webhooks envelope. */
export function eventEnvelopeSchema<T extends EventType>(type: T) {
  return z.object({
    type: z.literal(type),
    timestamp: iso,
    data: EVENT_CATALOG[type].schema,
  });
}

/** A catalog entry as GET /api/v1/event-types publishes it. */
export const catalogJsonEntrySchema = z.object({
  type: z.enum(EVENT_TYPES).meta({ example: 'error.group.created' }),
  title: z.string().meta({ example: 'Error group created' }),
  description: z.string(),
  resource: z.string(),
  schema: z
    .record(z.string(), z.unknown())
    .meta({ description: 'JSON Schema (draft 2020-12) of the whole delivery body.' }),
});
export type CatalogJsonEntry = z.infer<typeof catalogJsonEntrySchema>;

let published: CatalogJsonEntry[] | undefined;

/** The catalog as published: each type's envelope as JSON Schema. Built once (it never changes). */
export function catalogJson(): CatalogJsonEntry[] {
  published ??= EVENT_TYPES.map((type) => {
    const entry = EVENT_CATALOG[type];
    return {
      type,
      title: entry.title,
      description: entry.description,
      resource: entry.resource,
      schema: z.toJSONSchema(eventEnvelopeSchema(type), { io: 'output' }),
    };
  });
  return published;
}

/**
 * "Send test event" on an endpoint's page: sent to that one endpoint when asked, signed like any
 * delivery and shown in its log, never owed by an action (so no endpoint subscribes to it, and it
 * is not in EVENT_TYPES). Published beside the catalog so a receiver can accept it.
 */
export const WEBHOOK_TEST_TYPE = 'webhook.test';

export const webhookTestSchema = z.object({
  type: z.literal(WEBHOOK_TEST_TYPE),
  timestamp: iso,
  data: z.object({
    endpoint: z.object({ id: z.string(), url: z.string() }),
    message: z.string(),
  }),
});

/** The body of a test delivery to `endpoint`. */
export function webhookTestBody(endpoint: { id: string; url: string }, now = new Date()): string {
  const body: z.output<typeof webhookTestSchema> = {
    type: WEBHOOK_TEST_TYPE,
    timestamp: now.toISOString(),
    data: {
      endpoint: { id: endpoint.id, url: endpoint.url },
      message: 'This is a test event from Ferry. Your endpoint received it.',
    },
  };
  return JSON.stringify(body);
}

/** The test event as the catalog page and GET /api/v1/event-types show it. */
export function webhookTestJson(): Omit<CatalogJsonEntry, 'type' | 'resource'> & {
  type: typeof WEBHOOK_TEST_TYPE;
} {
  return {
    type: WEBHOOK_TEST_TYPE,
    title: 'Test event',
    description:
      'Sent by "Send test event" on an endpoint\'s page, to that endpoint only; nothing subscribes to it.',
    schema: z.toJSONSchema(webhookTestSchema, { io: 'output' }),
  };
}

// The builders of `data`'s parts, from rows, so every emitter sends the same shapes.

export function groupData(
  group: Pick<
    ErrorGroup,
    | 'id'
    | 'error_class'
    | 'latest_message'
    | 'status'
    | 'occurrence_count'
    | 'first_seen_at'
    | 'last_seen_at'
    | 'environments'
  >,
): EventData<'error.group.created'>['group'] {
  return {
    id: group.id,
    error_class: group.error_class,
    latest_message: group.latest_message,
    status: group.status,
    occurrence_count: Number(group.occurrence_count),
    first_seen_at: group.first_seen_at.toISOString(),
    last_seen_at: group.last_seen_at.toISOString(),
    environments: [...group.environments],
  };
}

export function ticketData(
  ticket: Pick<
    Feedback,
    | 'id'
    | 'status'
    | 'title'
    | 'note'
    | 'room_id'
    | 'page_url'
    | 'reporter_label'
    | 'error_group_id'
    | 'assignee_member_id'
    | 'created_at'
  >,
): EventData<'feedback.created'>['ticket'] {
  return {
    id: ticket.id,
    status: ticket.status,
    title: ticket.title,
    note: ticket.note,
    room_id: ticket.room_id,
    page_url: ticket.page_url,
    reporter_label: ticket.reporter_label,
    error_group_id: ticket.error_group_id,
    assignee_member_id: ticket.assignee_member_id,
    created_at: ticket.created_at.toISOString(),
  };
}

export function dispatchData(
  dispatch: Pick<
    Dispatch,
    'id' | 'feedback_id' | 'repo_id' | 'status' | 'issue_url' | 'pr_url' | 'error' | 'created_at'
  >,
): EventData<'dispatch.started'>['dispatch'] {
  return {
    id: dispatch.id,
    feedback_id: dispatch.feedback_id,
    repo_id: dispatch.repo_id,
    status: dispatch.status,
    issue_url: dispatch.issue_url,
    pr_url: dispatch.pr_url,
    error: dispatch.error,
    created_at: dispatch.created_at.toISOString(),
  };
}

export function messageData(
  message: Pick<
    Message,
    | 'id'
    | 'room_id'
    | 'body'
    | 'author_kind'
    | 'author_member_id'
    | 'author_ref'
    | 'display_name'
    | 'created_at'
  >,
): EventData<'message.created'>['message'] {
  return {
    id: message.id,
    room_id: message.room_id,
    body: message.body,
    sender: {
      type: message.author_kind,
      id: message.author_member_id ?? message.author_ref,
      name: message.display_name,
    },
    created_at: message.created_at.toISOString(),
  };
}
