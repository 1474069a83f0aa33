import { sql } from 'kysely';
import type { Db, OutgoingWebhook, WebhookDelivery } from '@ferry/db';
import { inStream, MESSAGE_CREATED } from '@ferry/workspace';
import { msInterval } from './deliveries.js';

/**
 * Claiming runs (see RUNS AND SERIAL SENDS in deliveries.ts for the rules kept here) for many
 * hooks at once: whatever hooks ask at the same moment are claimed together in three statements
 * (read the heads of their streams, check them, lease them), however many hooks that is.
 */

/** What sending to a hook needs of it. */
export type SendableHook = Pick<
  OutgoingWebhook,
  | 'id'
  | 'target_url'
  | 'secret_sealed'
  | 'previous_secret_sealed'
  | 'previous_secret_expires_at'
  | 'max_per_second'
>;

export type RunClaim =
  | {
      kind: 'claimed';
      hook: SendableHook;
      run: WebhookDelivery[];
      /**
       * The run is everything the hook was owed when it was read: once it is sent, only a new
       * delivery (whose fan-out wakes the drain) can give the hook more, so no claim is needed
       * to find out that nothing is left.
       */
      wholeStream: boolean;
    }
  /**
   * The head is not due yet (a retry later, another drainer holds its lease, or an earlier message
   * is not owed yet). `until` is on the database's clock; `delayMs` is how long from now.
   */
  | { kind: 'wait'; until: Date; delayMs: number }
  /** Nothing owed, or the hook is disabled or gone. */
  | { kind: 'idle' }
  /** The stream changed under the claim (another drainer, a late fan-out): claim again. */
  | { kind: 'retry' };

export interface ClaimOptions {
  /** The most deliveries one run takes. */
  runSize: number;
  leaseMs: number;
  /** Where each hook's gap search may start (sent-positions.ts); the full window without it. */
  sentThrough?: (hookId: string) => Date | undefined;
}

/** A run as read, before it is checked and leased. */
interface Candidate {
  id: string;
  created_at: Date;
  next_attempt_at: Date | null;
  due: boolean;
}

interface StreamHead {
  hook: OutgoingWebhook;
  /** The first pending deliveries in stream order. */
  candidates: Candidate[];
  dbNow: Date;
}

/**
 * Claims a run for each hook: the head of its stream and the deliveries behind it while they are
 * due, up to `runSize`, cut before any message that is earlier than one of them and not owed to
 * the hook yet. One result per hook id, in order.
 */
export async function claimRuns(
  db: Db,
  hookIds: readonly string[],
  options: ClaimOptions,
): Promise<RunClaim[]> {
  const results = new Map<string, RunClaim>();
  const heads = await readStreamHeads(db, [...new Set(hookIds)], options.runSize);

  const toCheck: { head: StreamHead; run: Candidate[] }[] = [];
  for (const hookId of new Set(hookIds)) {
    const head = heads.get(hookId);
    const first = head?.candidates[0];
    if (!head || !first) results.set(hookId, { kind: 'idle' });
    else if (!first.due) results.set(hookId, waitUntil(first.next_attempt_at, head.dbNow));
    else toCheck.push({ head, run: takeWhile(head.candidates, (c) => c.due) });
  }

  const checks = await checkRuns(db, toCheck, options.sentThrough);
  const toLease: { head: StreamHead; run: Candidate[] }[] = [];
  for (const { head, run } of toCheck) {
    const check = checks.get(head.hook.id);
    // A delivery owed for an earlier message between the read and the check: the read missed it
    // and the check found it owed, so neither would stop the run overtaking it. Read again.
    if (!check || !run.every((candidate, i) => check.streamIds[i] === candidate.id)) {
      results.set(head.hook.id, { kind: 'retry' });
      continue;
    }
    const { gapAt } = check;
    // Dates here are milliseconds, the database's microseconds: a delivery in the same
    // millisecond as the missing message waits too, which only costs it a recheck.
    const uncut = gapAt ? takeWhile(run, (candidate) => candidate.created_at < gapAt) : run;
    if (!uncut.length) {
      results.set(
        head.hook.id,
        waitUntil(new Date(head.dbNow.getTime() + GAP_RECHECK_MS), head.dbNow),
      );
    } else {
      toLease.push({ head, run: uncut });
    }
  }

  const leased = await leaseRuns(
    db,
    toLease.map(({ run }) => run.map((candidate) => candidate.id)),
    options.leaseMs,
  );
  const notContiguous: string[] = [];
  toLease.forEach(({ head, run }, index) => {
    const byId = new Map((leased[index] ?? []).map((delivery) => [delivery.id, delivery]));
    const claimed = takeWhile(
      run.map((candidate) => byId.get(candidate.id)),
      (delivery) => delivery !== undefined,
    ).filter((delivery) => delivery !== undefined);
    // A row behind the head changed between the read and the lease (held by a disable, say):
    // only the part before it is contiguous, the rest goes back.
    const kept = new Set(claimed.map((delivery) => delivery.id));
    for (const id of byId.keys()) if (!kept.has(id)) notContiguous.push(id);
    const wholeStream =
      head.candidates.length < options.runSize && claimed.length === head.candidates.length;
    results.set(
      head.hook.id,
      claimed.length
        ? { kind: 'claimed', hook: head.hook, run: claimed, wholeStream }
        : { kind: 'retry' },
    );
  });
  await releaseLeases(db, notContiguous);
  // A process drains a hook once at a time, so a hook is asked for once per group; were it asked
  // twice, only one asker may have the run.
  const answered = new Set<string>();
  return hookIds.map((hookId) => {
    if (answered.has(hookId)) return { kind: 'idle' };
    answered.add(hookId);
    return results.get(hookId) ?? { kind: 'idle' };
  });
}

