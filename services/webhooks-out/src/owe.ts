import { sql } from 'kysely';
import { newId } from '@ferry/core';
import type { Db, DeliveryStatus, WebhookDelivery } from '@ferry/db';
import { gapFloor, type SendableHook } from './claims.js';
import { inStream, MESSAGE_CREATED } from '@ferry/workspace';
import { sentToRoomHooks } from '@ferry/queues';
import { messageCreatedPayload } from './payload.js';

/** A delivery owed and leased in the same statement: its hook's whole run, ready to send. */
export interface LeasedAtOwe {
  hook: SendableHook;
  run: [WebhookDelivery];
  /** Nothing was owed to the hook behind it: once it is sent, the drain need not claim. */
  wholeStream: boolean;
}

export type FanOutResult =
  | { kind: 'skipped'; reason: 'message_missing' | 'loop_guard' | 'no_hooks' }
  | {
      kind: 'owed';
      /** Enabled hooks whose drain must claim what was owed (nothing leased for them here). */
      enabledHookIds: string[];
      /** Enabled hooks whose new delivery is already leased to the caller, who sends it. */
      leased: LeasedAtOwe[];
    };

export interface OweOptions {
  /**
   * Lease each new delivery that is its hook's head, for this long, in the INSERT that owes it,
   * so the caller sends it without a claim (three statements) in between. Without it, every
   * delivery is owed due now and the hooks' drains claim them.
   */
  leaseMs?: number;
  /** Where each hook's gap search may start (sent-positions.ts); the full window without it. */
  sentThrough?: (hookId: string) => Date | undefined;
}

/** Rows per INSERT: well under Postgres' 65,535 bind parameters at 11 per row. */
const INSERT_CHUNK = 1_000;

interface NewDelivery {
  id: string;
  hookId: string;
  messageId: string;
  body: string;
  status: DeliveryStatus;
  /** May be leased at once (see leaseCandidates). */
  leaseCandidate: boolean;
  floorId: string;
  floorAt: Date;
}

/**
 * `message_created` events: the loop guard, then one delivery per hook of each message's room.
 * Only messages members wrote are sent; webhook, agent and system messages never are, so an
 * incoming webhook fed by an outgoing one cannot loop. Each payload is built once and stored: every
 * try of every hook sends those exact bytes. Idempotent: a re-relayed event owes nothing twice
 * (unique index).
 *
 * Many messages at once (the fan-out jobs of a moment, grouped by the caller): one SELECT reads
 * the messages with their rooms and hooks, one INSERT owes every delivery, so a group costs two
 * round trips and one commit whatever its size. The payload is JSON.stringify'd here, not built in
 * SQL, so its bytes are exactly what `messageCreatedPayload` says. Results are in the order given.
 *
 * With `leaseMs`, the INSERT also leases each new delivery that may be sent at once: its hook is
 * enabled, nothing earlier is pending in the hook's stream, and no earlier member message of the
 * room within the gap window is still unowed to the hook (the same rules a claim checks, in the
 * same snapshot: claims.ts). That is the usual case of a quiet hook, and it takes a whole claim off
 * the way from post to first attempt. Rows of one statement do not see each other, so a hook that
 * gets two new deliveries in one group gets neither leased (its drain claims them in order).
 */
