/**
 * Gathers items handed in one at a time and writes them many per call. `add` resolves (or rejects)
 * with its own item's result once the batch holding it is written: a batch is sent when it holds
 * `maxItems`, or `maxWaitMs` after its first item arrived, whichever comes first, and a slot is
 * free: at most `maxInFlight` batches are written at once. While the slots are taken the next batch
 * keeps gathering and is sent as soon as one frees (group commit): under load batches grow rather
 * than multiply. That matters to the error writer, whose batches touching the same groups commit
 * one after another (a group's counts are one row): ten small batches in flight meant ten
 * transactions queued on the same row locks, each holding the rows before it in the queue.
 *
 * If a batch of more than one item fails, each of its items is written again alone, so one bad item
 * fails by itself instead of failing all the others with it.
 */
export interface BatcherOptions<T, R> {
  maxItems: number;
  maxWaitMs: number;
  /** Batches written at once (default: no bound). */
  maxInFlight?: number;
  /** Writes the items, returning one result per item, in order; throws if none was written. */
  write(items: readonly T[]): Promise<R[]>;
}

interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface Batcher<T, R> {
  add(item: T): Promise<R>;
}

export function createBatcher<T, R>(options: BatcherOptions<T, R>): Batcher<T, R> {
  let pending: Pending<T, R>[] = [];
  let timer: NodeJS.Timeout | undefined;
  let inFlight = 0;
  const maxInFlight = options.maxInFlight ?? Infinity;

  async function write(batch: Pending<T, R>[]): Promise<void> {
    try {
      const results = await options.write(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.resolve(results[index]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // Alone, so a poisoned item (or a write that fails for its own reasons) fails by itself.
      await Promise.all(batch.map((entry) => write([entry])));
    }
  }

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    // No slot: the batch in the making goes when the next write ends (below).
    if (pending.length === 0 || inFlight >= maxInFlight) return;
    const batch = pending.slice(0, options.maxItems);
    pending = pending.slice(batch.length);
    inFlight += 1;
    void write(batch).finally(() => {
      inFlight -= 1;
      // What gathered meanwhile has waited a whole write already: it goes now.
      flush();
    });
    if (pending.length >= options.maxItems) flush();
    else if (pending.length > 0) timer = setTimeout(flush, options.maxWaitMs);
  }

  return {
    add(item) {
      return new Promise<R>((resolve, reject) => {
        pending.push({ item, resolve, reject });
        if (pending.length >= options.maxItems) flush();
        else timer ??= setTimeout(flush, options.maxWaitMs);
      });
    },
  };
}
