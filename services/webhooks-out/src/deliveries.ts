import { sql } from 'kysely';
import { newId, storable, truncate, type Logger, type SecretBox } from '@ferry/core';
import type { Db, OutgoingWebhook, WebhookDelivery } from '@ferry/db';
import { previousSecretLive } from '@ferry/workspace';
import type { WebhooksOutSettings } from './config.js';
import { messageCreatedPayload } from './payload.js';
import { nextRetryDelayMs, parseRetryAfter } from './schedule.js';
import { EXCERPT_BYTES, type SendResult } from '@ferry/http';
import type { SigningSecrets } from './signing.js';

/**
 * Deliveries as plain functions over Postgres. Postgres holds all delivery state (what is owed,
 * when it is due, who is sending it), so BullMQ jobs only say "look at this hook now" and may be
 * lost, duplicated or re-run without changing what is sent.
 *
 * ORDER. A hook's stream is its `message_created` deliveries that are `pending`, ordered by the
 * message's own `created_at` (copied onto the delivery when it is owed, so fan-out jobs finishing
 * out of order do not reorder it) and then id. Only the HEAD of that stream may be sent; a head
 * that fails stays the head, with its next try in the future, so it blocks later messages until it
 * succeeds or uses up its tries (then it is `failed` and the next one becomes the head). One hook
 * therefore receives messages in the order they were posted while it is healthy.
 *
 * SERIAL SENDS. Claiming the head is one UPDATE that moves its `next_attempt_at` forward by a lease
 * (longer than a send can take) and only matches a head that is due: concurrent drainers block on
 * the row lock, re-check, and see it is no longer due. A drainer killed mid-send leaves the lease to
 * expire, after which the head is due again and is re-sent with the same webhook-id (at-least-once;
 * receivers dedupe on webhook-id).
 */

export const DELIVERY_EVENT = 'message_created';
/** Deliveries made by 'Send test event': outside the stream, never retried on their own. */
export const TEST_EVENT = 'test';

export function leaseMs(settings: Pick<WebhooksOutSettings, 'timeoutMs'>): number {
  return settings.timeoutMs + 5_000;
}

const msInterval = (ms: number) => sql<Date>`now() + ${ms} * interval '1 millisecond'`;

/** Live signing secrets: the current one, and the previous one while its 24 h overlap lasts. */
export function signingSecrets(
  box: SecretBox,
  hook: Pick<
    OutgoingWebhook,
    'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_expires_at'
  >,
  now = new Date(),
): SigningSecrets {
  return {
    current: box.decrypt(hook.secret_sealed),
    previous: previousSecretLive(hook, now) ? box.decrypt(hook.previous_secret_sealed) : null,
  };
}

export type FanOutResult =
  | { kind: 'skipped'; reason: 'message_missing' | 'loop_guard' | 'no_hooks' }
  | { kind: 'owed'; enabledHookIds: string[] };

/**
 * A `message_created` event: the loop guard, then one delivery per hook of the room. Only messages
 * members wrote are sent; webhook, agent and system messages never are, so an incoming webhook fed
 * by an outgoing one cannot loop. The payload is built once and stored: every try of every hook
 * sends those exact bytes. Idempotent: a re-relayed event owes nothing twice (unique index).
 */