export async function oweMessages(
  db: Db,
  messageIds: readonly string[],
  options: OweOptions = {},
): Promise<FanOutResult[]> {
  const unique = [...new Set(messageIds)];
  if (!unique.length) return [];
  const rows = await db
    .selectFrom('messages as m')
    .innerJoin('rooms as r', 'r.id', 'm.room_id')
    .leftJoin('outgoing_webhooks as h', 'h.room_id', 'm.room_id')
    .select([
      'm.id',
      'm.room_id',
      'm.body',
      'm.author_kind',
      'm.author_member_id',
      'm.author_ref',
      'm.display_name',
      'm.created_at',
      'r.name as room_name',
      'r.workspace_id as room_workspace_id',
      'h.id as hook_id',
      'h.state as hook_state',
      'h.target_url as hook_target_url',
      'h.secret_sealed as hook_secret_sealed',
      'h.previous_secret_sealed as hook_previous_secret_sealed',
      'h.previous_secret_expires_at as hook_previous_secret_expires_at',
      'h.created_at as hook_created_at',
    ])
    .where('m.id', 'in', unique)
    .execute();

  const byMessage = new Map<string, typeof rows>();
  for (const row of rows) {
    const list = byMessage.get(row.id);
    if (list) list.push(row);
    else byMessage.set(row.id, [row]);
  }

  const results = new Map<string, FanOutResult>();
  const hooks = new Map<string, SendableHook>();
  const owed: NewDelivery[] = [];
  for (const messageId of unique) {
    const messageRows = byMessage.get(messageId);
    const message = messageRows?.[0];
    if (!messageRows || !message) {
      results.set(messageId, { kind: 'skipped', reason: 'message_missing' });
      continue;
    }
    if (!sentToRoomHooks(message.author_kind)) {
      results.set(messageId, { kind: 'skipped', reason: 'loop_guard' });
      continue;
    }
    const roomHooks = messageRows.filter((row) => row.hook_id !== null && row.hook_state !== null);
    if (!roomHooks.length) {
      results.set(messageId, { kind: 'skipped', reason: 'no_hooks' });
      continue;
    }
    const body = JSON.stringify(
      messageCreatedPayload(
        { id: message.room_id, name: message.room_name, workspace_id: message.room_workspace_id },
        message,
      ),
    );
    for (const hook of roomHooks) {
      const enabled = hook.hook_state === 'enabled';
      hooks.set(hook.hook_id!, {
        id: hook.hook_id!,
        target_url: hook.hook_target_url!,
        secret_sealed: hook.hook_secret_sealed!,
        previous_secret_sealed: hook.hook_previous_secret_sealed,
        previous_secret_expires_at: hook.hook_previous_secret_expires_at,
        // Room hooks are not rate limited (only event endpoints are).
        max_per_second: null,
      });
      const floor = gapFloor(
        hook.hook_created_at!,
        message.created_at,
        options.sentThrough?.(hook.hook_id!),
      );
      owed.push({
        id: newId('webhookDelivery'),
        hookId: hook.hook_id!,
        messageId: message.id,
        body,
        // A disabled hook is still owed the message: held until it is re-enabled.
        status: enabled ? 'pending' : 'held',
        leaseCandidate: enabled && options.leaseMs !== undefined,
        floorId: floor.id,
        floorAt: floor.at,
      });
    }
    results.set(messageId, {
      kind: 'owed',
      enabledHookIds: roomHooks
        .filter((hook) => hook.hook_state === 'enabled')
        .map((hook) => hook.hook_id!),
      leased: [],
    });
  }
  leaseCandidates(owed);

  const inserted: InsertedDelivery[] = [];
  if (owed.length) {
    const insert = async (trx: Db): Promise<void> => {
      for (let from = 0; from < owed.length; from += INSERT_CHUNK) {
        const chunk = owed.slice(from, from + INSERT_CHUNK);
        inserted.push(...(await insertDeliveries(trx, chunk, options.leaseMs ?? 0)));
      }
    };
    // One chunk is one statement, atomic on its own; more need a transaction to stay one commit.
    if (owed.length <= INSERT_CHUNK) await insert(db);
    else await db.transaction().execute(insert);
  }

  // Leased deliveries go to the caller to send; their hooks need no wake-up for them.
  for (const { later_pending: laterPending, ...delivery } of inserted) {
    if (delivery.message_id === null) continue;
    const result = results.get(delivery.message_id);
    const hook = hooks.get(delivery.hook_id);
    if (result?.kind !== 'owed' || !hook) continue;
    result.enabledHookIds = result.enabledHookIds.filter((id) => id !== delivery.hook_id);
    result.leased.push({ hook, run: [delivery], wholeStream: !laterPending });
  }
  return messageIds.map((id) => results.get(id) ?? { kind: 'skipped', reason: 'message_missing' });
}

