import { sql, type InsertObject } from 'kysely';
import { newId } from '@ferry/core';
import type { Database, Db } from '@ferry/db';
import { DELIVERY_EVENT } from './deliveries.js';
import { messageCreatedPayload } from './payload.js';

export type FanOutResult =
  | { kind: 'skipped'; reason: 'message_missing' | 'loop_guard' | 'no_hooks' }
  | { kind: 'owed'; enabledHookIds: string[] };

/** Rows per INSERT: well under Postgres' 65,535 bind parameters at 7 per row. */
const INSERT_CHUNK = 1_000;

type NewDelivery = InsertObject<Database, 'webhook_deliveries'>;

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
 */
export async function oweMessages(db: Db, messageIds: readonly string[]): Promise<FanOutResult[]> {
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
  const owed: NewDelivery[] = [];
  for (const messageId of unique) {
    const messageRows = byMessage.get(messageId);
    const message = messageRows?.[0];
    if (!messageRows || !message) {
      results.set(messageId, { kind: 'skipped', reason: 'message_missing' });
      continue;
    }
    if (message.author_kind !== 'member') {
      results.set(messageId, { kind: 'skipped', reason: 'loop_guard' });
      continue;
    }
    const hooks = messageRows.flatMap((row) =>
      row.hook_id !== null && row.hook_state !== null
        ? [{ id: row.hook_id, state: row.hook_state }]
        : [],
    );
    if (!hooks.length) {
      results.set(messageId, { kind: 'skipped', reason: 'no_hooks' });
      continue;
    }
    const body = JSON.stringify(
      messageCreatedPayload(
        { id: message.room_id, name: message.room_name, workspace_id: message.room_workspace_id },
        message,
      ),
    );
    for (const hook of hooks) {
      const enabled = hook.state === 'enabled';
      owed.push({
        id: newId('webhookDelivery'),
        hook_id: hook.id,
        message_id: message.id,
        event: DELIVERY_EVENT,
        body,
        // A disabled hook is still owed the message: held until it is re-enabled.
        status: enabled ? 'pending' : 'held',
        next_attempt_at: enabled ? sql<Date>`now()` : null,
        // The message's own time (microseconds, read in SQL): the stream's order key.
        created_at: sql<Date>`(select created_at from messages where id = ${message.id})`,
      });
    }
    results.set(messageId, {
      kind: 'owed',
      enabledHookIds: hooks.filter((hook) => hook.state === 'enabled').map((hook) => hook.id),
    });
  }

  if (owed.length) {
    const insert = async (trx: Db): Promise<void> => {
      for (let from = 0; from < owed.length; from += INSERT_CHUNK) {
        await trx
          .insertInto('webhook_deliveries')
          .values(owed.slice(from, from + INSERT_CHUNK))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
    };
    // One chunk is one statement, atomic on its own; more need a transaction to stay one commit.
    if (owed.length <= INSERT_CHUNK) await insert(db);
    else await db.transaction().execute(insert);
  }
  return messageIds.map((id) => results.get(id) ?? { kind: 'skipped', reason: 'message_missing' });
}
