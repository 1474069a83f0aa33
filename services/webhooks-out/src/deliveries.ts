import { sql } from 'kysely';
import { newId, storable, truncate, type Logger, type SecretBox } from '@ferry/core';
import type { Db, OutgoingWebhook, WebhookDelivery } from '@ferry/db';
import { holdPendingDeliveries, inStream, previousSecretLive, TEST_EVENT } from '@ferry/workspace';
import type { WebhooksOutSettings } from './config.js';
import { nextRetryDelayMs, parseRetryAfter } from './schedule.js';
import { EXCERPT_BYTES, type SendResult } from '@ferry/http';
import type { SigningSecrets } from './signing.js';

/**
 * Deliveries as plain functions over Postgres. Postgres holds all delivery state (what is owed,
 * when it is due, who is sending it), so BullMQ jobs and in-process wake-ups only say "look at this
 * hook now" and may be lost, duplicated or re-run without changing what is sent.
 *
 * ORDER. A hook's stream is its deliveries that are `pending` (every event but a test: a room's
 * `message_created`, the alert rule's `error_group.*`), ordered by the message's (or alert's) own `created_at` (copied onto the delivery when it is owed, so fan-outs finishing out
 * of order do not reorder it) and then id. Only the HEAD of that stream may be sent first; a head
 * that fails stays the head, with its next try in the future, so it blocks later messages until it
 * succeeds or uses up its tries (then it is `failed` and the next one becomes the head). One hook
 * therefore receives messages in the order they were posted while it is healthy.
 *
 * RUNS AND SERIAL SENDS (claims.ts, records.ts, jobs/drain-hook.ts). A drainer claims a RUN: the
 * head and the deliveries right behind it, up to WEBHOOK_RUN_SIZE, all due and contiguous in
 * stream order, by moving their `next_attempt_at` forward by a lease. The claim only succeeds if
 * the head itself is due when its row is locked, so concurrent drainers serialise on the head's
 * row lock, re-check, and see it is no longer due: a head that is not due (a retry later, or
 * leased by another drainer) means nothing is claimed, and runs never interleave. The run is sent
 * one delivery after another, in order, and a send only starts if it can end, at its timeout,
 * inside the lease. The first failure ends the run: that delivery is recorded as a single attempt
 * (retry, disable, 410) and the unsent rest is released, pending behind it; the successes before
 * it are recorded together in one statement. A drainer killed mid-run leaves the leases to expire,
 * after which the run is due again and re-sent from its head with the same webhook-ids
 * (at-least-once; receivers dedupe on webhook-id). A process drains each hook at most once at a
 * time (drains.ts), and the claims and records of all its hooks of the moment share statements.
 */

/** Deliveries made by 'Send test event': outside the stream, never retried on their own. */
export { TEST_EVENT };

/**
 * A run's lease: one send at its full timeout and time to record it (a run sends on only while
 * another full send would still fit, jobs/drain-hook.ts).
 */
export function leaseMs(settings: Pick<WebhooksOutSettings, 'timeoutMs'>): number {
  return settings.timeoutMs + 5_000;
}

/** `now()` plus `ms` on the database's clock, the one every lease and retry is compared with. */
export const msInterval = (ms: number) => sql<Date>`now() + ${ms} * interval '1 millisecond'`;

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
  const clean = storableResult(result);
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

/**
 * A 2xx resets its hook's consecutive failures (SPEC.md: 20 consecutive failures disable a hook).
 * The one statement for it, used by a single attempt (recordAttempt) and inside the statement that
 * records many runs' successes (records.ts recordRuns), so both count the same way. Hooks already
 * at 0 are left alone: no row version written on every success of a healthy hook.
 */
export function resetFailures(hookIds: readonly string[]) {
  return sql`
    update outgoing_webhooks set consecutive_failures = 0
    where id = any(${hookIds}::text[]) and consecutive_failures <> 0`;
}

/** Longest stored error text (a connection error's message). */
const ERROR_MAX = 500;

/**
 * Whatever a receiver answers, its bytes must not be able to fail the attempt's write: an attempt
 * that cannot be recorded would be sent again and again, never counted, and block the hook's
 * stream. So the answer is cut to what is logged and made storable (no NUL, no lone surrogate).
 */
export function storableResult(result: SendResult): SendResult {
  return {
    ...result,
    excerpt: result.excerpt === null ? null : storable(truncate(result.excerpt, EXCERPT_BYTES)),
    error: result.error === null ? null : storable(truncate(result.error, ERROR_MAX)),
  };
}

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
      await resetFailures([delivery.hook_id]).execute(trx);
      return { disabled: false, retryAt: null };
    }

    // Counted while the hook is enabled: a disabled hook's counter stays at the failures that
    // disabled it (a test event sent to it afterwards must not make 20 read 21).
    const hook = await trx
      .updateTable('outgoing_webhooks')
      .set({
        consecutive_failures: sql<number>`case when state = 'enabled' then consecutive_failures + 1 else consecutive_failures end`,
      })
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
      await holdPendingDeliveries(trx, delivery.hook_id);
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
    .where(inStream('event'))
    .where('next_attempt_at', '<=', sql<Date>`now()`)
    .limit(limit)
    .execute();
  return rows.map((row) => row.hook_id);
}
