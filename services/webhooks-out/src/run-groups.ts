import { createGroupCommit, type GroupCommitStats, type Logger } from '@ferry/core';
import type { Db } from '@ferry/db';
import { claimRuns, type ClaimOptions, type RunClaim } from './claims.js';
import { recordRuns, type RunOutcome } from './records.js';
import { createSentPositions } from './sent-positions.js';

/**
 * The statements of runs, grouped across hooks: every hook draining in this process claims and
 * records its runs through here, and what arrives together goes to Postgres together: one claim
 * (three statements) and one record (one statement, one commit) for all those hooks
 * (createGroupCommit: no timer, a quiet process writes at once). Round trips and commits, not rows,
 * are what a delivery costs (each commit waits for the WAL to reach the disk), so hundreds of hooks
 * each sending a run of one or two share a handful of statements per moment.
 */
export interface RunGroups {
  /** Claims a run for the hook (claims.ts). */
  claim(hookId: string): Promise<RunClaim>;
  /**
   * Records a run (records.ts): its attempts, those deliveries succeeded, the hook's consecutive
   * failures reset, its unsent rest released.
   */
  record(outcome: RunOutcome): Promise<void>;
  /**
   * How far this process has sent the hook's stream (sent-positions.ts): where a gap search may
   * start, for claims here and for the fan-outs that lease at owe.
   */
  sentThrough: (hookId: string) => Date | undefined;
  /** Resolves once everything submitted so far is written. */
  drain(): Promise<void>;
  /** Groups written and hooks in them (tests, metrics). */
  readonly stats: { claims: Readonly<GroupCommitStats>; records: Readonly<GroupCommitStats> };
}

/** Hooks in one grouped claim or record at most. */
const MAX_HOOKS_PER_GROUP = 256;

export function createRunGroups(db: Db, options: ClaimOptions & { logger?: Logger }): RunGroups {
  const positions = createSentPositions();
  const sentThrough = (hookId: string) => positions.get(hookId);
  const claims = createGroupCommit({
    write: (hookIds: string[]) => claimRuns(db, hookIds, { ...options, sentThrough }),
    maxItems: MAX_HOOKS_PER_GROUP,
    concurrency: 2,
  });
  const records = createGroupCommit({
    write: async (outcomes: RunOutcome[]) => {
      await recordRuns(db, outcomes, options.logger);
      return outcomes.map(() => undefined);
    },
    maxItems: MAX_HOOKS_PER_GROUP,
    concurrency: 2,
  });
  return {
    claim: (hookId) => claims.submit(hookId),
    record: (outcome) => {
      // A run is sent in stream order: its last success is the furthest it got.
      const last = outcome.successes.at(-1);
      if (last) positions.advance(outcome.hookId, last.delivery.created_at);
      return outcome.successes.length || outcome.unsentIds.length
        ? records.submit(outcome)
        : Promise.resolve();
    },
    sentThrough,
    drain: async () => {
      await claims.drain();
      await records.drain();
    },
    stats: { claims: claims.stats, records: records.stats },
  };
}
