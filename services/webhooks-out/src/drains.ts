import type { Logger } from '@ferry/core';
import type { LeasedAtOwe } from './owe.js';

/** What one step of a hook's drain did (jobs/drain-hook.ts `drainRun`). */
export type DrainOutcome =
  /** A run was claimed and sent (fully or up to a failure): there may be more. */
  | 'sent'
  /** A run that was the hook's whole stream was sent: nothing more unless a wake says so. */
  | 'drained'
  /** Nothing owed. */
  | 'idle'
  /** The head is not due yet; its wake-up is scheduled. */
  | 'wait';

export interface DrainSchedulerOptions {
  /** Hooks drained at once; the others queue for a turn. */
  concurrency: number;
  /**
   * Claims, sends and records one run, or sends a run leased when it was owed (`handed`);
   * `stopping` turns true when the process is shutting down.
   */
  step(hookId: string, stopping: () => boolean, handed?: HandedRun): Promise<DrainOutcome>;
  logger: Logger;
}

/** A run leased by the statement that owed it (owe.ts), with the moment its lease began. */
export interface HandedRun extends LeasedAtOwe {
  /** performance.now() when the owing statement was sent: the lease is counted from there. */
  leasedAt: number;
}

export interface DrainScheduler {
  /** Look at this hook now: new deliveries were owed, a retry is due, a job asked for it. */
  wake(hookId: string): void;
  /** Send this already-leased run of the hook, ahead of any claim (a fan-out owed and leased it). */
  hand(run: HandedRun): void;
  /** Hooks draining now (tests, metrics). */
  readonly active: number;
  /** Stops starting drains; each running one stops after its current run. Resolves when all have. */
  close(): Promise<void>;
}

/**
 * The drains of one process: at most one per hook (the lease in Postgres keeps sends serial across
 * processes; this keeps a process from racing itself), at most `concurrency` at once.
 *
 * A wake is never lost to a drain that is about to finish: a wake that arrives while the hook's
 * drain is running marks it, and a drain only ends after a step that found nothing (or sent the
 * whole stream it read) AND started after the last such mark. So a delivery owed just as a
 * drain's last claim came back empty is claimed by one more round, not left for the sweep. A hook
 * with a long backlog gives its slot to waiting hooks after each run, so 200 busy hooks share the
 * slots fairly. A run handed over already leased (a fan-out owed it as the hook's head) is the
 * drain's next step, before any claim: the usual way a quiet hook's new message goes out.
 */
export function createDrainScheduler(options: DrainSchedulerOptions): DrainScheduler {
  const running = new Map<string, { woken: boolean }>();
  /**
   * Leased runs waiting for their hook's drain, kept apart from a drain's own state so a hook that
   * gives up its slot keeps them. A hook has at most one in practice (only its head is leased when
   * owed, and nothing is its head while one waits), but a list loses nothing if that ever changes.
   */
  const handed = new Map<string, HandedRun[]>();
  /** Hooks waiting for a slot, oldest first (a Set iterates in insertion order). */
  const queued = new Set<string>();
  const drains = new Set<Promise<void>>();
  let closing = false;

  async function drain(hookId: string, state: { woken: boolean }): Promise<void> {
    while (!closing) {
      state.woken = false;
      const outcome = await options.step(hookId, () => closing, takeHanded(hookId));
      if (outcome === 'sent') {
        if (queued.size > 0) {
          queued.add(hookId);
          return;
        }
        continue;
      }
      if (!state.woken && !handed.has(hookId)) return;
    }
  }

  function takeHanded(hookId: string): HandedRun | undefined {
    const runs = handed.get(hookId);
    const run = runs?.shift();
    if (runs && !runs.length) handed.delete(hookId);
    return run;
  }

  function start(hookId: string): void {
    const state = { woken: false };
    running.set(hookId, state);
    const done: Promise<void> = drain(hookId, state)
      .catch((err: unknown) => {
        // Its leases expire and the sweep wakes the hook again; nothing is lost, only delayed.
        options.logger.warn({ err, hookId }, 'drain failed');
      })
      .finally(() => {
        if (running.get(hookId) === state) running.delete(hookId);
        drains.delete(done);
        startQueued();
      });
    drains.add(done);
  }

  function startQueued(): void {
    for (const hookId of queued) {
      if (closing || running.size >= options.concurrency) return;
      // A hook that just gave up its slot is queued a moment before its drain has ended.
      if (running.has(hookId)) continue;
      queued.delete(hookId);
      start(hookId);
    }
  }

  const scheduler: DrainScheduler = {
    hand(run) {
      // Once closing, the run's lease expires and the sweep finds it due again.
      if (closing) return;
      const runs = handed.get(run.hook.id);
      if (runs) runs.push(run);
      else handed.set(run.hook.id, [run]);
      scheduler.wake(run.hook.id);
    },
    wake(hookId) {
      if (closing) return;
      const state = running.get(hookId);
      if (state) {
        state.woken = true;
        return;
      }
      if (queued.has(hookId)) return;
      if (running.size >= options.concurrency) queued.add(hookId);
      else start(hookId);
    },
    get active() {
      return running.size;
    },
    async close() {
      closing = true;
      queued.clear();
      handed.clear();
      await Promise.all([...drains]);
    },
  };
  return scheduler;
}