export async function oweMessage(db: Db, messageId: string): Promise<FanOutResult> {
  const message = await db
    .selectFrom('messages')
    .innerJoin('rooms', 'rooms.id', 'messages.room_id')
    .select([
      'messages.id',
      'messages.room_id',
      'messages.body',
      'messages.author_kind',
      'messages.author_member_id',
      'messages.author_ref',
      'messages.display_name',
      'messages.created_at',
      'rooms.name as room_name',
      'rooms.workspace_id as room_workspace_id',
    ])
    .where('messages.id', '=', messageId)
    .executeTakeFirst();
  if (!message) return { kind: 'skipped', reason: 'message_missing' };
  if (message.author_kind !== 'member') return { kind: 'skipped', reason: 'loop_guard' };
  const hooks = await db
    .selectFrom('outgoing_webhooks')
    .select(['id', 'state'])
    .where('room_id', '=', message.room_id)
    .execute();
  if (!hooks.length) return { kind: 'skipped', reason: 'no_hooks' };
  const body = JSON.stringify(
    messageCreatedPayload(
      { id: message.room_id, name: message.room_name, workspace_id: message.room_workspace_id },
      message,
    ),
  );
  await db
    .insertInto('webhook_deliveries')
    .values(
      hooks.map((hook) => ({
        id: newId('webhookDelivery'),
        hook_id: hook.id,
        message_id: message.id,
        event: DELIVERY_EVENT,
        body,
        // A disabled hook is still owed the message: held until it is re-enabled.
        status: hook.state === 'enabled' ? ('pending' as const) : ('held' as const),
        next_attempt_at: hook.state === 'enabled' ? sql<Date>`now()` : null,
        // The message's own time (microseconds, read in SQL): the stream's order key.
        created_at: sql<Date>`(select created_at from messages where id = ${message.id})`,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  return {
    kind: 'owed',
    enabledHookIds: hooks.filter((h) => h.state === 'enabled').map((h) => h.id),
  };
}

export type Claim =
  | { kind: 'claimed'; delivery: WebhookDelivery; hook: OutgoingWebhook }
  /** The head is not due yet (a retry later, or another drainer holds its lease). */
  | { kind: 'wait'; until: Date }
  /** Nothing owed, or the hook is disabled or gone. */
  | { kind: 'idle' };

/** Claims the hook's head delivery when it is due (see the ORDER and SERIAL SENDS notes above). */
export async function claimHead(db: Db, hookId: string, lease: number): Promise<Claim> {
  // A few rounds: losing the race to another drainer that finished the head makes a new head.
  for (let round = 0; round < 5; round++) {
    const hook = await db
      .selectFrom('outgoing_webhooks')
      .selectAll()
      .where('id', '=', hookId)
      .executeTakeFirst();
    if (!hook || hook.state !== 'enabled') return { kind: 'idle' };
    const head = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'next_attempt_at'])
      .where('hook_id', '=', hookId)
      .where('event', '=', DELIVERY_EVENT)
      .where('status', '=', 'pending')
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (!head) return { kind: 'idle' };
    if (await earlierMessageNotOwedYet(db, hook, head.id)) {
      return { kind: 'wait', until: new Date(Date.now() + GAP_RECHECK_MS) };
    }
    const claimed = await db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: msInterval(lease) })
      .where('id', '=', head.id)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', sql<Date>`now()`)
      .returningAll()
      .executeTakeFirst();
    if (claimed) return { kind: 'claimed', delivery: claimed, hook };
    const now = await db
      .selectFrom('webhook_deliveries')
      .select(['status', 'next_attempt_at', sql<Date>`now()`.as('db_now')])
      .where('id', '=', head.id)
      .executeTakeFirst();
    if (now?.status === 'pending' && now.next_attempt_at && now.next_attempt_at > now.db_now) {
      return { kind: 'wait', until: now.next_attempt_at };
    }
  }
  return { kind: 'idle' };
}

/** How far back a missing earlier delivery can hold the head (a lost fan-out job stops mattering). */
const GAP_WINDOW_MS = 5 * 60_000;
const GAP_RECHECK_MS = 500;

const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The smallest message id of that millisecond (ids are `msg_<10 chars of ms><16 random>`). */
function messageIdFloor(ms: number): string {
  let value = BigInt(Math.max(0, ms));
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ID_ALPHABET[Number(value & 31n)]! + out;
    value >>= 5n;
  }
  return `msg_${out}${'0'.repeat(16)}`;
}

/**
 * Fan-out jobs run concurrently, so a message posted just before the head may not have its
 * delivery row yet; sending the head now would overtake it. True while a member message of the
 * room, earlier than the head, newer than the hook and within the last few minutes, is not owed to
 * the hook yet. Its fan-out adds a drain job when it lands; the recheck is only a fallback.
 */
