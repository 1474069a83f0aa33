import { describe, expect, it } from 'vitest';
import { inOrder } from '../src/in-order.js';

/** A promise the test settles when it chooses. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('inOrder', () => {
  it('starts a task only after the one before it settled, so a quick one never overtakes', async () => {
    const run = inOrder();
    const steps: string[] = [];
    const slowRead = deferred<string>();
    const first = run(async () => {
      steps.push('first read');
      const value = await slowRead.promise;
      steps.push(`first acts on ${value}`);
      return 1;
    });
    const second = run(() => {
      steps.push('second read');
      steps.push('second acts');
      return Promise.resolve(2);
    });
    await turn();
    // The second was given while the first still waits on its read: it has not started.
    expect(steps).toEqual(['first read']);
    slowRead.resolve('its rows');
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(steps).toEqual(['first read', 'first acts on its rows', 'second read', 'second acts']);
  });

  it('runs the next task after one that failed, and gives the failure to its caller alone', async () => {
    const run = inOrder();
    const failing = deferred<never>();
    const first = run(() => failing.promise);
    const second = run(() => Promise.resolve('ran'));
    failing.reject(new Error('read failed'));
    await expect(first).rejects.toThrow('read failed');
    await expect(second).resolves.toBe('ran');
  });
});
