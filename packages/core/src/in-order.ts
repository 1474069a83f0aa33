/**
 * A queue that runs tasks one after another, in the order they were given: each starts once the
 * one before it has settled (resolved or rejected), and the returned promise is the task's own.
 * For event handlers that read before they act: two handled at once can finish, and act, in the
 * other order.
 */
export function inOrder(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task);
    // A failed task is its caller's to handle; the next one runs all the same.
    tail = run.catch(() => undefined);
    return run;
  };
}