/**
 * Rows of one INSERT do not see each other: two new deliveries for one hook could both look like
 * its head. Only a hook's only new delivery of the statement may be leased.
 */
function leaseCandidates(owed: NewDelivery[]): void {
  const perHook = new Map<string, number>();
  for (const row of owed) perHook.set(row.hookId, (perHook.get(row.hookId) ?? 0) + 1);
  for (const row of owed) if (perHook.get(row.hookId)! > 1) row.leaseCandidate = false;
}

/** A delivery owed and leased by the INSERT (the only rows it returns). */
type InsertedDelivery = WebhookDelivery & { later_pending: boolean };

async function insertDeliveries(
  db: Db,
  rows: readonly NewDelivery[],
  leaseMs: number,
): Promise<InsertedDelivery[]> {
  // Literal, not a parameter, so the partial unique index (where event = 'message_created') applies.
  const event = sql.lit(MESSAGE_CREATED);
  const { rows: inserted } = await sql<InsertedDelivery>`
    with n as (
      select n.*, m.created_at, m.room_id
      from unnest(
        ${rows.map((row) => row.id)}::text[],
        ${rows.map((row) => row.hookId)}::text[],
        ${rows.map((row) => row.messageId)}::text[],
        ${rows.map((row) => row.body)}::text[],
        ${rows.map((row) => row.status)}::text[],
        ${rows.map((row) => row.leaseCandidate)}::bool[],
        ${rows.map((row) => row.floorId)}::text[],
        ${rows.map((row) => row.floorAt.toISOString())}::timestamptz[]
      ) as n(id, hook_id, message_id, body, status, lease_candidate, floor_id, floor_at)
      -- The message's own time (microseconds): the stream's order key.
      join messages m on m.id = n.message_id
    ), inserted as (
      insert into webhook_deliveries
        (id, hook_id, message_id, event, body, status, next_attempt_at, created_at)
      select n.id, n.hook_id, n.message_id, ${event}, n.body, n.status,
        case
          when n.status <> 'pending' then null
          when n.lease_candidate
            and exists (
              select 1 from outgoing_webhooks h where h.id = n.hook_id and h.state = 'enabled')
            -- The head: nothing earlier pending in the hook's stream (a failed head waiting for
            -- its retry, a run being sent, an earlier delivery not sent yet).
            and not exists (
              select 1 from webhook_deliveries o
              where o.hook_id = n.hook_id and ${inStream('o.event')} and o.status = 'pending'
                and (o.created_at, o.id) < (n.created_at, n.id))
            -- No gap: no earlier member message of the room still unowed to the hook (its
            -- fan-out has not committed); claims.ts checkRuns asks the same.
            and not exists (
              select 1 from messages g
              where g.room_id = n.room_id
                and g.id >= n.floor_id
                and g.author_kind = 'member'
                and g.created_at > n.floor_at
                and g.created_at < n.created_at
                and not exists (
                  select 1 from webhook_deliveries o
                  where o.hook_id = n.hook_id and o.event = ${event} and o.message_id = g.id))
          then now() + ${leaseMs} * interval '1 millisecond'
          else now()
        end,
        n.created_at
      from n
      on conflict do nothing
      returning *
    )
    -- Only the leased rows come back: the caller sends those, and the rest (a backlog's every
    -- row) would only be decoded to be dropped.
    select inserted.*,
      exists (
        select 1 from webhook_deliveries o
        where o.hook_id = inserted.hook_id and ${inStream('o.event')} and o.status = 'pending'
          and (o.created_at, o.id) > (inserted.created_at, inserted.id)) as later_pending
    from inserted
    where inserted.next_attempt_at > now()
  `.execute(db);
  return inserted;
}
