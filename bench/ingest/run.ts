import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import pg from 'pg';
import { sql } from 'kysely';
import { createTestContext, type TestContext } from '@ferry/testing';
import { insertCeiling, jobShapedCeiling, type Target } from './ceiling.js';
import { benchErrorsPage } from './errors-page.js';
import { createBenchWorkspaces, runLoad, REPORTS_PER_REQUEST } from './load.js';
import { formatCpu, rssKb, startSampler } from './procs.js';
import { log, ms, perSecond, ratio, sleep, summarize, verdict } from './stats.js';

/**
 * issue #3's numbers: durable reports/s end to end, HTTP accept latency at 64 connections, the
 * ingest process's RSS, and the Errors page's first page; each next to a ceiling measured in the
 * same run. See bench/README.md and bench/RESULTS.md.
 *
 * BENCH_DURATION_S (default 20) and BENCH_CONNECTIONS (default 64) tune the load.
 */
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const WORKSPACES = 1_000;
const CLASSES_PER_WORKSPACE = 20;
const PORT = 20_000 + Math.floor(Math.random() * 10_000);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TARGETS = { durablePerSecond: 12_000, p99Ms: 30, pageMs: 50, rssMb: 300 };

/** One ingest child: INGEST_ROLE=http (the accept path) or worker (the writer), as compose runs them. */
function startIngest(ctx: TestContext, role: 'http' | 'worker'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'services/ingest-errors/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      ...ctx.env,
      PORT: String(PORT),
      INGEST_RATE_LIMIT_PER_MINUTE: '1000000000',
      LOG_LEVEL: 'warn',
      INGEST_ROLE: role,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function waitHealthy(child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`ingest exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('ingest did not become healthy in 20 s');
}

async function stored(ctx: TestContext): Promise<number> {
  const row = await sql<{ n: string | null }>`
    select sum(retained_occurrences) as n from error_workspace_stats`.execute(ctx.db);
  return Number(row.rows[0]?.n ?? 0);
}

async function allPresent(ctx: TestContext, ids: readonly string[]): Promise<number> {
  let present = 0;
  for (let i = 0; i < ids.length; i += 10_000) {
    const chunk = ids.slice(i, i + 10_000);
    const row = await sql<{ n: string }>`
      select count(*) as n from error_occurrences where id = any(${chunk}::text[])`.execute(ctx.db);
    present += Number(row.rows[0]?.n ?? 0);
  }
  return present;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The worker's own capacity, HTTP out of the way: with the worker stopped, the HTTP child queues
 * BACKLOG_S of load; then a fresh worker child drains that backlog alone. Rate = backlog rows /
 * (last row stored - first row stored), so the child's start-up is not counted.
 */
const BACKLOG_S = 10;

async function drainAlone(
  ctx: TestContext,
  publicKeys: readonly string[],
  worker: ChildProcess,
): Promise<{ rows: number; perSecond: number; rssMb: number }> {
  await stopChild(worker);
  const before = await stored(ctx);
  const load = await runLoad({
    port: PORT,
    connections: CONNECTIONS,
    durationMs: BACKLOG_S * 1000,
    publicKeys,
    classesPerWorkspace: CLASSES_PER_WORKSPACE,
  });
  const fresh = startIngest(ctx, 'worker');
  let maxRss = 0;
  const rssTimer = setInterval(() => {
    maxRss = Math.max(maxRss, rssKb(fresh.pid!) ?? 0);
  }, 200);
  try {
    let firstAt: number | undefined;
    const deadline = performance.now() + 300_000;
    for (;;) {
      const rows = (await stored(ctx)) - before;
      if (firstAt === undefined && rows > 0) firstAt = performance.now();
      if (rows >= load.accepted) break;
      if (performance.now() > deadline) throw new Error('the backlog did not drain');
      await sleep(50);
    }
    const seconds = (performance.now() - (firstAt ?? performance.now())) / 1000;
    return { rows: load.accepted, perSecond: load.accepted / seconds, rssMb: maxRss / 1024 };
  } finally {
    clearInterval(rssTimer);
    await stopChild(fresh);
  }
}

async function ingestBench(ctx: TestContext) {
  const workspaces = await createBenchWorkspaces(ctx, WORKSPACES);
  const publicKeys = workspaces.map((w) => w.public_key);
  const child = startIngest(ctx, 'http');
  const workerChild = startIngest(ctx, 'worker');
  const sampler = startSampler({ http: child.pid!, worker: workerChild.pid! });
  try {
    await waitHealthy(child);
    // Warm-up (JIT, pools, tenant cache): 3 s, drained, then not counted.
    const warm = await runLoad({
      port: PORT,
      connections: CONNECTIONS,
      durationMs: 3_000,
      publicKeys,
      classesPerWorkspace: CLASSES_PER_WORKSPACE,
    });
    while ((await stored(ctx)) < warm.accepted) await sleep(200);
    const baseline = await stored(ctx);

    const waitKey = `${ctx.config.REDIS_PREFIX}:error-ingest:wait`;
    const timeline: { at: number; rows: number; waiting: number }[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const [rows, waiting] = await Promise.all([stored(ctx), ctx.redis.llen(waitKey)]);
        timeline.push({ at: performance.now(), rows: rows - baseline, waiting });
        await sleep(250);
      }
    })();

    sampler.markCpu();
    const load = await runLoad({
      port: PORT,
      connections: CONNECTIONS,
      durationMs: DURATION_S * 1000,
      publicKeys,
      classesPerWorkspace: CLASSES_PER_WORKSPACE,
    });
    const cpuLoad = sampler.cpuSince();
    const atLoadEnd = timeline[timeline.length - 1] ?? { rows: 0, waiting: 0, at: 0 };
    sampler.markCpu();
    const drainDeadline = performance.now() + 300_000;
    while ((timeline[timeline.length - 1]?.rows ?? 0) < load.accepted) {
      if (performance.now() > drainDeadline) throw new Error('not all accepted rows arrived');
      await sleep(100);
    }
    const cpuDrain = sampler.cpuSince();
    polling = false;
    await poller;
    const lastRowAt = timeline.find((t) => t.rows >= load.accepted)!.at;
    const present = await allPresent(ctx, load.ids);
    const rssMb = sampler.maxRssMb();
    sampler.stop();
    const drain = await drainAlone(ctx, publicKeys, workerChild);

    // Worker throughput while draining (HTTP idle): rows and jobs per second after the load ended.
    const afterLoad = timeline.filter((t) => t.at >= load.lastAnsweredAt);
    const drainRows = load.accepted - (afterLoad[0]?.rows ?? load.accepted);
    const drainSeconds = (lastRowAt - (afterLoad[0]?.at ?? lastRowAt)) / 1000;
    const loadSeconds = (load.lastAnsweredAt - load.firstSentAt) / 1000;
    return {
      load,
      latency: summarize(load.latenciesMs),
      acceptedPerSecond: load.accepted / loadSeconds,
      durablePerSecond: load.accepted / ((lastRowAt - load.firstSentAt) / 1000),
      storedDuringLoad: atLoadEnd.rows / loadSeconds,
      waitingAtLoadEnd: atLoadEnd.waiting,
      drainPerSecond: drainSeconds > 0 ? drainRows / drainSeconds : Number.NaN,
      loadSeconds,
      endToEndSeconds: (lastRowAt - load.firstSentAt) / 1000,
      present,
      rssMb,
      cpuLoad,
      cpuDrain,
      drain,
    };
  } finally {
    sampler.stop();
    await Promise.all([stopChild(child), stopChild(workerChild)]);
  }
}

async function targetsOf(ctx: TestContext): Promise<Target[]> {
  const rows = await sql<{ workspace_id: string; ids: string[] }>`
    select workspace_id, array_agg(id order by id) as ids from error_groups
    group by workspace_id`.execute(ctx.db);
  return rows.rows.map((r) => ({ workspaceId: r.workspace_id, groupIds: r.ids }));
}

async function main(): Promise<void> {
  log(`# Ferry ingest benchmarks, ${new Date().toISOString()}`);
  log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ` +
      `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, load average ${os
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}`,
  );
  log(`node ${process.version}; ${execFileSync('psql', ['-V']).toString().trim()}`);
  log();

  const ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  let pageCtx: TestContext | undefined;
  try {
    log(
      `## Ingest: ${WORKSPACES} workspaces, batches of ${REPORTS_PER_REQUEST}, ` +
        `${CONNECTIONS} connections, ${DURATION_S} s`,
    );
    const r = await ingestBench(ctx);
    const failures = [...r.load.failures].map(([s, n]) => `${s}: ${n}`).join(', ') || 'none';
    log(`  requests ${r.load.requests} (non-202: ${failures}), accepted ${r.load.accepted}`);
    log(`  all accepted ids present in Postgres: ${r.present}/${r.load.ids.length}`);
    log(`  accepted (HTTP) ${perSecond(r.acceptedPerSecond)} over ${r.loadSeconds.toFixed(1)} s`);
    log(
      `  stored while loading ${perSecond(r.storedDuringLoad)}; queue backlog at load end ` +
        `${r.waitingAtLoadEnd} jobs; drain after load ${perSecond(r.drainPerSecond)} ` +
        `(${perSecond(r.drainPerSecond / REPORTS_PER_REQUEST)} jobs)`,
    );
    log(
      `  durable end to end ${perSecond(r.durablePerSecond)} ` +
        `(${r.load.accepted} in ${r.endToEndSeconds.toFixed(1)} s)`,
    );
    log(
      `  latency p50 ${ms(r.latency.p50)}, p95 ${ms(r.latency.p95)}, p99 ${ms(r.latency.p99)}, ` +
        `max ${ms(r.latency.max)}`,
    );
    log(
      `  ingest max RSS: http ${r.rssMb.http.toFixed(0)} MB, worker ${r.rssMb.worker.toFixed(0)} MB`,
    );
    log(`  CPU during load: ${formatCpu(r.cpuLoad)}`);
    log(`  CPU during drain: ${formatCpu(r.cpuDrain)}`);
    log(
      `  worker alone, draining a ${BACKLOG_S} s backlog (${r.drain.rows} reports): ` +
        `${perSecond(r.drain.perSecond)}; its max RSS ${r.drain.rssMb.toFixed(0)} MB`,
    );
    log();

    log('## Ceilings on the same database (plain pg, same rows)');
    const pool = new pg.Pool({ connectionString: ctx.config.DATABASE_URL, max: 16 });
    let ceilings: Record<string, number>;
    try {
      const targets = await targetsOf(ctx);
      ceilings = {
        'multi-row INSERT, 10 rows, 4 connections': await insertCeiling(
          pool,
          targets,
          60_000,
          10,
          4,
        ),
        'multi-row INSERT, 500 rows, 2 connections': await insertCeiling(
          pool,
          targets,
          200_000,
          500,
          2,
        ),
        'job-shaped tx, 1 job/tx, 4 connections (the worker before batching)':
          await jobShapedCeiling(pool, targets, 4_000, 1, 4),
        'job-shaped tx, 1 job/tx, 16 connections': await jobShapedCeiling(
          pool,
          targets,
          4_000,
          1,
          16,
        ),
        'job-shaped tx, 10 jobs/tx, 4 connections': await jobShapedCeiling(
          pool,
          targets,
          8_000,
          10,
          4,
        ),
        'job-shaped tx, 50 jobs/tx, 2 connections': await jobShapedCeiling(
          pool,
          targets,
          10_000,
          50,
          2,
        ),
      };
    } finally {
      await pool.end();
    }
    for (const [name, value] of Object.entries(ceilings)) log(`  ${name}: ${perSecond(value)}`);
    const ceiling = ceilings['multi-row INSERT, 500 rows, 2 connections']!;
    const ceiling10 = ceilings['multi-row INSERT, 10 rows, 4 connections']!;
    log();

    log('## Errors page: 1,000,000 occurrences, target workspace 20,000 in 2,000 groups');
    pageCtx = await createTestContext({ LOG_LEVEL: 'warn' });
    const page = await benchErrorsPage(pageCtx);
    log();

    log('## Summary (target from issue #3)');
    log(
      `  durable reports/s: ${perSecond(r.durablePerSecond)} vs ceiling ${perSecond(ceiling)} ` +
        `(500-row INSERT; ${ratio(r.durablePerSecond, ceiling)}); vs 10-row INSERT ` +
        `${perSecond(ceiling10)} (${ratio(r.durablePerSecond, ceiling10)}); target >= ` +
        `${perSecond(TARGETS.durablePerSecond)}: ${verdict(r.durablePerSecond >= TARGETS.durablePerSecond)}`,
    );
    log(
      `  accept p99 at ${CONNECTIONS} connections: ${ms(r.latency.p99)}; target <= ` +
        `${TARGETS.p99Ms} ms: ${verdict(r.latency.p99 <= TARGETS.p99Ms)}`,
    );
    if (page.http) {
      log(
        `  Errors page GET (signed-in member): p50 ${ms(page.http.p50)}, p95 ${ms(page.http.p95)}; ` +
          `page SQL p50 ${ms(page.sql.p50)}; ceiling select 1 p50 ${ms(page.ceiling.p50)} ` +
          `(page = ${(page.http.p50 / page.ceiling.p50).toFixed(1)}x); target <= ` +
          `${TARGETS.pageMs} ms: ${verdict(page.http.p95 <= TARGETS.pageMs)}`,
      );
    } else {
      log(
        `  Errors page SQL p50 ${ms(page.sql.p50)}, p95 ${ms(page.sql.p95)} (page answered ` +
          `${page.httpStatus}); target <= ${TARGETS.pageMs} ms: ${verdict(page.sql.p95 <= TARGETS.pageMs)}`,
      );
    }
    log(
      `  ingest max RSS http ${r.rssMb.http.toFixed(0)} MB, worker ` +
        `${r.rssMb.worker.toFixed(0)} MB; target < ${TARGETS.rssMb} MB each: ` +
        `${verdict(Math.max(r.rssMb.http, r.rssMb.worker) < TARGETS.rssMb)}`,
    );
  } finally {
    await ctx.close();
    await pageCtx?.close();
  }
}

await main();
