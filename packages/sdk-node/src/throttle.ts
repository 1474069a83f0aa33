/**
 * Sliding window: at most `max` reports in any `windowMs`. A fixed window would let 2 x max through
 * around a minute boundary, and the server's per-workspace limit (120 a minute) is shared by every
 * process of the app, so each one should really stay at its 60.
 */
export class Throttle {
  private readonly taken: number[] = [];

  constructor(
    private readonly max: number,
    private readonly windowMs = 60_000,
  ) {}

  /** True (and counted) when one more report fits now. */
  take(now: number = Date.now()): boolean {
    while (this.taken.length > 0 && (this.taken[0] ?? 0) <= now - this.windowMs) {
      this.taken.shift();
    }
    if (this.taken.length >= this.max) return false;
    this.taken.push(now);
    return true;
  }
}
