import { sql, type CompiledQuery, type Kysely } from 'kysely';
import { newId, type Logger } from '@ferry/core';
import type { Database, Db } from '@ferry/db';
import { InvalidPayloadError, mergeRelayBatches, type BulkJob } from './catalog.js';
import {
  eventTypes,
  isEventType,
  jobsForEvent,
  parseEvent,
  type EventInput,
  type EventPayload,
  type EventType,
} from './events.js';
import type { Producer } from './producer.js';

/**
 * Transactional outbox. A domain event is a row written in the same transaction as the change that
 * caused it, so it exists exactly when the change does. The relay moves rows to BullMQ and marks
 * them sent; Postgres is its only state, so it survives restarts and several can run at once.
 *
 * Guarantee: at-least-once. Jobs are added before the rows are marked, in the transaction that
 * holds their row locks; a crash between the two leaves the rows unsent and they are relayed
 * again. The re-add reuses jobId = event id, which BullMQ ignores while that job still exists
 * (waiting, active, or kept after completion), so in practice a crash causes no duplicate; once a
 * finished job has been removed a re-add does create a second one, so consumers dedupe on eventId.
 */

/**
 * Writes one event in the caller's transaction (or as its own statement when given the plain db).
 * Validates the payload against the event catalog first; returns the event id.
 */
export async function writeEvent<E extends EventType>(
  db: Kysely<Database>,
  type: E,
  payload: EventInput<E>,
): Promise<string> {
  const event = parseEvent(type, payload);
  const id = newId('outbox');
  await db
    .insertInto('outbox')
    .values({ id, type, payload: JSON.stringify(event) })
    .execute();
  return id;
}

/** One event for writeEvents: its type and a payload that type's schema accepts. */
export type OutboxEvent = { [E in EventType]: { type: E; payload: EventInput<E> } }[EventType];

/**
 * writeEvent for many events (of any types) in one INSERT: each payload is validated against the
 * event catalog before anything is written, so an invalid one writes none. Rows get their `seq`
 * in the given order; returns the event ids in that order.
 */
export async function writeEvents(
  db: Kysely<Database>,
  events: readonly OutboxEvent[],
): Promise<string[]> {
  const rows = outboxRows(events);
  if (rows.length) await db.insertInto('outbox').values(rows).execute();
  return rows.map((row) => row.id);
}

/** An outbox seq as SQL text: a bigint Postgres gave us, checked before it is written into SQL. */
function seqLiteral(row: { seq: string | number | bigint }): string {
  const text = String(row.seq);
  if (!/^[0-9]{1,19}$/.test(text)) throw new Error(`not an outbox seq: ${text}`);
  return text;
}

/**
 * The outbox rows of `events`, each payload validated against the event catalog (throws on the
 * first invalid one), for a caller that inserts them in a statement of its own: as a
 * data-modifying CTE beside the change they describe, one round trip instead of two
 * (postMessages).
 */
export function outboxRows(
  events: readonly OutboxEvent[],
): { id: string; type: EventType; payload: string }[] {
  return events.map(({ type, payload }) => ({
    id: newId('outbox'),
    type,
    payload: JSON.stringify(parseEvent(type, payload)),
  }));
}

export interface OutboxRelayOptions {
  db: Db;
  producer: Producer;
  logger: Logger;
  /** Wait between polls when the outbox is empty. */
  pollMs?: number;
  /** Rows per transaction. */
  batchSize?: number;
  /**
   * After a batch that was not full, how long to let more commits gather before the next: a wake
   * after a quiet spell relays at once, but under load each batch relays several commits' rows
   * instead of one (issue 48: at 1,500 incoming posts/s the relay otherwise
   * ran once per group commit, and its statements doubled Postgres' CPU per post).
   */
  gatherMs?: number;
  /** Longest wait between attempts while Postgres or Redis is failing. */
  maxBackoffMs?: number;
  /** A batch whose jobs are not in Redis by then is rolled back and retried (Redis hung). */
  enqueueTimeoutMs?: number;
  /** How often to prune old sent rows and report rows of unknown types. */
  maintenanceEveryMs?: number;
  /** Sent rows older than this are deleted. */
  retentionDays?: number;
  /**
   * Called after each batch commits with the events it relayed (payloads parsed): what every
   * process must hear about every committed event of a type, whoever wrote it (the live announce of
   * stored messages). Runs once per batch, after the rows are marked sent; it must not throw and
   * must not wait on anything slow (it is not retried: the events are already relayed).
   */
  onRelayed?: (events: readonly RelayedEvent[]) => void;
  /**
   * The loop found nothing more and goes to sleep until its next poll or a nudge: the moment from
   * which only a nudge (a commit's notification) makes it look again before `pollMs` (tests wait
   * for it instead of guessing how long a drain takes).
   */
  onSleep?: () => void;
}

