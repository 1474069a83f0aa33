import os from 'node:os';
import { createTestContext, startPgBouncer } from '@ferry/testing';
import { REPORTS_PER_REQUEST } from '../ingest/load.js';
import { log, ms, perSecond } from '../ingest/stats.js';
import { basePort } from '../lib/children.js';
import { loadAverage } from './cpu.js';
import { BENCH_OVERRIDES, seedWorkspaces, startFerry, stopFerry } from './ferry.js';
import { runPhase, secondsFrom, type Phase } from './measure.js';
import type { LoadSpec } from './spec.js';

/**
 * Issue 47, PgBouncer: `pnpm start`'s ingest rate with DATABASE_URL to Postgres directly, then
 * through PgBouncer in transaction mode (Debian's, started here as the tests start it, pool of 20)
 * with DATABASE_DIRECT_URL direct, in the same run on the same database and workspaces. Each mode
 * is a fresh `pnpm start`; its phases: an open loop at a fixed offered rate (latency at a rate
 * both sustain) and a closed loop (what each stores at most). Rates count reports stored, first
 * request to last stored. Load average before and after; BENCH_LABEL says what else ran.
 *
 *   BENCH_LABEL=quiet FERRY_PROCESSES=1 pnpm --filter @ferry/bench bench:pgbouncer
 *   BENCH_ORDER=pgbouncer,direct ...   (the pooled run first)
 */
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 10) * 1000;
const WARM_MS = Number(process.env.BENCH_WARM_S ?? 5) * 1000;
const INGEST_RATE = Number(process.env.BENCH_INGEST_RATE ?? 4_000);
const WORKSPACES = Number(process.env.BENCH_WORKSPACES ?? 20);
const LABEL = process.env.BENCH_LABEL ?? 'unlabelled';

const ingest = (mode: LoadSpec['mode'], port: number, keys: string[]): LoadSpec => ({
  surface: 'ingest',
  mode,
  port,
  rate: INGEST_RATE / REPORTS_PER_REQUEST,
  connections: 64,
  durationMs: DURATION_MS,
  keys,
  classes: 20,
});

const storedRate = (p: Phase): string =>
  p.storedAt === undefined
    ? 'not all stored'
    : perSecond(p.outcome.units / secondsFrom(p.outcome, p.storedAt));
const failures = (p: Phase): number => Object.values(p.outcome.failures).reduce((a, b) => a + b, 0);

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  log(`# pnpm start's ingest, direct vs through PgBouncer (issue 47), ${new Date().toISOString()}`);
  log(`label: ${LABEL}; load average before: ${loadBefore}`);
  log(
    `machine: ${os.hostname()}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; ` +
      `node ${process.version}; FERRY_PROCESSES=${process.env.FERRY_PROCESSES ?? 'unset'}; ` +
      `measured ${DURATION_MS / 1000} s, warm-up ${WARM_MS / 1000} s at half rate`,
  );
  const port = basePort();
  const ctx = await createTestContext();
  const bouncer = await startPgBouncer(ctx.config.DATABASE_URL);
  const settings: Record<string, Record<string, string>> = {
    direct: {},
    pgbouncer: {
      DATABASE_URL: bouncer.pooledUrl(ctx.config.DATABASE_URL),
      DATABASE_DIRECT_URL: ctx.config.DATABASE_URL,
    },
  };
  // The second mode runs on a database the first has filled: BENCH_ORDER swaps them to see that.
  const modes = (process.env.BENCH_ORDER ?? 'direct,pgbouncer')
    .split(',')
    .map((name) => [name, settings[name]] as const);
  if (modes.some(([, env]) => !env)) throw new Error('BENCH_ORDER: direct and pgbouncer only');
  const results: Record<string, { open: Phase; closed: Phase }> = {};
  try {
    let keys: string[] | undefined;
    for (const [name, env] of modes) {
      const ferry = await startFerry(ctx, port, env);
      try {
        keys ??= (await seedWorkspaces(ctx, port, WORKSPACES)).map((s) => s.workspace.public_key);
        log(`\n## ${name}: pnpm start on ${port} (log: ${ferry.logFile})`);
        const product = { ctx, pid: ferry.child.pid! };
        const open = await runPhase({
          title: `${name}: ingest, open loop`,
          spec: ingest('open', port, keys),
          warmMs: WARM_MS,
          product,
        });
        const closed = await runPhase({
          title: `${name}: ingest, closed loop`,
          spec: ingest('closed', port, keys),
          warmMs: 0,
          product,
        });
        results[name] = { open, closed };
      } finally {
        await stopFerry(ferry);
      }
    }
  } finally {
    await bouncer.close();
    await ctx.close();
  }
  const loadAfter = loadAverage();
  log(`\n## Summary (${LABEL}; load average before ${loadBefore}, after ${loadAfter})`);
  log(
    `set for the bench: ${Object.entries(BENCH_OVERRIDES)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
  );
  log(
    '| DATABASE_URL | open loop: offered, stored | p50 / p99 | closed loop (64 conn.): stored | p50 / p99 | failed |',
  );
  log('| --- | --- | --- | --- | --- | --- |');
  for (const [name, { open, closed }] of Object.entries(results)) {
    log(
      `| ${name} | ${perSecond(INGEST_RATE)} → ${storedRate(open)} | ` +
        `${ms(open.outcome.latency.p50)} / ${ms(open.outcome.latency.p99)} | ${storedRate(closed)} | ` +
        `${ms(closed.outcome.latency.p50)} / ${ms(closed.outcome.latency.p99)} | ` +
        `${failures(open) + failures(closed)} |`,
    );
  }
}

await main();