function takeWhile<T>(items: readonly T[], keep: (item: T) => boolean): T[] {
  const end = items.findIndex((item) => !keep(item));
  return end === -1 ? [...items] : items.slice(0, end);
}

function waitUntil(until: Date | null, dbNow: Date): RunClaim {
  const at = until ?? dbNow;
  return { kind: 'wait', until: at, delayMs: Math.max(0, at.getTime() - dbNow.getTime()) };
}

/** A candidate as the stream-head read sends it: [id, created_at, next_attempt_at, due]. */
type CandidateJson = [string, string, string | null, boolean];

/**
 * The enabled hooks among `hookIds` and the first `limit` deliveries of each one's stream. One row
 * per hook, its candidates as one JSON array: a row per candidate repeated the hook's fifteen
 * columns for each of up to WEBHOOK_RUN_SIZE candidates, each decoded by node-postgres (issue 48:
 * node-postgres was 17.5 % of the app's main thread sending a backlog, 13.8 % after this).
 */
async function readStreamHeads(
  db: Db,
  hookIds: readonly string[],
  limit: number,
): Promise<Map<string, StreamHead>> {
  const heads = new Map<string, StreamHead>();
  if (!hookIds.length) return heads;
  const { rows } = await sql<OutgoingWebhook & { db_now: Date; candidates: CandidateJson[] }>`
    select h.*, now() as db_now,
      coalesce((
        select json_agg(
          json_build_array(c.id, c.created_at, c.next_attempt_at, c.next_attempt_at <= now())
          order by c.created_at, c.id)
        from (
          select d.id, d.created_at, d.next_attempt_at from webhook_deliveries d
          where d.hook_id = h.id and ${inStream('d.event')} and d.status = 'pending'
          order by d.created_at, d.id
          limit ${limit}
        ) c
      ), '[]') as candidates
    from outgoing_webhooks h
    where h.id = any(${hookIds}::text[]) and h.state = 'enabled'
  `.execute(db);
  for (const { db_now: dbNow, candidates, ...hook } of rows) {
    heads.set(hook.id, {
      hook,
      dbNow,
      candidates: candidates.map(([id, createdAt, nextAttemptAt, due]) => ({
        id,
        created_at: new Date(createdAt),
        next_attempt_at: nextAttemptAt === null ? null : new Date(nextAttemptAt),
        due,
      })),
    });
  }
  return heads;
}

/** How far back a missing earlier delivery can hold the head (a lost fan-out job stops mattering). */
const GAP_WINDOW_MS = 5 * 60_000;
const GAP_RECHECK_MS = 500;

const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Where looking for a gap before a delivery starts: the latest of the hook's creation, a few
 * minutes before the delivery's message, and the position already sent to the hook (`sentThrough`,
 * sent-positions.ts: an earlier message is overtaken already). `id` bounds the same search by
 * message id, so it stays on the (room_id, id) index (ids carry the app's clock, hence a minute of
 * slack for clock skew).
 */
export function gapFloor(
  hookCreatedAt: Date,
  headCreatedAt: Date,
  sentThrough?: Date,
): { id: string; at: Date } {
  const at = Math.max(
    hookCreatedAt.getTime(),
    headCreatedAt.getTime() - GAP_WINDOW_MS,
    sentThrough?.getTime() ?? 0,
  );
  return { id: messageIdFloor(at - 60_000), at: new Date(at) };
}

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
 * Each run checked in one snapshot, all runs in one statement.
 *
 * `gapAt`: fan-outs run concurrently, so a message posted just before a delivery of the run may
 * not have its delivery row yet; sending the run now would overtake it. The earliest member
 * message of the room that is earlier than the run's last delivery, newer than the hook and than
 * what was sent to it, within a few minutes before the head, and not owed to the hook yet (gapFloor);
 * null when there is none. Its fan-out
 * wakes the hook when it lands; the recheck is only a fallback.
 *
 * `streamIds`: the head of the hook's stream as the same snapshot sees it, which must still be the
 * run: in one snapshot a message either has its delivery row (it is in the stream) or does not (it
 * is a gap), never neither.
 */
