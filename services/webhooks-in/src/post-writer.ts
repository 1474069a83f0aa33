import { AppError, createGroupCommit, type Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { storePost, unknownKey, type Accepted, type ResolvedPost } from './accept.js';
import { KEY_GONE, STORE_ALONE, storePostBatch, type BatchOutcome } from './store-batch.js';

/**
 * Group commit for accepted posts (#12): a post's cost was its own transaction's commit, so posts
 * that arrive together share one (@ferry/core's createGroupCommit: no timer, no added latency at
 * low load; posts arriving while batches commit go together as the next batch). Each caller
 * awaits its own post, answered only once the transaction that holds it committed.
 *
 * One bad post must not fail its batch-mates: a batch whose transaction fails is written again
 * post by post through the single-post path (storePost), so only the bad one errors. The one
 * exception is a connection lost during COMMIT, when the batch may have committed: posts with an
 * idempotency key are written again (a replay finds them), the others answer the error, as a
 * single post losing its COMMIT does, rather than risk posting them twice.
 */
export interface PostWriter {
  /** Stores the post in the next batch; resolves once it is committed. */
  write(post: ResolvedPost): Promise<Accepted>;
  /** Counters for tests and benchmarks. */
  stats(): PostWriterStats;
  /**
   * Writes every post already queued, then answers new ones 503; resolves when nothing is left.
   * Call it before the pool closes (after the HTTP server stopped taking requests).
   */
  stop(): Promise<void>;
}

export interface PostWriterStats {
  /** Batch transactions committed. */
  batches: number;
  /** Posts answered from committed batches. */
  batchedPosts: number;
  largestBatch: number;
  /** Posts of failed batches (or whose record vanished mid-batch) written alone. */
  writtenAlone: number;
}

export interface PostWriterOptions {
  logger: Logger;
  /** Most posts in one transaction. */
  maxBatch?: number;
  /**
   * Batches committing at once, each on its own pool connection. One by default (issue 48): posts
   * arriving while a batch commits wait for the next, so batches stay large as the accept path
   * gets faster; with two, batches halved and Postgres' statements per post doubled.
   */
  concurrency?: number;
}

type PostOutcome = { ok: true; accepted: Accepted } | { ok: false; error: unknown };

export function createPostWriter(db: Db, options: PostWriterOptions): PostWriter {
  const stats: PostWriterStats = { batches: 0, batchedPosts: 0, largestBatch: 0, writtenAlone: 0 };
  let stopping = false;

  const writeAlone = (post: ResolvedPost): Promise<PostOutcome> => {
    stats.writtenAlone++;
    return storePost(db, post).then(
      (accepted) => ({ ok: true, accepted }),
      (error: unknown) => ({ ok: false, error }),
    );
  };

  /** Never rejects: each post's outcome, or its own error, goes back to its caller. */
  async function writeBatch(posts: ResolvedPost[]): Promise<PostOutcome[]> {
    let committing = false;
    let outcomes: BatchOutcome[];
    try {
      outcomes = await db.transaction().execute(async (trx) => {
        const batch = await storePostBatch(trx, posts);
        committing = true;
        return batch;
      });
    } catch (error) {
      if (posts.length > 1) {
        options.logger.warn({ err: error, posts: posts.length }, 'group commit failed');
      }
      const mayHaveCommitted = committing && !rolledBack(error);
      const writeAgain = (post: ResolvedPost): boolean =>
        mayHaveCommitted
          ? Boolean(post.post.idempotencyKey)
          : // Alone, a post would fail the same way again: only a batch has batch-mates to spare.
            posts.length > 1;
      return Promise.all(
        posts.map((post) =>
          writeAgain(post) ? writeAlone(post) : Promise.resolve({ ok: false as const, error }),
        ),
      );
    }
    stats.batches++;
    stats.batchedPosts += posts.length;
    stats.largestBatch = Math.max(stats.largestBatch, posts.length);
    return Promise.all(posts.map((post, index) => answerOf(post, outcomes[index])));
  }

  function answerOf(post: ResolvedPost, outcome: BatchOutcome | undefined): Promise<PostOutcome> {
    if (outcome === KEY_GONE) return Promise.resolve({ ok: false, error: unknownKey() });
    if (outcome === undefined || outcome === STORE_ALONE) return writeAlone(post);
    return Promise.resolve({ ok: true, accepted: outcome });
  }

  const group = createGroupCommit<ResolvedPost, PostOutcome>({
    write: writeBatch,
    maxItems: options.maxBatch ?? 200,
    concurrency: options.concurrency ?? 1,
  });

  /** Posts not answered yet, so stop() resolves only once their callers have their answers. */
  const unanswered = new Set<Promise<Accepted>>();
  const answer = async (post: ResolvedPost): Promise<Accepted> => {
    const outcome = await group.submit(post);
    if (!outcome.ok) throw outcome.error;
    return outcome.accepted;
  };

  return {
    write(post) {
      if (stopping) {
        return Promise.reject(
          new AppError('unavailable', 'This service is shutting down; try again.'),
        );
      }
      // Files are megabytes each: their post takes a transaction of its own (storePost writes
      // them), rather than holding a batch's commit back.
      const answered = post.post.files?.length ? storePost(db, post) : answer(post);
      unanswered.add(answered);
      const forget = () => unanswered.delete(answered);
      answered.then(forget, forget);
      return answered;
    },
    stats: () => ({ ...stats }),
    async stop() {
      stopping = true;
      await group.drain();
      await Promise.allSettled(unanswered);
    },
  };
}

/**
 * Postgres answered with an ERROR, so the transaction is rolled back for certain. Any other
 * failure during COMMIT (the connection dropped, a FATAL) leaves it unknown.
 */
function rolledBack(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'severity' in error
    ? error.severity === 'ERROR'
    : false;
}
