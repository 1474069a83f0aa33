import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The per-endpoint rate limit (issue 44: event endpoints' `max_per_second`): a hook's sends are
 * spaced at least 1/N s apart. A hook's stream is sent by one run at a time (the lease), and a
 * process drains each hook once at a time (drains.ts), so spacing the sends of this process's
 * runs is the limit; a hook's next run landing on another process starts its own spacing, which
 * can let one extra send through at that hand-over (accepted: the limit protects a receiver from
 * a backlog's burst, not to the millisecond).
 */
export interface Pacer {
  /** Resolves when the hook may send next (at once without a limit). */
  wait(hookId: string, perSecond: number | null): Promise<void>;
}

/** Hooks remembered at most; older entries are all in the past and carry nothing. */
const MAX_ENTRIES = 10_000;

export function createPacer(now: () => number = () => performance.now()): Pacer {
  const nextAt = new Map<string, number>();
  return {
    async wait(hookId, perSecond) {
      if (!perSecond) return;
      const at = Math.max(now(), nextAt.get(hookId) ?? 0);
      nextAt.set(hookId, at + 1000 / perSecond);
      if (nextAt.size > MAX_ENTRIES) {
        const present = now();
        for (const [id, time] of nextAt) if (time < present) nextAt.delete(id);
      }
      const delay = at - now();
      if (delay > 0) await sleep(delay);
    },
  };
}
