import { sql } from 'kysely';
import { newId } from '@ferry/core';
import type { Db } from '@ferry/db';
import { writeEvents, type OutboxEvent } from '@ferry/queues';
import { ERROR_EVENT_TYPES, type EventData, type EventType } from './catalog.js';

/**
 * Emitting workspace events (issue 44 part 2), inside the transaction of the action that caused
 * them: each event owes one delivery to every endpoint of its workspace that subscribes to its
 * type and whose filters pass, as rows of webhook_deliveries (the stream webhooks-out drains, the
 * same rows room hooks and alert URLs use), plus one `event_webhook_owed` outbox event per woken
 * endpoint. The deliveries commit with the action or not at all: nothing is lost between the
 * action and Redis, nothing is owed for an action that rolled back.
 *
 * ORDER. A delivery's stream position (`created_at`) is `clock_timestamp()` at its INSERT, which
 * comes after the action took its resource's row lock (the group, the ticket, the dispatch): a
 * later action on the same resource waits for that lock, so its deliveries are positioned after
 * this one's commit. Each endpoint's stream is sent strictly in that order, a failed head holding
 * the rest back (webhooks-out deliveries.ts), so one endpoint receives one resource's events in
 * the order they happened, retries included.
 *
 * An endpoint disabled (by hand or by failures) is still owed: held, sent when it is re-enabled.
 */

export interface WorkspaceEvent<T extends EventType = EventType> {
  workspaceId: string;
  type: T;
  data: EventData<T>;
  /** Error events: the environments they concern, for endpoints' environment filters. */
  environments?: readonly string[];
  /** message.created: its room, for endpoints' room choice. */
  roomId?: string;
}

/** Builds one event with its data typed by the catalog. */
export function workspaceEvent<T extends EventType>(event: WorkspaceEvent<T>): WorkspaceEvent {
  return event;
}

interface Subscriber {
  hook_id: string;
  target_url: string;
  workspace_id: string;
  state: 'enabled' | 'disabled';
  event_types: string[];
  environments: string[] | null;
  room_ids: string[] | null;
}

/** Does the endpoint want this event (its type, then its filters)? */
export function endpointWants(
  endpoint: Omit<Subscriber, 'hook_id' | 'state' | 'target_url'>,
  event: WorkspaceEvent,
): boolean {
  if (endpoint.workspace_id !== event.workspaceId) return false;
  if (!endpoint.event_types.includes(event.type)) return false;
  if (endpoint.environments && ERROR_EVENT_TYPES.includes(event.type)) {
    const wanted = endpoint.environments;
    if (!(event.environments ?? []).some((name) => wanted.includes(name))) return false;
  }
  if (event.type === 'message.created') {
    if (!endpoint.room_ids || !event.roomId || !endpoint.room_ids.includes(event.roomId)) {
      return false;
    }
  }
  return true;
}

/** One delivery owed: to which endpoint (and its URL), for which event. */
export interface OwedEvent {
  hookId: string;
  url: string;
  event: WorkspaceEvent;
}

/**
 * Owes the events to their subscribed endpoints in `tx` (the action's transaction). One indexed
 * read of the workspaces' endpoints; nothing more when none subscribes. Returns what was owed
 * (the error writer gives it to the alert rules, which send nothing twice to one URL).
 */
export async function emitWorkspaceEvents(
  tx: Db,
  events: readonly WorkspaceEvent[],
  now: Date = new Date(),
): Promise<OwedEvent[]> {
  if (!events.length) return [];
  const workspaceIds = [...new Set(events.map((event) => event.workspaceId))];
  const types = [...new Set(events.map((event) => event.type))];
  const endpoints: Subscriber[] = await tx
    .selectFrom('event_endpoints as e')
    .innerJoin('outgoing_webhooks as h', 'h.id', 'e.hook_id')
    .select([
      'e.hook_id',
      'h.target_url',
      'e.workspace_id',
      'h.state',
      'e.event_types',
      'e.environments',
      'e.room_ids',
    ])
    .where('e.workspace_id', 'in', workspaceIds)
    .where(sql<boolean>`e.event_types && ${types}::text[]`)
    .orderBy('e.hook_id')
    .execute();
  if (!endpoints.length) return [];

  const rows: {
    id: string;
    hook_id: string;
    event: string;
    body: string;
    status: 'pending' | 'held';
    enabled: boolean;
  }[] = [];
  const owed: OwedEvent[] = [];
  const timestamp = now.toISOString();
  for (const event of events) {
    const wanting = endpoints.filter((endpoint) => endpointWants(endpoint, event));
    if (!wanting.length) continue;
    // Built once: every endpoint, and every try, sends these exact bytes.
    const body = JSON.stringify({ type: event.type, timestamp, data: event.data });
    for (const endpoint of wanting) {
      const enabled = endpoint.state === 'enabled';
      rows.push({
        id: newId('webhookDelivery'),
        hook_id: endpoint.hook_id,
        event: event.type,
        body,
        status: enabled ? 'pending' : 'held',
        enabled,
      });
      owed.push({ hookId: endpoint.hook_id, url: endpoint.target_url, event });
    }
  }
  if (!rows.length) return [];
  // One statement, rows in event order: clock_timestamp() grows along them (stream order).
  await tx
    .insertInto('webhook_deliveries')
    .values(
      rows.map((row) => ({
        id: row.id,
        hook_id: row.hook_id,
        message_id: null,
        event: row.event,
        body: row.body,
        status: row.status,
        next_attempt_at: row.enabled ? sql<Date>`now()` : null,
        created_at: sql<Date>`clock_timestamp()`,
      })),
    )
    .execute();
  const woken = new Map<string, string>();
  for (const row of rows) {
    if (!row.enabled) continue;
    const endpoint = endpoints.find((one) => one.hook_id === row.hook_id)!;
    woken.set(row.hook_id, endpoint.workspace_id);
  }
  const wake: OutboxEvent[] = [...woken].map(([hookId, workspaceId]) => ({
    type: 'event_webhook_owed',
    payload: { hookId, workspaceId },
  }));
  await writeEvents(tx, wake);
  return owed;
}