async function earlierMessageNotOwedYet(
  db: Db,
  hook: Pick<OutgoingWebhook, 'id' | 'room_id' | 'created_at'>,
  headId: string,
): Promise<boolean> {
  const head = await db
    .selectFrom('webhook_deliveries')
    .select('created_at')
    .where('id', '=', headId)
    .executeTakeFirst();
  if (!head) return false;
  const floor = Math.max(hook.created_at.getTime(), head.created_at.getTime() - GAP_WINDOW_MS);
  const gap = await db
    .selectFrom('messages as m')
    .select('m.id')
    .where('m.room_id', '=', hook.room_id)
    // The id bound keeps this on the (room_id, id) index (ids carry the app's clock, hence the
    // minute of slack for clock skew); created_at decides exactly.
    .where('m.id', '>=', messageIdFloor(floor - 60_000))
    .where('m.author_kind', '=', 'member')
    .where('m.created_at', '>', new Date(floor))
    .where(
      'm.created_at',
      '<',
      db.selectFrom('webhook_deliveries').select('created_at').where('id', '=', headId),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries as d')
            .select('d.id')
            .where('d.hook_id', '=', hook.id)
            // Matches the partial unique index (hook_id, message_id) where event = message_created:
            // without the event predicate Postgres cannot use it and scans per message.
            .where('d.event', '=', DELIVERY_EVENT)
            .whereRef('d.message_id', '=', 'm.id'),
        ),
      ),
    )
    .limit(1)
    .executeTakeFirst();
  return gap !== undefined;
}

export interface RecordedAttempt {
  /** The hook was disabled by this attempt (20 in a row, or 410 Gone). */
  disabled: boolean;
  /** When this delivery is tried again, if it is. */
  retryAt: Date | null;
}

export interface RecordOptions {
  /** 'scheduled': a try of the stream's head. 'manual': Send again / test event, outside it. */
  mode: 'scheduled' | 'manual';
  settings: Pick<
    WebhooksOutSettings,
    'retryScheduleMs' | 'throttleMinDelayMs' | 'disableAfterFailures'
  >;
  random?: () => number;
  /** Where a failed first write of the attempt is reported. */
  logger?: Logger;
}

/**
 * The attempt's log row and its consequences, in one transaction: a 2xx marks the delivery
 * succeeded and resets the hook's consecutive failures; a failure adds one, disables the hook at
 * the limit or on 410 Gone (its owed deliveries become held), and schedules the next try of a
 * scheduled delivery or marks it failed when its tries are used up.
 */
export async function recordAttempt(
  db: Db,
  delivery: Pick<WebhookDelivery, 'id' | 'hook_id' | 'event' | 'attempts'>,
  result: SendResult,
  options: RecordOptions,
): Promise<RecordedAttempt> {
  // Whatever a receiver answers, its bytes must not be able to fail this write: an attempt that
  // cannot be recorded would be sent again and again, never counted, and block the hook's stream.
  const clean: SendResult = {
    ...result,
    excerpt: result.excerpt === null ? null : storable(truncate(result.excerpt, EXCERPT_BYTES)),
    error: result.error === null ? null : storable(truncate(result.error, ERROR_MAX)),
  };
  try {
    return await writeAttempt(db, delivery, clean, options);
  } catch (err) {
    // Still the attempt counts: record it without the receiver's text. If this fails too (the
    // database is down), the job fails and the send is retried once the lease expires.
    options.logger?.warn(
      { err, deliveryId: delivery.id },
      'recording an attempt failed; without its answer',
    );
    return writeAttempt(
      db,
      delivery,
      {
        ...clean,
        excerpt: null,
        error: clean.ok ? null : `HTTP ${clean.statusCode ?? 'error'} (answer not stored)`,
      },
      options,
    );
  }
}

/** Longest stored error text (a connection error's message). */
const ERROR_MAX = 500;

