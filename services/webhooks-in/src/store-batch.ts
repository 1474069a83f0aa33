import { newId } from '@ferry/core';
import type { Db } from '@ferry/db';
import { postMessages } from '@ferry/workspace';
import { sql } from 'kysely';
import {
  liveKeyHashes,
  webhookMessage,
  type Accepted,
  type LiveKey,
  type ResolvedPost,
} from './accept.js';
import {
  IDEMPOTENCY_EXPIRED_BEFORE,
  insertRecords,
  readOriginals,
  recordOf,
  type Original,
  type RecordClaim,
} from './idempotency.js';

/**
 * The statements of one group commit (post-writer.ts): many posts in the caller's transaction,
 * each with storePost's guarantees, in a fixed handful of statements whatever the batch's size:
 * check that the batch's keys are still live (one SELECT ... FOR SHARE), claim the idempotency
 * keys (one INSERT), replace the stale records among those taken (one
 * UPDATE), read the live ones (one SELECT), then the messages and their outbox events (one INSERT
 * each). The UPDATE and SELECT run only for keys that were already taken.
 */

/** This post goes to the single-post path after the commit: its record vanished mid-batch. */
export const STORE_ALONE = Symbol('store alone');
/** This post's key died after the post looked it up (the cache had not heard yet): 404. */
export const KEY_GONE = Symbol('key gone');
export type BatchOutcome = Accepted | typeof STORE_ALONE | typeof KEY_GONE;

interface Entry {
  /** The post's place in the batch. */
  index: number;
  resolved: ResolvedPost;
  /** Generated before the claim, so the idempotency record names its message from the start. */
  messageId: string;
  claim?: RecordClaim;
}

/** Returns one outcome per post, in the order given. */
export async function storePostBatch(
  trx: Db,
  posts: readonly ResolvedPost[],
): Promise<BatchOutcome[]> {
  const live = await liveKeyHashes(trx, distinctKeys(posts));
  const outcomes: BatchOutcome[] = posts.map(() => KEY_GONE);
  const entries: Entry[] = [];
  posts.forEach((resolved, index) => {
    if (!live.has(resolved.key.keyHash)) return; // no message, no idempotency record
    const messageId = newId('message');
    const idempotencyKey = resolved.post.idempotencyKey;
    entries.push(
      idempotencyKey
        ? {
            index,
            resolved,
            messageId,
            claim: { webhookId: resolved.key.id, idempotencyKey, messageId },
          }
        : { index, resolved, messageId },
    );
  });
  const stored = await storeEntries(trx, entries);
  entries.forEach((entry, i) => (outcomes[entry.index] = stored[i]!));
  return outcomes;
}

/** One of each key, for liveKeyHashes. */
function distinctKeys(posts: readonly ResolvedPost[]): LiveKey[] {
  return [...new Map(posts.map(({ key }) => [key.keyHash, key])).values()];
}

/** Stores the posts of live keys; one outcome per entry, in their order. */
async function storeEntries(trx: Db, entries: Entry[]): Promise<BatchOutcome[]> {
  // The first post of each idempotency key claims it; the batch's later duplicates replay it.
  const claimants = new Map<string, Entry>();
  for (const entry of entries) {
    if (entry.claim && !claimants.has(recordOf(entry.claim))) {
      claimants.set(recordOf(entry.claim), entry);
    }
  }
  const { won, originals } = await claimRecords(
    trx,
    [...claimants.values()].flatMap((entry) => (entry.claim ? [entry.claim] : [])),
  );

  const writers = entries.filter(
    (entry) =>
      !entry.claim ||
      (claimants.get(recordOf(entry.claim)) === entry && won.has(recordOf(entry.claim))),
  );
  await postMessages(
    trx,
    writers.map((entry) => webhookMessage(entry.resolved, entry.messageId)),
  );

  const written = new Set(writers);
  return entries.map(outcomeOf);

  function outcomeOf(entry: Entry): BatchOutcome {
    if (written.has(entry) || !entry.claim) {
      return { status: 201, messageId: entry.messageId, roomId: entry.resolved.roomId };
    }
    const record = recordOf(entry.claim);
    const claimant = claimants.get(record);
    if (claimant && written.has(claimant)) {
      return { status: 200, messageId: claimant.messageId, roomId: claimant.resolved.roomId };
    }
    const original = originals.get(record);
    return original ? { status: 200, ...original } : STORE_ALONE;
  }
}

/**
 * Claims what it can: a record inserted, or one older than 24 h replaced (DESIGN.md: such a record
 * counts as absent). A record another transaction holds uncommitted makes the INSERT wait for its
 * commit and then conflict; the records taken are read into `originals` (a missing one was pruned
 * between our statements). Rows go in one order in every batch, so two batches waiting on each
 * other's uncommitted keys cannot deadlock.
 */
async function claimRecords(
  trx: Db,
  claims: RecordClaim[],
): Promise<{ won: Set<string>; originals: Map<string, Original> }> {
  const originals = new Map<string, Original>();
  if (!claims.length) return { won: new Set(), originals };
  claims.sort((a, b) => compare(recordOf(a), recordOf(b)));

  const won = await insertRecords(trx, claims);
  const markWon = (row: { webhook_id: string; idempotency_key: string }) =>
    won.add(recordOf({ webhookId: row.webhook_id, idempotencyKey: row.idempotency_key }));
  let taken = claims.filter((claim) => !won.has(recordOf(claim)));
  if (!taken.length) return { won, originals };

  const replaced = await sql<{ webhook_id: string; idempotency_key: string }>`
    update incoming_webhook_requests as q
    set message_id = v.message_id, created_at = now()
    from (values ${sql.join(
      taken.map((claim) => sql`(${claim.webhookId}, ${claim.idempotencyKey}, ${claim.messageId})`),
    )}) as v (webhook_id, idempotency_key, message_id)
    where q.webhook_id = v.webhook_id
      and q.idempotency_key = v.idempotency_key
      and q.created_at < ${IDEMPOTENCY_EXPIRED_BEFORE}
    returning q.webhook_id, q.idempotency_key`.execute(trx);
  replaced.rows.forEach(markWon);
  taken = taken.filter((claim) => !won.has(recordOf(claim)));
  if (!taken.length) return { won, originals };

  return { won, originals: await readOriginals(trx, taken) };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
