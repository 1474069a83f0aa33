import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { sql } from 'kysely';
import { createTestContext, type TestContext } from '@ferry/testing';
import { basePort, sleep, startService, stopChild, waitHealthy } from '../lib/children.js';
import { closedLoop, postJson, type Answer } from '../lib/closed-loop.js';
import { openLoop } from '../lib/open-loop.js';
import { cpuSampler, formatCpu, type CpuShares } from '../webhooks/procs.js';
import { insertCeiling } from './ceiling.js';
import { createBenchWorkspaces, REPORTS_PER_REQUEST, reportBody } from './load.js';
import { log, ms, perSecond, summarize, verdict } from './stats.js';

/**
 * Issue #12's ingest figures: accept latency under a fixed offered load (open loop, 600 requests
 * of 10 reports a second) and durable reports/s at saturation (closed loop, 64 connections), for
 * the split deployment with 1 HTTP + 1 worker process, 2 + 2, and the all-in-one `pnpm start`
 * process; next to ceilings measured in the same run (a plain node server answering 202 at the
 * same offered rate, and a 500-row INSERT). CPU per process from /proc, and CPU per report.
 *
 * BENCH_OPEN_RATE (600 requests/s), BENCH_OPEN_S (15), BENCH_THRU_S (15), BENCH_DEPLOYMENTS
 * (split-1x1,split-2x2,all) tune it.
 */
const OPEN_RATE = Number(process.env.BENCH_OPEN_RATE ?? 600);
const OPEN_S = Number(process.env.BENCH_OPEN_S ?? 15);
const THRU_S = Number(process.env.BENCH_THRU_S ?? 15);
const CONNECTIONS = 64;
const WORKSPACES = 1_000;
const CLASSES = 20;
const DEPLOYMENTS = (process.env.BENCH_DEPLOYMENTS ?? 'split-1x1,split-2x2,all').split(',');
const GOALS = { durablePerSecond: 12_000, openP99Ms: 30 };

interface Deployment {
  name: string;
  children: Record<string, ChildProcess>;
  ports: number[];
}

