import type { Db } from '@ferry/db';
import { sql } from 'kysely';

/**
 * Incoming idempotency records (incoming_webhook_requests): the rules both ways of storing a post
 * follow, written once here so the single-post path (accept.ts storePost) and the group commit
 * (store-batch.ts) cannot drift apart. A post claims its key by inserting the record (a concurrent
 * duplicate waits on the primary key, then conflicts); a record past its 24 h counts as absent and
 * may be taken over; a live record answers a replay with its original message. Each path keeps its
 * own order of statements; this module imports nothing of the service, so both can use it.
 */

/** DESIGN.md: idempotency records live 24 h; older ones count as absent. */
export const IDEMPOTENCY_TTL = sql`interval '24 hours'`;

/** A record created before this (the database's clock) has expired: it counts as absent. */
export const IDEMPOTENCY_EXPIRED_BEFORE = sql<Date>`now() - ${IDEMPOTENCY_TTL}`;

/** One idempotency record's identity. */
export interface RecordKey {
  webhookId: string;
  idempotencyKey: string;
}

/** A claim: the record to insert, naming the message it is for. */
export interface RecordClaim extends RecordKey {
  messageId: string;
}

/** What a replay answers: the original post's message and its room ('' once the message is gone). */
export interface Original {
  messageId: string;
  roomId: string;
}

/** One idempotency record's identity, as a Map key. */
export function recordOf(record: RecordKey): string {
  return JSON.stringify([record.webhookId, record.idempotencyKey]);
}

/**
 * Inserts the records of `claims` that nobody holds, in the caller's transaction; a record another
 * transaction holds uncommitted makes the insert wait for its commit and then conflict. Returns
 * the claims won (recordOf). Expired records still conflict: the caller takes them over.
 */
export async function insertRecords(trx: Db, claims: readonly RecordClaim[]): Promise<Set<string>> {
  const inserted = await trx
    .insertInto('incoming_webhook_requests')
    .values(
      claims.map((claim) => ({
        webhook_id: claim.webhookId,
        idempotency_key: claim.idempotencyKey,
        message_id: claim.messageId,
      })),
    )
    .onConflict((oc) => oc.columns(['webhook_id', 'idempotency_key']).doNothing())
    .returning(['webhook_id', 'idempotency_key'])
    .execute();
  return new Set(
    inserted.map((row) =>
      recordOf({ webhookId: row.webhook_id, idempotencyKey: row.idempotency_key }),
    ),
  );
}

/**
 * The originals of records that are taken, by recordOf: what their replays answer. A record
 * missing from the answer was deleted (pruned) since the caller's claim found it.
 */
export async function readOriginals(
  trx: Db,
  records: readonly RecordKey[],
): Promise<Map<string, Original>> {
  const originals = new Map<string, Original>();
  if (!records.length) return originals;
  const rows = await trx
    .selectFrom('incoming_webhook_requests as q')
    .leftJoin('messages as m', 'm.id', 'q.message_id')
    .select(['q.webhook_id', 'q.idempotency_key', 'q.message_id', 'm.room_id'])
    .where((eb) =>
      eb(
        eb.refTuple('q.webhook_id', 'q.idempotency_key'),
        'in',
        records.map((record) => eb.tuple(record.webhookId, record.idempotencyKey)),
      ),
    )
    .execute();
  for (const row of rows) {
    const record = recordOf({ webhookId: row.webhook_id, idempotencyKey: row.idempotency_key });
    originals.set(record, { messageId: row.message_id, roomId: row.room_id ?? '' });
  }
  return originals;
}
