import { sql } from 'kysely';
import { newId, type Logger } from '@ferry/core';
import type { Db, WebhookDelivery } from '@ferry/db';
import type { SendResult } from '@ferry/http';
import { resetFailures, storableResult } from './deliveries.js';

/**
 * Recording runs: what the runs of many hooks leave behind, in one statement (one commit). The
 * failure that may have ended a run is recorded after this with recordAttempt (deliveries.ts), so
 * its count starts from the reset.
 */

/** One delivery of a run that its receiver accepted (2xx). */
export interface RunSuccess {
  delivery: Pick<WebhookDelivery, 'id' | 'created_at'>;
  result: SendResult;
  /** performance.now() when the answer was in: the attempt is logged at that time. */
  answeredAt: number;
}

/** What a run leaves behind, apart from the failure that may have ended it. */
export interface RunOutcome {
  hookId: string;
  successes: readonly RunSuccess[];
  /**
   * Leased and not sent (behind a failure, past the lease's budget, the process stopping): released,
   * due again behind whatever is the head now.
   */
  unsentIds: readonly string[];
}

/**
 * The outcomes of many runs in one statement: one multi-row INSERT of attempts, one UPDATE of the
 * succeeded deliveries, one reset of those hooks' consecutive failures, one release of the unsent.
 * Each attempt keeps its own time (the database's now, less how long ago its answer came), so a
 * hook's log stays in send order.
 */
export async function recordRuns(
  db: Db,
  outcomes: readonly RunOutcome[],
  logger: Logger | undefined,
): Promise<void> {
  const successes = outcomes.flatMap((outcome) => outcome.successes);
  const resetHookIds = outcomes
    .filter((outcome) => outcome.successes.length)
    .map((outcome) => outcome.hookId);
  const unsentIds = outcomes.flatMap((outcome) => outcome.unsentIds);
  const write = (withAnswers: boolean) => {
    const now = performance.now();
    const results = successes.map(({ result }) => storableResult(result));
    const deliveryIds = successes.map(({ delivery }) => delivery.id);
    const statusCodes = results.map((result) => result.statusCode);
    // The commit does not wait for the WAL flush (synchronous_commit off for this one
    // transaction, set inside the statement: no extra round trip). Losing it to a Postgres crash
    // leaves its deliveries leased and unrecorded, so they are sent again with the same
    // webhook-ids once the lease expires: what a drainer killed before recording causes, which
    // receivers already dedupe. What it saves is a WAL flush per run, which at a steady rate of
    // posts is one of three on every message's way (post, owe, record) and queues behind the others.
    return sql`
      with async_commit as (
        select set_config('synchronous_commit', 'off', true) as setting
      ), attempt as (
        insert into webhook_attempts
          (id, delivery_id, attempted_at, status_code, duration_ms, response_excerpt)
        select a.id, a.delivery_id, now() - a.age_ms * interval '1 millisecond', a.status_code,
          a.duration_ms, a.excerpt
        from async_commit, unnest(
          ${successes.map(() => newId('webhookAttempt'))}::text[],
          ${deliveryIds}::text[],
          ${successes.map(({ answeredAt }) => Math.max(0, now - answeredAt))}::float8[],
          ${statusCodes}::int[],
          ${results.map((result) => result.durationMs)}::int[],
          ${results.map((result) => (withAnswers ? result.excerpt : null))}::text[]
        ) as a(id, delivery_id, age_ms, status_code, duration_ms, excerpt)
      ), succeeded as (
        update webhook_deliveries d
        set status = 'succeeded', attempts = d.attempts + 1, last_status_code = s.status_code,
          delivered_at = now(), next_attempt_at = null
        from unnest(${deliveryIds}::text[], ${statusCodes}::int[]) as s(id, status_code)
        where d.id = s.id
      ), reset as (${resetFailures(resetHookIds)})
      update webhook_deliveries set next_attempt_at = now()
      where id = any(${unsentIds}::text[]) and status = 'pending'
    `.execute(db);
  };
  try {
    await write(true);
  } catch (err) {
    // As recordAttempt: the sends count even if an answer's text cannot be stored. If this fails
    // too (the database is down), the leases expire and the runs are sent again.
    logger?.warn({ err, runs: outcomes.length }, 'recording runs failed; without their answers');
    await write(false);
  }
}