async function writeAttempt(
  db: Db,
  delivery: Pick<WebhookDelivery, 'id' | 'hook_id' | 'event' | 'attempts'>,
  result: SendResult,
  options: RecordOptions,
): Promise<RecordedAttempt> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values({
        id: newId('webhookAttempt'),
        delivery_id: delivery.id,
        status_code: result.statusCode,
        duration_ms: result.durationMs,
        response_excerpt: result.excerpt,
        error: result.error,
      })
      .execute();
    const attempts = options.mode === 'scheduled' ? delivery.attempts + 1 : delivery.attempts;
    if (result.ok) {
      await trx
        .updateTable('webhook_deliveries')
        .set({
          status: 'succeeded',
          attempts,
          last_status_code: result.statusCode,
          delivered_at: sql<Date>`now()`,
          next_attempt_at: null,
        })
        .where('id', '=', delivery.id)
        .execute();
      await trx
        .updateTable('outgoing_webhooks')
        .set({ consecutive_failures: 0 })
        .where('id', '=', delivery.hook_id)
        .where('consecutive_failures', '<>', 0)
        .execute();
      return { disabled: false, retryAt: null };
    }

    const hook = await trx
      .updateTable('outgoing_webhooks')
      .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1) }))
      .where('id', '=', delivery.hook_id)
      .returning(['state', 'consecutive_failures'])
      .executeTakeFirst();
    const gone = result.statusCode === 410;
    const limit = (hook?.consecutive_failures ?? 0) >= options.settings.disableAfterFailures;
    const disableNow = hook?.state === 'enabled' && (gone || limit);
    if (disableNow) {
      await trx
        .updateTable('outgoing_webhooks')
        .set({
          state: 'disabled',
          disabled_reason: gone
            ? 'The endpoint answered 410 Gone.'
            : `${options.settings.disableAfterFailures} consecutive delivery failures.`,
          updated_at: sql<Date>`now()`,
        })
        .where('id', '=', delivery.hook_id)
        .execute();
      // Owed, not dropped: held until the owner re-enables the hook.
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'held', next_attempt_at: null })
        .where('hook_id', '=', delivery.hook_id)
        .where('status', '=', 'pending')
        .where('event', '=', DELIVERY_EVENT)
        .execute();
    }
    const hookDisabled = disableNow || hook?.state === 'disabled';

    if (options.mode === 'manual') {
      // A test event has no stream to go back to; a re-sent delivery keeps its own status.
      await trx
        .updateTable('webhook_deliveries')
        .set({
          last_status_code: result.statusCode,
          ...(delivery.event === TEST_EVENT ? { status: 'failed' as const } : {}),
        })
        .where('id', '=', delivery.id)
        .execute();
      return { disabled: disableNow, retryAt: null };
    }

    const delay = nextRetryDelayMs(
      {
        attempts,
        statusCode: result.statusCode,
        timedOut: result.timedOut,
        retryAfterMs: parseRetryAfter(result.retryAfter),
      },
      options.settings.retryScheduleMs,
      options.settings.throttleMinDelayMs,
      options.random,
    );
    const base = { attempts, last_status_code: result.statusCode };
    if (hookDisabled) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ ...base, status: 'held', next_attempt_at: null })
        .where('id', '=', delivery.id)
        .execute();
      return { disabled: disableNow, retryAt: null };
    }
    if (delay === null) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ ...base, status: 'failed', next_attempt_at: null })
        .where('id', '=', delivery.id)
        .execute();
      return { disabled: false, retryAt: null };
    }
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({ ...base, status: 'pending', next_attempt_at: msInterval(delay) })
      .where('id', '=', delivery.id)
      .returning('next_attempt_at')
      .executeTakeFirst();
    return { disabled: false, retryAt: updated?.next_attempt_at ?? null };
  });
}

/** Hooks with a due delivery: what the sweep hands to drain jobs. */
export async function hooksWithDueDeliveries(db: Db, limit = 1_000): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('hook_id')
    .distinct()
    .where('status', '=', 'pending')
    .where('event', '=', DELIVERY_EVENT)
    .where('next_attempt_at', '<=', sql<Date>`now()`)
    .limit(limit)
    .execute();
  return rows.map((row) => row.hook_id);
}
