import cluster, { type Worker } from 'node:cluster';
import { configWarnings, createLogger, prettyLines, warningsOnly } from '@ferry/core';
import { migrateToLatest } from '@ferry/db';
import { exitOnConfigError, requireSessionDatabase, shutdownOnce } from '@ferry/http';
import { announceUp } from './banner.js';
import type { FerryConfig } from './config.js';
import { startAll } from './server.js';

/**
 * `pnpm start` on every core: a node:cluster primary that migrates once, then forks
 * `settings.processes` workers sharing PORT. Each worker is the whole product (startAll: HTTP,
 * sockets, SSE, every queue's workers, the relay; the error writer on a thread of its own); what
 * must run once per deployment (the Ops sampler) runs under a Redis lease in one of them.
 *
 * Shutdown: SIGTERM or SIGINT to the primary tells every worker to drain (each runs its own
 * graceful stop); the primary exits 0 once all exited 0, 1 if any failed or it had to kill them.
 * A worker that dies while serving is reported and replaced (unless they keep dying); one that
 * dies before it was up (a port in use, a bad database) stops the rest: it would fail again.
 */

/** Primary -> worker: drain and exit. */
const STOP = 'ferry:stop';
/** Worker -> primary: serving. */
const UP = 'ferry:up';

/** The primary waits this long for drains (each worker cuts its own off at 25 s). */
const DRAIN_TIMEOUT_MS = 30_000;

/** More deaths than this in a minute is a crash loop, not bad luck: stop instead of re-forking. */
const MAX_DEATHS_PER_MINUTE = 5;

function isMessage(value: unknown, type: string): boolean {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === type;
}

export async function runPrimary(settings: FerryConfig): Promise<void> {
  const config = settings.base;
  const pretty = prettyLines(config.LOG_FORMAT);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'ferry', pretty });
  // Once for every process: the workers do not repeat them.
  for (const warning of configWarnings(config)) logger.warn(warning);
  const { applied } = await migrateToLatest(config.DATABASE_DIRECT_URL);
  // Checked once here too, so a pooler in the listeners' way stops the start before any fork
  // (each worker would fail the same check, and be re-forked until the crash-loop guard).
  await requireSessionDatabase(config, logger).catch(exitOnConfigError);
  // At a terminal the banner counts them.
  if (applied.length && !pretty) logger.info({ applied }, 'migrations applied');

  const running = new Set<Worker>();
  const up = new Set<Worker>();
  let announced = false;
  let stopping = false;
  let failed = false;
  let deaths: number[] = [];

  const fork = (): void => {
    const worker = cluster.fork();
    running.add(worker);
    worker.on('message', (message: unknown) => {
      if (!isMessage(message, UP)) return;
      up.add(worker);
      if (stopping) worker.send({ type: STOP });
      else if (!announced && up.size === settings.processes) {
        announced = true;
        const pids = [...up].flatMap((w) => (w.process.pid === undefined ? [] : [w.process.pid]));
        announceUp(logger, { settings, pids, applied, pretty });
      }
    });
  };

  const live = (): Worker[] => [...running];
  const finishIfDone = (): void => {
    if (live().length > 0) return;
    if (failed) logger.error('stopped after a failure');
    else logger.info('stopped');
    process.exit(failed ? 1 : 0);
  };
  const stopAll = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    const processes = live().length;
    // At a terminal, one plain line (a person reads it); piped, the fields a log search filters on.
    if (pretty) logger.info(`stopping (${reason}): draining ${processes} processes`);
    else logger.info({ reason, processes }, 'draining every worker');
    // A worker still starting gets the message once it is up (see fork).
    for (const worker of live()) if (up.has(worker)) worker.send({ type: STOP });
    const timer = setTimeout(() => {
      logger.error({ left: live().map((w) => w.process.pid) }, 'workers did not drain in time');
      for (const worker of live()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, DRAIN_TIMEOUT_MS);
    timer.unref();
    finishIfDone();
  };

  cluster.on('exit', (worker, code, signal) => {
    running.delete(worker);
    const wasUp = up.delete(worker);
    const pid = worker.process.pid;
    const clean = code === 0 && signal === null;
    if (stopping) {
      if (!clean) {
        failed = true;
        logger.error({ pid, code, signal }, 'a worker failed to drain');
      }
      finishIfDone();
    } else if (!wasUp) {
      failed = true;
      logger.error({ pid, code, signal }, 'a worker exited before it was up; stopping');
      stopAll('a worker failed to start');
    } else {
      const now = Date.now();
      deaths = [...deaths.filter((at) => at > now - 60_000), now];
      if (deaths.length > MAX_DEATHS_PER_MINUTE) {
        failed = true;
        logger.error({ pid, code, signal }, 'workers keep dying; stopping');
        stopAll('workers keep dying');
        return;
      }
      logger.error({ pid, code, signal }, 'a worker exited; starting another');
      fork();
    }
  });

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      // A second Ctrl-C: stop waiting.
      for (const worker of live()) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    signalled = true;
    stopAll(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  for (let i = 0; i < settings.processes; i++) fork();
}

export async function runWorker(settings: FerryConfig): Promise<void> {
  const config = settings.base;
  const pretty = prettyLines(config.LOG_FORMAT);
  const created = createLogger({ level: config.LOG_LEVEL, name: 'ferry', pretty });
  // At a terminal the primary says it once: `shutting down` and `stopped` are not repeated here.
  const logger = pretty ? warningsOnly(created) : created;
  // Asked to stop before it was up: it stops as soon as it is.
  const drain: { stop?: (reason: string) => void; requested?: string } = {};
  const request = (reason: string): void => {
    drain.requested ??= reason;
    drain.stop?.(reason);
  };
  process.on('message', (message: unknown) => {
    if (isMessage(message, STOP)) request('primary');
  });
  // Ctrl-C reaches every process of the terminal's group; the primary relays it as STOP, so a
  // worker does not start its drain twice. A SIGTERM sent to a worker alone drains it.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => request('SIGTERM'));
  // The primary is gone (killed): drain rather than serve on unsupervised.
  process.on('disconnect', () => request('primary gone'));

  // The primary migrated and warned once for every worker.
  const ferry = await startAll(settings, {
    migrate: false,
    warn: false,
    quietStart: pretty,
    writerThread: true,
  });
  drain.stop = shutdownOnce(logger, () => ferry.stop());
  if (drain.requested) drain.stop(drain.requested);
  else process.send?.({ type: UP });
}
