/**
 * Gathers items handed in one at a time and writes them many per call. `add` resolves (or rejects)
 * with its own item's result once the batch holding it is written: a batch is sent when it holds
 * `maxItems`, or `maxWaitMs` after its first item arrived, whichever comes first. Several batches
 * may be in flight at once (the caller bounds how many items exist at a time).
 *
 * If a batch of more than one item fails, each of its items is written again alone, so one bad item
 * fails by itself instead of failing all the others with it.
 */
export interface BatcherOptions<T, R> {
  maxItems: number;
  maxWaitMs: number;
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

  async function run(batch: Pending<T, R>[]): Promise<void> {
    try {
      const results = await options.write(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.resolve(results[index]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // Alone, so a poisoned item (or a write that fails for its own reasons) fails by itself.
      await Promise.all(batch.map((entry) => run([entry])));
    }
  }

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length > 0) void run(batch);
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