function serviceEnv(ctx: TestContext, port: number, extra: Record<string, string> = {}) {
  return {
    ...ctx.env,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    INGEST_RATE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

async function startDeployment(ctx: TestContext, name: string, port: number): Promise<Deployment> {
  const children: Record<string, ChildProcess> = {};
  const ports: number[] = [];
  if (name === 'all') {
    children.all = startService('services/all/src/main.ts', serviceEnv(ctx, port));
    ports.push(port);
  } else {
    const [http, workers] = name.replace('split-', '').split('x').map(Number) as [number, number];
    for (let i = 0; i < http; i++) {
      children[`http${i + 1}`] = startService(
        'services/ingest-errors/src/main.ts',
        serviceEnv(ctx, port + i, { INGEST_ROLE: 'http' }),
      );
      ports.push(port + i);
    }
    for (let i = 0; i < workers; i++) {
      children[`worker${i + 1}`] = startService(
        'services/ingest-errors/src/main.ts',
        serviceEnv(ctx, port + 50 + i, { INGEST_ROLE: 'worker' }),
      );
    }
  }
  const first = Object.values(children)[0]!;
  await Promise.all(ports.map((p) => waitHealthy(first, p)));
  // Workers have no HTTP server: give them the time to connect and start polling.
  await sleep(1_500);
  return { name, children, ports };
}

async function stored(ctx: TestContext): Promise<number> {
  const row = await sql<{ n: string | null }>`
    select sum(retained_occurrences) as n from error_workspace_stats`.execute(ctx.db);
  return Number(row.rows[0]?.n ?? 0);
}

async function present(ctx: TestContext, ids: readonly string[]): Promise<number> {
  let found = 0;
  for (let i = 0; i < ids.length; i += 10_000) {
    const chunk = ids.slice(i, i + 10_000);
    const row = await sql<{ n: string }>`
      select count(*) as n from error_occurrences where id = any(${chunk}::text[])`.execute(ctx.db);
    found += Number(row.rows[0]?.n ?? 0);
  }
  return found;
}

/** Waits until `target` reports are stored; returns when the last of them was (performance.now). */
async function storedAt(ctx: TestContext, target: number): Promise<number> {
  const deadline = performance.now() + 300_000;
  while ((await stored(ctx)) < target) {
    if (performance.now() > deadline) throw new Error(`${target} reports never stored`);
    await sleep(25);
  }
  return performance.now();
}

function requestSender(ports: readonly number[], publicKeys: readonly string[]) {
  const bodies = Array.from({ length: 256 }, (_, i) => reportBody(i, CLASSES));
  return (agent: Parameters<typeof postJson>[0], n: number): Promise<Answer> =>
    postJson(agent, ports[n % ports.length]!, '/ingest/errors', bodies[n % bodies.length]!, {
      'X-Service-Tenant': publicKeys[n % publicKeys.length]!,
    });
}

function collector() {
  const ids: string[] = [];
  return {
    ids,
    isSuccess: (answer: Answer): boolean => {
      if (answer.status !== 202) return false;
      for (const id of (JSON.parse(answer.text) as { ids: string[] }).ids) ids.push(id);
      return true;
    },
  };
}

const failuresOf = (failures: Map<number, number>): string =>
  [...failures].map(([status, n]) => `${status}: ${n}`).join(', ') || 'none';

/** Node CPU (all of the deployment's children), Postgres and Redis, in ms of CPU per report. */
function cpuPerReport(cpu: CpuShares, names: readonly string[], seconds: number, reports: number) {
  const node = names.reduce((sum, name) => sum + (cpu[name] ?? 0), 0);
  const per = (cores: number) => ((cores * seconds * 1000) / reports).toFixed(3);
  return `node ${per(node)} ms, postgres ${per(cpu.postgres ?? 0)} ms, redis ${per(cpu.redis ?? 0)} ms`;
}

interface DeploymentFigures {
  openP99: number;
  durablePerSecond: number;
}

async function measure(
  ctx: TestContext,
  deployment: Deployment,
  publicKeys: readonly string[],
): Promise<DeploymentFigures> {
  const send = requestSender(deployment.ports, publicKeys);
  const names = Object.keys(deployment.children);
  const pids = Object.fromEntries(names.map((name) => [name, deployment.children[name]!.pid]));
  const cpu = cpuSampler(pids);
  log(`## ${deployment.name} (${names.join(', ')})`);

  // Warm-up: JIT, pools, the tenant cache; then its backlog is written before anything counts.
  let base = await stored(ctx);
  const warm = collector();
  await closedLoop({
    connections: CONNECTIONS,
    durationMs: 3_000,
    send,
    isSuccess: warm.isSuccess,
  });
  await storedAt(ctx, base + warm.ids.length);
  base = await stored(ctx);

  // Open loop: latency at a fixed offered rate.
  const open = collector();
  cpu.mark();
  const offered = await openLoop({
    rate: OPEN_RATE,
    durationMs: OPEN_S * 1000,
    send,
    isSuccess: open.isSuccess,
  });
  const openCpu = cpu.since();
  const lat = summarize(offered.latenciesMs);
  const openDone = await storedAt(ctx, base + open.ids.length);
  log(
    `  open loop: ${OPEN_RATE} requests/s offered (${perSecond(OPEN_RATE * REPORTS_PER_REQUEST)} ` +
      `reports), ${offered.offered} sent at ${offered.sentRate.toFixed(0)}/s (generator lag p99 ` +
      `${ms(offered.sendLagP99Ms)}); non-202: ${failuresOf(offered.failures)}`,
  );
  log(
    `  accept latency p50 ${ms(lat.p50)}, p95 ${ms(lat.p95)}, p99 ${ms(lat.p99)}, max ${ms(lat.max)}; ` +
      `all stored ${ms(openDone - offered.lastAnsweredAt)} after the last answer`,
  );
  log(`  CPU: ${formatCpu(openCpu)}`);
  log(`  CPU per report: ${cpuPerReport(openCpu, names, OPEN_S, open.ids.length)}`);

  // Closed loop: durable reports/s at saturation.
  base = await stored(ctx);
  const thru = collector();
  cpu.mark();
  const loop = await closedLoop({
    connections: CONNECTIONS,
    durationMs: THRU_S * 1000,
    send,
    isSuccess: thru.isSuccess,
  });
  const lastStoredAt = await storedAt(ctx, base + thru.ids.length);
  const thruCpu = cpu.since();
  const seconds = (lastStoredAt - loop.firstSentAt) / 1000;
  const durablePerSecond = thru.ids.length / seconds;
  const acceptedPerSecond = thru.ids.length / ((loop.lastAnsweredAt - loop.firstSentAt) / 1000);
  const found = await present(ctx, [...open.ids, ...thru.ids]);
  log(
    `  closed loop, ${CONNECTIONS} connections, ${THRU_S} s: accepted ${perSecond(acceptedPerSecond)}, ` +
      `durable ${perSecond(durablePerSecond)} (${thru.ids.length} in ${seconds.toFixed(1)} s); ` +
      `non-202: ${failuresOf(loop.failures)}`,
  );
  log(`  CPU: ${formatCpu(thruCpu)}`);
  log(`  CPU per report: ${cpuPerReport(thruCpu, names, seconds, thru.ids.length)}`);
  log(`  accepted ids present: ${found}/${open.ids.length + thru.ids.length}`);
  log();
  return { openP99: lat.p99, durablePerSecond };
}

async function httpCeiling(port: number, publicKeys: readonly string[]) {
  const child = startService('bench/ingest/ceiling-http.ts', { PORT: String(port) });
  try {
    await waitHealthy(child, port);
    const send = requestSender([port], publicKeys);
    const cpu = cpuSampler({ ceiling: child.pid });
    await closedLoop({ connections: CONNECTIONS, durationMs: 2_000, send, isSuccess: () => true });
    cpu.mark();
    const offered = await openLoop({
      rate: OPEN_RATE,
      durationMs: OPEN_S * 1000,
      send,
      isSuccess: (a) => a.status === 202,
    });
    const openCpu = cpu.since();
    const loop = await closedLoop({
      connections: CONNECTIONS,
      durationMs: 5_000,
      send,
      isSuccess: (a) => a.status === 202,
    });
    const rate =
      (loop.latenciesMs.length * REPORTS_PER_REQUEST) /
      ((loop.lastAnsweredAt - loop.firstSentAt) / 1000);
    return { latency: summarize(offered.latenciesMs), openCpu, rate };
  } finally {
    await stopChild(child);
  }
}

async function main(): Promise<void> {
  log(`# Ferry ingest scale bench (issue #12), ${new Date().toISOString()}`);
  log(
    `machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
      `load average at start ${os
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}; node ${process.version}`,
  );
  log();
  const port = basePort();
  const summary: { name: string; figures: DeploymentFigures }[] = [];
  for (const name of DEPLOYMENTS) {
    // A fresh database and Redis prefix per deployment: each starts from the same empty state.
    const ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    try {
      const publicKeys = (await createBenchWorkspaces(ctx, WORKSPACES)).map((w) => w.public_key);
      const deployment = await startDeployment(ctx, name, port);
      try {
        summary.push({ name, figures: await measure(ctx, deployment, publicKeys) });
      } finally {
        await Promise.all(Object.values(deployment.children).map(stopChild));
      }
      if (name === DEPLOYMENTS[DEPLOYMENTS.length - 1]) {
        log('## Ceilings, same run');
        const ceiling = await httpCeiling(port + 100, publicKeys);
        log(
          `  plain node server answering 202, open loop ${OPEN_RATE}/s: p50 ${ms(ceiling.latency.p50)}, ` +
            `p99 ${ms(ceiling.latency.p99)}; its CPU ${formatCpu(ceiling.openCpu)}`,
        );
        log(
          `  same server, closed loop ${CONNECTIONS} connections: ${perSecond(ceiling.rate)} reports`,
        );
        const pool = new pg.Pool({ connectionString: ctx.config.DATABASE_URL, max: 4 });
        try {
          const groups = await sql<{ workspace_id: string; ids: string[] }>`
            select workspace_id, array_agg(id order by id) as ids from error_groups
            group by workspace_id`.execute(ctx.db);
          const targets = groups.rows.map((r) => ({
            workspaceId: r.workspace_id,
            groupIds: r.ids,
          }));
          const insert = await insertCeiling(pool, targets, 200_000, 500, 2);
          log(`  multi-row INSERT of occurrences, 500 rows, 2 connections: ${perSecond(insert)}`);
          log();
          log('## Summary against issue #12');
          for (const { name: dep, figures } of summary) {
            log(
              `  ${dep}: open-loop p99 ${ms(figures.openP99)} (goal <= ${GOALS.openP99Ms} ms: ` +
                `${verdict(figures.openP99 <= GOALS.openP99Ms)}; ceiling p99 ${ms(ceiling.latency.p99)}); ` +
                `durable ${perSecond(figures.durablePerSecond)} (goal ${perSecond(GOALS.durablePerSecond)}: ` +
                `${verdict(figures.durablePerSecond >= GOALS.durablePerSecond)}, ` +
                `${((figures.durablePerSecond / GOALS.durablePerSecond) * 100).toFixed(0)}% of the goal; ` +
                `${((figures.durablePerSecond / insert) * 100).toFixed(0)}% of the INSERT ceiling)`,
            );
          }
        } finally {
          await pool.end();
        }
      }
    } finally {
      await ctx.close();
    }
  }
}

await main();