/** One relayed outbox event, typed by its catalog entry. */
export type RelayedEvent = {
  [E in EventType]: { id: string; type: E; payload: EventPayload<E> };
}[EventType];

export interface OutboxRelay {
  /** Starts the loop (startOutboxRelay does this for you). */
  start(): void;
  /** Stops after the current batch commits or rolls back. */
  stop(): Promise<void>;
  /** Relays one batch now; resolves with the number of rows it settled. */
  drainOnce(): Promise<number>;
  /** New rows were committed (a Postgres notification): look now instead of after the poll. */
  nudge(): void;
  /** Deletes old sent rows and logs unsent rows of unknown types; returns rows deleted. */
  maintain(): Promise<number>;
}

interface OutboxBatchRow {
  seq: string;
  id: string;
  type: string;
  payload: unknown;
}

/**
 * Test-only fault injection for the kill test: with NODE_ENV=test and
 * FERRY_OUTBOX_CRASH_AFTER_ENQUEUE=N, the process SIGKILLs itself after the Nth batch's jobs are in
 * Redis and before its rows are marked sent: the exact window the outbox has to survive.
 */
function crashHook(): () => Promise<void> {
  const after = Number(process.env.FERRY_OUTBOX_CRASH_AFTER_ENQUEUE ?? 0);
  if (process.env.NODE_ENV !== 'test' || !(after > 0)) return () => Promise.resolve();
  let batches = 0;
  return async () => {
    if (++batches < after) return;
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => undefined); // nothing else runs while the signal lands
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { db, producer, logger } = options;
  const pollMs = options.pollMs ?? 200;
  const gatherMs = options.gatherMs ?? 0;
  const batchSize = options.batchSize ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const enqueueTimeoutMs = options.enqueueTimeoutMs ?? 10_000;
  const maintenanceEveryMs = options.maintenanceEveryMs ?? 60_000;
  const retentionDays = options.retentionDays ?? 7;
  const afterEnqueue = crashHook();

  // Only types this build knows: a row of a newer type (written by a newer deploy) is left for a
  // relay that knows it instead of being dropped or blocking the head of the outbox. Built and
  // compiled once: it runs on every wake (issue 48).
  const selectBatch: CompiledQuery<OutboxBatchRow> = db
    .selectFrom('outbox')
    .select(['seq', 'id', 'type', 'payload'])
    .where('sent_at', 'is', null)
    .where('type', 'in', eventTypes)
    .orderBy('seq')
    .limit(batchSize)
    .forUpdate()
    .skipLocked()
    .compile();

  /**
   * In the transaction drainOnce began: takes a batch of unsent rows, enqueues their jobs, marks
   * them sent and commits (the mark and COMMIT in one round trip). Returns how many rows it took;
   * with none it leaves the commit to the caller.
   */
  async function relayBatch(trx: Kysely<Database>, relayed: RelayedEvent[]): Promise<number> {
    const { rows } = await trx.executeQuery(selectBatch);
    if (rows.length === 0) return 0;

    const jobs: BulkJob[] = [];
    for (const row of rows) {
      if (!isEventType(row.type)) continue; // the query already excluded these
      try {
        jobs.push(...jobsForEvent(row.type, row.payload, row.id));
        if (options.onRelayed) {
          relayed.push({
            id: row.id,
            type: row.type,
            payload: parseEvent(row.type, row.payload),
          } as RelayedEvent);
        }
      } catch (error) {
        if (!(error instanceof InvalidPayloadError)) throw error;
        // A known type whose payload fails its schema can't succeed on any retry by this build.
        // It is marked sent with nothing enqueued (so it never blocks the outbox) and logged at
        // error level with its id: fix the data or the schema, then set sent_at = null to relay
        // it again. It is pruned with other sent rows after `retentionDays`.
        logger.error(
          { eventId: row.id, seq: row.seq, type: row.type, problem: error.message },
          'outbox event set aside: invalid payload, nothing enqueued',
        );
      }
    }
    if (jobs.length) {
      // A hung Redis must not hold these row locks forever. An add that lands after we gave up
      // only creates jobs the retry adds anyway, under the same job ids.
      await withTimeout(
        producer.addBulk(mergeRelayBatches(jobs)),
        enqueueTimeoutMs,
        'adding outbox jobs',
      );
    }
    await afterEnqueue();
    await sql
      .raw(
        `update outbox set sent_at = now() where seq in (${rows.map(seqLiteral).join(', ')}); commit`,
      )
      .execute(trx);
    return rows.length;
  }

  async function drainOnce(): Promise<number> {
    const relayed: RelayedEvent[] = [];
    // One transaction in three round trips (issue 48: every statement is a socket write on both
    // sides, a few per wake): BEGIN goes with the settings, COMMIT with the mark, as
    // multi-statement text (node-postgres sends text without parameters as a simple query).
    const settled = await db.connection().execute(async (trx) => {
      // Two settings for this transaction:
      // - Relayed rows stay in the unsent index until vacuum. A plain index scan marks their
      //   entries dead as it passes them, so later scans skip them; the bitmap scan Postgres picks
      //   otherwise re-reads every relayed row's page on every wake (measured: 20,000 relayed rows
      //   made each relay select 0.6 ms instead of 0.09 ms, a fifth of a core at 200 wakes/s).
      // - The mark need not wait for the WAL flush: losing it to a Postgres crash only relays the
      //   rows again, exactly as a relay killed between enqueue and mark does (jobs carry the
      //   event id as their id; consumers are idempotent). One fewer durable commit per wake
      //   leaves the WAL to the writes that must be durable.
      // Inside the try: should the settings fail after BEGIN, the rollback below must still end
      // the transaction, or the connection would go back to the pool inside an aborted one.
      try {
        await sql
          .raw(
            `begin; select set_config('enable_bitmapscan', 'off', true),
              set_config('synchronous_commit', 'off', true)`,
          )
          .execute(trx);
        const count = await relayBatch(trx, relayed);
        if (count === 0) await sql.raw('commit').execute(trx);
        return count;
      } catch (error) {
        await sql
          .raw('rollback')
          .execute(trx)
          .catch(() => undefined);
        throw error;
      }
    });
    if (relayed.length && options.onRelayed) {
      try {
        options.onRelayed(relayed);
      } catch (err) {
        logger.warn({ err }, 'outbox onRelayed hook failed');
      }
    }
    return settled;
  }

  async function maintain(): Promise<number> {
    // Walk the oldest sent rows by primary key (cheap, no index on sent_at needed) and delete those
    // past retention; a few rounds per call keeps each statement short.
    let deleted = 0;
    for (let round = 0; round < 10; round++) {
      const result = await db
        .deleteFrom('outbox')
        .where('seq', 'in', (eb) =>
          eb
            .selectFrom('outbox')
            .select('seq')
            .where('sent_at', 'is not', null)
            .orderBy('seq')
            .limit(1_000),
        )
        .where('sent_at', '<', sql<Date>`now() - make_interval(days => ${retentionDays})`)
        .executeTakeFirst();
      const count = Number(result.numDeletedRows);
      deleted += count;
      if (count < 1_000) break;
    }
    const unknown = await db
      .selectFrom('outbox')
      .select(['type', (eb) => eb.fn.countAll<string>().as('count')])
      .where('sent_at', 'is', null)
      .where('type', 'not in', eventTypes)
      .groupBy('type')
      .execute();
    for (const { type, count } of unknown) {
      logger.warn(
        { type, count: Number(count) },
        'unsent outbox events of a type this build does not know (written by a newer version?)',
      );
    }
    return deleted;
  }

  let running: Promise<void> | undefined;
  let stopping = false;
  let wakeUp: (() => void) | undefined;
  /** A nudge came while a batch was being relayed: go again without pausing. */
  let nudged = false;

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  async function loop(): Promise<void> {
    let failures = 0;
    let nextMaintenance = 0;
    while (!stopping) {
      let settled = 0;
      try {
        settled = await drainOnce();
        if (failures) logger.info({ failures }, 'outbox relay recovered');
        failures = 0;
      } catch (err) {
        failures++;
        // Exponential with jitter so several relays don't hammer a recovering store in step.
        const delay = Math.min(maxBackoffMs, pollMs * 2 ** failures) * (0.5 + Math.random() / 2);
        logger.error({ err, failures, retryInMs: Math.round(delay) }, 'outbox relay failed');
        await pause(delay);
        continue;
      }
      if (Date.now() >= nextMaintenance) {
        nextMaintenance = Date.now() + maintenanceEveryMs;
        try {
          const deleted = await maintain();
          if (deleted) logger.debug({ deleted }, 'pruned sent outbox events');
        } catch (err) {
          logger.warn({ err }, 'outbox maintenance failed');
        }
      }
      // A full batch means more are probably waiting: go again at once; so does a nudge that came
      // while this batch was being relayed (its rows may have committed after our SELECT).
      // At most one batch per gatherMs unless batches are full: commits nudging meanwhile wait
      // together for the next (not pause(): a nudge must not cut the gathering short).
      if (gatherMs > 0 && settled < batchSize && !stopping) {
        await new Promise((resolve) => setTimeout(resolve, gatherMs));
      }
      if (nudged) {
        nudged = false;
        continue;
      }
      if (settled < batchSize && !stopping) {
        options.onSleep?.();
        await pause(pollMs);
      }
    }
  }

  return {
    start() {
      if (running) return;
      stopping = false;
      running = loop();
    },
    async stop() {
      stopping = true;
      wakeUp?.();
      await running;
      running = undefined;
    },
    drainOnce,
    maintain,
    nudge() {
      if (wakeUp) wakeUp();
      else nudged = true;
    },
  };
}

/** createOutboxRelay + start. */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const relay = createOutboxRelay(options);
  relay.start();
  return relay;
}
