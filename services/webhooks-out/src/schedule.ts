/**
 * When the next try of a delivery happens after a failed one (DESIGN.md "Outgoing delivery"):
 * the schedule's next wait with +-20% jitter (so a receiver coming back is not hit by every
 * delivery at the same instant), at least the throttle minimum after a 429 or a timeout, and at
 * least what Retry-After asked for. Null when the schedule is used up.
 */
export interface FailedTry {
  /** Tries made so far, this one included. */
  attempts: number;
  statusCode: number | null;
  timedOut: boolean;
  retryAfterMs: number | null;
}

/** Retry-After is honoured, but a receiver cannot park a delivery for longer than a day. */
export const RETRY_AFTER_CAP_MS = 24 * 3_600_000;

export function nextRetryDelayMs(
  failed: FailedTry,
  schedule: readonly number[],
  throttleMinDelayMs: number,
  random: () => number = Math.random,
): number | null {
  const base = schedule[failed.attempts];
  if (base === undefined) return null;
  let delay = Math.round(base * (0.8 + 0.4 * random()));
  if (failed.statusCode === 429 || failed.timedOut) delay = Math.max(delay, throttleMinDelayMs);
  if (failed.retryAfterMs !== null) {
    delay = Math.max(delay, Math.min(failed.retryAfterMs, RETRY_AFTER_CAP_MS));
  }
  return delay;
}

/** Retry-After as delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
