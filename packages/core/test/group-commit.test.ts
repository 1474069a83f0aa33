import { describe, expect, it } from 'vitest';
import { createGroupCommit } from '../src/group-commit.js';

/** A write whose groups are recorded and that finishes only when the test says so. */
function controlledWrite() {
  const groups: number[][] = [];
  const pending: (() => void)[] = [];
  return {
    groups,
    finishNext: () => pending.shift()?.(),
    write: (items: number[]) =>
      new Promise<number[]>((resolve) => {
        groups.push(items);
        pending.push(() => resolve(items.map((n) => n * 10)));
      }),
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('createGroupCommit', () => {
  it('writes items submitted in one turn as one group, each getting its own result', async () => {
    const group = createGroupCommit<number, number>({
      write: (items) => Promise.resolve(items.map((n) => n + 1)),
      maxItems: 100,
    });
    const results = await Promise.all([1, 2, 3, 4].map((n) => group.submit(n)));
    expect(results).toEqual([2, 3, 4, 5]);
    expect(group.stats).toEqual({ groups: 1, items: 4, largestGroup: 4 });
  });

  it('queues items while a group is being written and sends them together next', async () => {
    const io = controlledWrite();
    const group = createGroupCommit<number, number>({ write: io.write, maxItems: 100 });
    const first = group.submit(1);
    await turn();
    expect(io.groups).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => group.submit(n));
    await turn();
    await turn();
    // Nothing more is written while the first group is in flight (concurrency 1).
    expect(io.groups).toEqual([[1]]);
    io.finishNext();
    expect(await first).toBe(10);
    await turn();
    expect(io.groups).toEqual([[1], [2, 3, 4]]);
    io.finishNext();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('cuts groups at maxItems and writes up to `concurrency` groups at once', async () => {
    const io = controlledWrite();
    const group = createGroupCommit<number, number>({
      write: io.write,
      maxItems: 2,
      concurrency: 2,
    });
    const all = [1, 2, 3, 4, 5].map((n) => group.submit(n));
    await turn();
    expect(io.groups).toEqual([
      [1, 2],
      [3, 4],
    ]);
    io.finishNext();
    await turn();
    await turn();
    expect(io.groups).toEqual([[1, 2], [3, 4], [5]]);
    io.finishNext();
    io.finishNext();
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50]);
    expect(group.stats.largestGroup).toBe(2);
  });

  it('rejects every item of a failed group and carries on with the next one', async () => {
    let calls = 0;
    const group = createGroupCommit<number, number>({
      write: (items) => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('down')) : Promise.resolve(items);
      },
      maxItems: 10,
    });
    const failed = [1, 2, 3].map((n) => group.submit(n));
    const outcomes = await Promise.allSettled(failed);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await group.submit(7)).toBe(7);
  });

  it('rejects every item when the writer answers the wrong number of results', async () => {
    const group = createGroupCommit<number, number>({
      write: () => Promise.resolve([1]),
      maxItems: 10,
    });
    const outcomes = await Promise.allSettled([group.submit(1), group.submit(2)]);
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
  });

  it('drain waits for everything submitted so far', async () => {
    const io = controlledWrite();
    const group = createGroupCommit<number, number>({ write: io.write, maxItems: 1 });
    const items = [group.submit(1), group.submit(2)];
    let drained = false;
    const done = group.drain().then(() => {
      drained = true;
    });
    await turn();
    io.finishNext();
    await turn();
    await turn();
    expect(drained).toBe(false);
    io.finishNext();
    await done;
    expect(drained).toBe(true);
    await Promise.all(items);
    await group.drain();
  });
});
