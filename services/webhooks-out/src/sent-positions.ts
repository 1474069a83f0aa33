/**
 * How far each hook's stream has been sent, as this process has seen it: the stream position
 * (`created_at`, the message's own time) of the latest delivery a run of this process sent.
 *
 * Why: the gap check (claims.ts checkRuns, owe.ts) looks for an earlier member message of the room
 * that is not owed to the hook yet, so a run does not overtake a fan-out still in flight. A message
 * earlier than a delivery already sent has been overtaken by that delivery whatever happens next,
 * so holding a later run for it keeps no order worth keeping: the search starts at the position
 * sent instead of the full window before the head. Without that floor every claim of a hook with a
 * backlog read all the room's messages since a few minutes before its head again (the largest
 * statement of the outgoing backlog, bench/RESULTS.md).
 *
 * Process memory, not a column: the position only ever narrows a search, so a position another
 * process advanced past, or one lost with a restart, only makes the search as wide as before. No
 * row of the hook is written per run, so nothing here can contend with an owner editing the hook.
 */
export interface SentPositions {
  /** The latest position sent to the hook by this process, if it knows one. */
  get(hookId: string): Date | undefined;
  /** A run sent deliveries up to `at`; positions only move forward. */
  advance(hookId: string, at: Date): void;
}

/** Hooks remembered at most; the least recently advanced are forgotten first. */
const DEFAULT_CAPACITY = 20_000;

export function createSentPositions(capacity = DEFAULT_CAPACITY): SentPositions {
  const positions = new Map<string, Date>();
  return {
    get: (hookId) => positions.get(hookId),
    advance(hookId, at) {
      const known = positions.get(hookId);
      if (known && known >= at) return;
      // Re-inserted, so the map's order is least recently advanced first.
      positions.delete(hookId);
      positions.set(hookId, at);
      if (positions.size > capacity) {
        const oldest = positions.keys().next().value;
        if (oldest !== undefined) positions.delete(oldest);
      }
    },
  };
}
