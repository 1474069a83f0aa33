import os from 'node:os';
import { newId } from '@ferry/core';
import type { JobPayload } from '@ferry/queues';
import { createTestContext, createWorkspace } from '@ferry/testing';
import {
  fingerprint,
  parseBatch,
  parseJob,
  writeErrorBatch,
  type WriteErrorsDeps,
} from '@ferry/ingest-errors';
import { createErrorsAnnouncer, liveChannelKey } from '@ferry/workspace';
import { log } from './stats.js';

/**
 * Issue 26 part 4: what the live Errors list's announcement costs the error writer. In one
 * process, against real Postgres and Redis: full batches (100 jobs of 10 reports over 100
 * workspaces, 20 classes each, as the worker's batcher cuts them at load) written by the real
 * writeErrorBatch, rounds alternating announcer off and on (one publish per batch, after commit,
 * heard by a subscriber as a web process would be). Writer throughput per round, and the median
 * of each side.
 *
 * BENCH_ROUNDS (default 6 of each), BENCH_BATCHES (default 15 per round).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 15);
const WORKSPACES = 100;
const CLASSES = 20;
const JOBS_PER_BATCH = 100;
const REPORTS_PER_JOB = 10;

const ctx = await createTestContext();
const workspaces = await Promise.all(
  Array.from({ length: WORKSPACES }, () => createWorkspace(ctx.db)),
);
const subscriber = ctx.redis.duplicate();
let heard = 0;
subscriber.on('message', () => (heard += 1));
await subscriber.subscribe(`${liveChannelKey(ctx.config.REDIS_PREFIX)}-request#/#`);

const off: WriteErrorsDeps = {
  db: ctx.db,
  logger: ctx.logger,
  retentionLimit: 1_000_000,
  random: () => 1,
};
const on: WriteErrorsDeps = {
  ...off,
  announcer: createErrorsAnnouncer(ctx.redis, ctx.config.REDIS_PREFIX, ctx.logger),
};

let variant = 0;
function batch(): JobPayload<'error-ingest'>[] {
  return Array.from({ length: JOBS_PER_BATCH }, (_, j) => {
    variant += 1;
    const raw = Array.from({ length: REPORTS_PER_JOB }, (_, i) => ({
      error_class: `BenchError${(variant * REPORTS_PER_JOB + i) % CLASSES}`,
      message: `Something failed while handling request ${variant}-${i}`,
      backtrace: [`at handler (https://app.example.test/assets/app.js:${i}:17)`],
      environment: i % 2 ? 'production' : 'staging',
    }));
    const reports = parseBatch({ errors: raw, source: 'js' }, new Date()).reports.map((r) => ({
      ...r,
      id: newId('errorOccurrence'),
      fingerprint: fingerprint(r),
    }));
    return {
      workspaceId: workspaces[j % WORKSPACES]!.id,
      visitorId: null,
      receivedAt: new Date().toISOString(),
      reports,
    };
  });
}

async function round(deps: WriteErrorsDeps): Promise<number> {
  const batches = Array.from({ length: BATCHES }, () => batch().map(parseJob));
  const started = performance.now();
  for (const jobs of batches) await writeErrorBatch(deps, jobs);
  const seconds = (performance.now() - started) / 1_000;
  return (BATCHES * JOBS_PER_BATCH * REPORTS_PER_JOB) / seconds;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

log(
  `load average before: ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ')}`,
);
await round(off); // warm-up: every group exists from here on
const results = { off: [] as number[], on: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  // Alternating which side goes first, so a drift in the host's load favours neither.
  const order = r % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const);
  for (const side of order) {
    const rate = await round(side === 'on' ? on : off);
    results[side].push(rate);
    log(`  round ${r + 1}, announce ${side}: ${Math.round(rate)} reports/s written`);
  }
}
log(
  `load average after: ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ')}`,
);
const [mOff, mOn] = [median(results.off), median(results.on)];
log(
  `median off ${Math.round(mOff)}, on ${Math.round(mOn)} reports/s (on vs off ${(((mOn - mOff) / mOff) * 100).toFixed(1)}%); announcements heard: ${heard} (expected ${ROUNDS * BATCHES})`,
);
subscriber.disconnect();
await ctx.close();
