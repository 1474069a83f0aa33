/**
 * Group commit: callers submit items one at a time and each awaits its own result, while the items
 * are written together, one round trip (one transaction, one Redis pipeline) per group instead of
 * one per item. Batching is natural, with no timer to wait for: an item submitted while no group
 * is being written is written at the end of the current event-loop turn (with everything else
 * submitted in that turn); items submitted while `concurrency` groups are already being written
 * wait and go together as the next group. So a quiet service pays no added latency, and a busy
 * one writes bigger groups instead of queueing round trips.
 */
export interface GroupCommitOptions<I, O> {
  /**
   * Writes one group. Resolves with one result per item, in order; rejecting rejects every item of
   * the group with that error (callers that need per-item failures return them as results).
   */
  write(items: I[]): Promise<O[]>;
  /** The most items in one group. */
  maxItems: number;
  /** Groups being written at once (each needs its own connection or round trip). */
  concurrency?: number;
}

export interface GroupCommitStats {
  /** Groups written (resolved or rejected). */
  groups: number;
  items: number;
  largestGroup: number;
}

export interface GroupCommit<I, O> {
  submit(item: I): Promise<O>;
  /** Resolves once every item submitted so far has its answer (a graceful stop waits on it). */
  drain(): Promise<void>;
  readonly stats: Readonly<GroupCommitStats>;
}

interface Waiting<I, O> {
  item: I;
  resolve(result: O): void;
  reject(error: unknown): void;
}

export function createGroupCommit<I, O>(options: GroupCommitOptions<I, O>): GroupCommit<I, O> {
  const concurrency = options.concurrency ?? 1;
  const stats: GroupCommitStats = { groups: 0, items: 0, largestGroup: 0 };
  let waiting: Waiting<I, O>[] = [];
  let writing = 0;
  let scheduled = false;
  let drained: (() => void)[] = [];

  const settleDrains = (): void => {
    if (writing > 0 || waiting.length > 0) return;
    const done = drained;
    drained = [];
    for (const resolve of done) resolve();
  };

  const write = async (group: Waiting<I, O>[]): Promise<void> => {
    try {
      const results = await options.write(group.map((entry) => entry.item));
      if (results.length !== group.length) {
        throw new Error(`group commit: ${results.length} results for ${group.length} items`);
      }
      group.forEach((entry, index) => entry.resolve(results[index]!));
    } catch (error) {
      for (const entry of group) entry.reject(error);
    } finally {
      stats.groups += 1;
      stats.items += group.length;
      stats.largestGroup = Math.max(stats.largestGroup, group.length);
      writing -= 1;
      schedule();
      settleDrains();
    }
  };

  const flush = (): void => {
    scheduled = false;
    while (writing < concurrency && waiting.length > 0) {
      const group = waiting.slice(0, options.maxItems);
      waiting = waiting.slice(group.length);
      writing += 1;
      void write(group);
    }
  };

  function schedule(): void {
    if (scheduled || writing >= concurrency || waiting.length === 0) return;
    scheduled = true;
    // setImmediate, not a microtask: requests parsed in the same I/O phase join one group.
    setImmediate(flush);
  }

  return {
    submit(item) {
      return new Promise<O>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        schedule();
      });
    },
    drain() {
      if (writing === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise<void>((resolve) => drained.push(resolve));
    },
    stats,
  };
}