async function checkRuns(
  db: Db,
  runs: readonly { head: StreamHead; run: readonly Candidate[] }[],
  sentThrough: ClaimOptions['sentThrough'],
): Promise<Map<string, { gapAt: Date | null; streamIds: string[] }>> {
  const checks = new Map<string, { gapAt: Date | null; streamIds: string[] }>();
  if (!runs.length) return checks;
  const floors = runs.map(({ head, run }) =>
    gapFloor(head.hook.created_at, run[0]!.created_at, sentThrough?.(head.hook.id)),
  );
  const { rows } = await sql<{ hook_id: string; gap_at: Date | null; stream_ids: string[] }>`
    select x.hook_id,
      (select m.created_at from messages m
        where m.room_id = x.room_id
          -- Both created_at bounds make this a range of messages_member_time_idx: the run's own
          -- messages, however deep the room's backlog. created_at decides exactly; the id bound
          -- (ids carry the app's clock, hence the minute of slack for clock skew) is a second
          -- fence for a plan on (room_id, id).
          and m.id >= x.floor_id
          and m.author_kind = 'member'
          and m.created_at > x.floor_at
          and m.created_at < (select l.created_at from webhook_deliveries l where l.id = x.last_id)
          -- The event as a literal, so each probe is one lookup in the partial unique index of
          -- (hook_id, message_id) rather than a scan of every delivery the hook has.
          and not exists (
            select 1 from webhook_deliveries o
            where o.hook_id = x.hook_id and o.event = ${sql.lit(MESSAGE_CREATED)}
              and o.message_id = m.id)
        order by m.created_at
        limit 1) as gap_at,
      array(
        select s.id from webhook_deliveries s
        where s.hook_id = x.hook_id and ${inStream('s.event')} and s.status = 'pending'
        order by s.created_at, s.id
        limit x.run_length) as stream_ids
    from unnest(
      ${runs.map(({ head }) => head.hook.id)}::text[],
      ${runs.map(({ head }) => head.hook.room_id)}::text[],
      ${floors.map((floor) => floor.id)}::text[],
      ${floors.map((floor) => floor.at.toISOString())}::timestamptz[],
      ${runs.map(({ run }) => run.at(-1)!.id)}::text[],
      ${runs.map(({ run }) => run.length)}::int[]
    ) as x(hook_id, room_id, floor_id, floor_at, last_id, run_length)
  `.execute(db);
  for (const row of rows) {
    checks.set(row.hook_id, { gapAt: row.gap_at, streamIds: row.stream_ids });
  }
  return checks;
}

/**
 * Leases the runs of many hooks in one statement. Each hook's head is leased first, and only if
 * it is still pending and due once its row is locked; the rest of a run only if its hook's head
 * was (the second UPDATE reads the first's RETURNING, so it runs after it). Two drainers racing
 * for one hook both go for the same head row: the loser waits on its lock, re-checks, finds it
 * leased, and takes nothing of that hook, so runs never interleave. Heads are locked in id order
 * (the index scan of `= any`), the same in every statement. One list per run, in no order.
 */
async function leaseRuns(
  db: Db,
  runs: readonly (readonly string[])[],
  leaseMs: number,
): Promise<WebhookDelivery[][]> {
  const headIds = runs.flatMap((ids) => ids.slice(0, 1));
  const restIds = runs.flatMap((ids) => ids.slice(1));
  if (!headIds.length) return runs.map(() => []);
  // A lease needs to be visible, not durable: other drainers see it at commit either way, and a
  // lease lost to a Postgres crash only makes its run due again, re-sent with the same
  // webhook-ids (what a drainer killed mid-run causes too). So its commit does not wait for the
  // WAL flush, which is on every first attempt's path (nor does a run's record: records.ts).
  const leased = await leaseStatement(db, headIds, restIds, leaseMs);
  const byId = new Map(leased.map((delivery) => [delivery.id, delivery]));
  return runs.map((ids) => ids.flatMap((id) => byId.get(id) ?? []));
}

function leaseStatement(
  db: Db,
  headIds: readonly string[],
  restIds: readonly string[],
  leaseMs: number,
): Promise<WebhookDelivery[]> {
  // synchronous_commit = off for this statement's own transaction, set inside it (one round trip,
  // where BEGIN; SET LOCAL; ...; COMMIT took four): the head UPDATE reads it once.
  return db
    .with('async_commit', (qb) =>
      qb.selectNoFrom(sql<string>`set_config('synchronous_commit', 'off', true)`.as('setting')),
    )
    .with('head', (qb) =>
      qb
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: msInterval(leaseMs) })
        .where(sql<boolean>`id = any(${headIds}::text[])`)
        .where(sql<boolean>`exists (select 1 from async_commit)`)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', sql<Date>`now()`)
        .returningAll(),
    )
    .with('rest', (qb) =>
      qb
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: msInterval(leaseMs) })
        .where(sql<boolean>`id = any(${restIds}::text[])`)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', sql<Date>`now()`)
        .where('hook_id', 'in', (eb) => eb.selectFrom('head').select('head.hook_id'))
        .returningAll(),
    )
    .selectFrom('head')
    .selectAll()
    .unionAll((eb) => eb.selectFrom('rest').selectAll())
    .execute();
}

/** Gives leases back: due again, behind whatever is the head now. */
export async function releaseLeases(db: Db, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: sql<Date>`now()` })
    .where(sql<boolean>`id = any(${ids}::text[])`)
    .where('status', '=', 'pending')
    .execute();
}
