import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import {
  createApiToken,
  createTestContext,
  createWorkspace,
  runSentryCli,
  THROW_LINE,
  type SentryCliTarget,
  type TestContext,
} from '@ferry/testing';
import { basePort, ROOT, sleep, startService, stopChild, waitHealthy } from '../lib/children.js';
import { insertCeiling } from '../ingest/ceiling.js';
import { formatCpu, rssKb, startSampler, type CpuShares } from '../ingest/procs.js';
import { log, ms, perSecond } from '../ingest/stats.js';
import { loadAverage } from '../start/cpu.js';
import { buildBenchApp, type BenchApp } from './app.js';
import { browserEnvelope, injectedDebugId, throwFrames } from './event.js';
import type { LoadOutcome, LoadSpec } from './load.js';

/**
 * Issue 41's bench line: durable ingest of @sentry/browser events whose frames are minified and
 * mapped through source maps uploaded by sentry-cli, against the same events with no maps, in the
 * same run; and the writer's RSS with BENCH_BUILDS (50) distinct maps in use.
 *
 * The product is started fresh from its own entry: one INGEST_ROLE=http child and one
 * INGEST_ROLE=worker child (the writer, where the frames are mapped). BENCH_BUILDS builds of a
 * shop app (bench/sourcemaps/app.ts: esbuild, minified, each its own bundle and map) get debug
 * IDs injected and their maps uploaded by the real sentry-cli to the running service, into one
 * workspace ("mapped"); a second workspace ("unmapped") has none. Each build's bundle is run to
 * read the real throw's frames (bench/sourcemaps/event.ts), and one envelope per build is what
 * @sentry/browser sends for it, with the build's debug_meta image. Both workspaces get the same
 * envelopes, round robin over the builds (so all the maps cycle through the writer's cache),
 * from a load generator in its own process at a fixed offered rate (open loop): a warm-up at half
 * the rate for each, then phases mapped, unmapped, unmapped, mapped (ABBA, so a neighbour's load
 * on a shared host hits both). Durable = events accepted in the phase / (first due -> last of
 * them stored in Postgres, from the groups' counters). The same generator against a bare node
 * server (ingest/ceiling-http.ts) at the same rate, and a 500-row INSERT of occurrences, are the
 * ceilings of the same run. Load average before and after; BENCH_LABEL says what else ran.
 *
 *   BENCH_LABEL=quiet pnpm --filter @ferry/bench run bench:sourcemaps
 *
 * BENCH_RATE (events/s offered, 1,000), BENCH_DURATION_S (6), BENCH_WARM_S (3), BENCH_BUILDS
 * (50), BENCH_HELPERS (700: the UI library's helper functions, about 0.5 MB of map a build).
 * BENCH_CPU_PROF=<dir> profiles the children (bench/lib/children.ts; not for RESULTS).
 */
const RATE = Number(process.env.BENCH_RATE ?? 1_000);
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 6) * 1000;
const WARM_MS = Number(process.env.BENCH_WARM_S ?? 3) * 1000;
const BUILDS = Number(process.env.BENCH_BUILDS ?? 50);
const HELPERS = Number(process.env.BENCH_HELPERS ?? 700);
const LABEL = process.env.BENCH_LABEL ?? 'unlabelled';
const TARGET_RATIO = 0.7;
const DRAIN_MS = 300_000;

/** sentry-cli through services/ingest-errors' own dependency (its tests run the same binary). */
const { SentryCli } = createRequire(join(ROOT, 'services/ingest-errors/package.json'))(
  '@sentry/cli',
) as { SentryCli: { getPath(): string } };

/** Reports stored for a workspace: its groups' counters (pruning cannot lower them). */
async function stored(ctx: TestContext, workspaceId: string): Promise<number> {
  const row = await sql<{ n: string | null }>`
    select sum(occurrence_count) as n from error_groups
    where workspace_id = ${workspaceId}`.execute(ctx.db);
  return Number(row.rows[0]?.n ?? 0);
}

/** Until `target` reports are stored for the workspace; when (wall clock ms), or undefined. */
async function storedBy(ctx: TestContext, workspaceId: string, target: number) {
  const deadline = Date.now() + DRAIN_MS;
  while ((await stored(ctx, workspaceId)) < target) {
    if (Date.now() > deadline) return undefined;
    await sleep(25);
  }
  return Date.now();
}

/** One load run in its own process (bench/sourcemaps/load.ts); its one JSON line is the outcome. */
function generate(spec: LoadSpec): Promise<LoadOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/sourcemaps/load.ts', JSON.stringify(spec)],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) {
        reject(new Error(`load generator exited with ${code}: ${out.slice(-500)}`));
        return;
      }
      resolve(JSON.parse(line) as LoadOutcome);
    });
  });
}

/** `count` items through `task`, `concurrency` at a time, in order. */
async function inPool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>) {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

async function cli(target: SentryCliTarget, args: string[], app: BenchApp): Promise<void> {
  const result = await runSentryCli(target, args, app.root);
  if (result.code !== 0) throw new Error(`sentry-cli ${args.join(' ')}: ${result.stderr}`);
}

interface PhaseResult {
  name: string;
  outcome: LoadOutcome;
  durable: number;
  storedDuringLoad: number;
  drainMs: number;
  workerRssMb: number;
  httpRssMb: number;
  cpu: CpuShares;
  /** The CPU window (generator start -> last event stored), seconds. */
  cpuSeconds: number;
}

const failuresOf = (failures: Record<string, number>): string =>
  Object.entries(failures)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ') || 'none';

async function main(): Promise<void> {
  log(`# Ferry ingest: minified frames mapped through uploaded source maps (issue 41)`);
  log(
    `${new Date().toISOString()}; label: ${LABEL}; ${os.cpus().length} cores (nproc), ` +
      `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; node ${process.version}; load average at ` +
      `start ${loadAverage()}`,
  );
  log(
    `offered ${perSecond(RATE)} events (1 a request, open loop), ${DURATION_MS / 1000} s a phase ` +
      `after a ${WARM_MS / 1000} s warm-up at half rate; ${BUILDS} builds, ${HELPERS} library helpers each`,
  );
  const ctx = await createTestContext({ LOG_LEVEL: 'warn' });
  const port = basePort();
  const env = {
    ...ctx.env,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    INGEST_RATE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'warn',
  };
  const http = startService('services/ingest-errors/src/main.ts', {
    ...env,
    PORT: String(port),
    INGEST_ROLE: 'http',
  });
  const worker = startService('services/ingest-errors/src/main.ts', {
    ...env,
    PORT: String(port + 50),
    INGEST_ROLE: 'worker',
  });
  const scratch = await mkdtemp(join(os.tmpdir(), 'ferry-bench-sourcemaps-'));
  const apps: BenchApp[] = [];
  try {
    await waitHealthy(http, port);
    const mappedWs = await createWorkspace(ctx.db, { name: 'Shop (maps uploaded)' });
    const unmappedWs = await createWorkspace(ctx.db, { name: 'Shop (no maps)' });
    const token = await createApiToken(ctx.db, mappedWs, { scopes: ['releases:write'] });
    const target: SentryCliTarget = {
      binary: SentryCli.getPath(),
      url: `http://127.0.0.1:${port}`,
      token: token.raw,
      org: mappedWs.slug,
    };

    // The builds, their debug IDs injected and their bundles uploaded by sentry-cli, as a user's
    // CI does after each build; then each build's real throw location and its event.
    const setupStarted = performance.now();
    const envelopes = await inPool(BUILDS, 2, async (variant) => {
      const app = await buildBenchApp(variant, HELPERS);
      apps.push(app);
      await cli(target, ['sourcemaps', 'inject', 'dist'], app);
      await cli(target, ['sourcemaps', 'upload', 'dist'], app);
      const frames = await throwFrames(app);
      return browserEnvelope(frames, await injectedDebugId(app), `shop@1.0.${variant}`);
    });
    const maps = await sql<{ n: string; bytes: string }>`
      select count(*) as n, sum(octet_length(content)) as bytes from artifact_files
      where workspace_id = ${mappedWs.id} and kind = 'source_map'`.execute(ctx.db);
    const mapCount = Number(maps.rows[0]?.n ?? 0);
    const mapBytes = Number(maps.rows[0]?.bytes ?? 0);
    if (mapCount !== BUILDS) throw new Error(`${mapCount} maps stored, ${BUILDS} uploaded`);
    log(
      `setup: ${BUILDS} builds injected and uploaded by sentry-cli in ` +
        `${((performance.now() - setupStarted) / 1000).toFixed(1)} s; ${mapCount} maps stored, ` +
        `${(mapBytes / 2 ** 20).toFixed(1)} MB (${(mapBytes / mapCount / 1024).toFixed(0)} KB each); ` +
        `envelope ${Buffer.byteLength(envelopes[0]!)} bytes, ` +
        `${(JSON.parse(envelopes[0]!.split('\n')[2]!) as { exception: { values: { stacktrace: { frames: unknown[] } }[] } }).exception.values[0]!.stacktrace.frames.length} frames`,
    );
    const bodiesFile = join(scratch, 'envelopes.json');
    await writeFile(bodiesFile, JSON.stringify(envelopes));
    const idleWorkerRss = (rssKb(worker.pid!) ?? 0) / 1024;
    log(`worker RSS before any event: ${idleWorkerRss.toFixed(0)} MB`);
    log();

    const workspaces = { mapped: mappedWs, unmapped: unmappedWs };
    const sampler = startSampler({ http: http.pid!, worker: worker.pid! });
    const spec = (ws: keyof typeof workspaces, rate: number, durationMs: number): LoadSpec => ({
      port,
      rate,
      durationMs,
      key: workspaces[ws].public_key,
      bodiesFile,
      ok: 200,
    });

    async function phase(name: keyof typeof workspaces): Promise<PhaseResult> {
      const ws = workspaces[name];
      const base = await stored(ctx, ws.id);
      let rss = { worker: 0, http: 0 };
      const rssTimer = setInterval(() => {
        rss = {
          worker: Math.max(rss.worker, rssKb(worker.pid!) ?? 0),
          http: Math.max(rss.http, rssKb(http.pid!) ?? 0),
        };
      }, 200);
      try {
        sampler.markCpu();
        const markedAt = performance.now();
        const outcome = await generate(spec(name, RATE, DURATION_MS));
        const atLoadEnd = (await stored(ctx, ws.id)) - base;
        const storedAt = await storedBy(ctx, ws.id, base + outcome.ok);
        if (storedAt === undefined) throw new Error(`${name}: accepted events not stored in 300 s`);
        const cpu = sampler.cpuSince();
        const cpuSeconds = (performance.now() - markedAt) / 1000;
        return {
          name,
          outcome,
          durable: outcome.ok / ((storedAt - outcome.firstAt) / 1000),
          storedDuringLoad: atLoadEnd / ((outcome.lastAnsweredAt - outcome.firstAt) / 1000),
          drainMs: storedAt - outcome.lastAnsweredAt,
          workerRssMb: rss.worker / 1024,
          httpRssMb: rss.http / 1024,
          cpu,
          cpuSeconds,
        };
      } finally {
        clearInterval(rssTimer);
      }
    }

    // Warm-up of both paths at half the rate (JIT, pools, the tenant cache, every map parsed
    // into the writer's cache), written before anything counts.
    for (const name of ['mapped', 'unmapped'] as const) {
      const base = await stored(ctx, workspaces[name].id);
      const warm = await generate(spec(name, RATE / 2, WARM_MS));
      await storedBy(ctx, workspaces[name].id, base + warm.ok);
    }
    log(`worker RSS after the warm-up: ${((rssKb(worker.pid!) ?? 0) / 1024).toFixed(0)} MB`);
    log();

    const results: PhaseResult[] = [];
    for (const name of ['mapped', 'unmapped', 'unmapped', 'mapped'] as const) {
      const r = await phase(name);
      results.push(r);
      const o = r.outcome;
      const per = (cores: number) => `${((cores * r.cpuSeconds * 1000) / o.ok).toFixed(3)} ms`;
      log(`### ${name}, round ${results.filter((x) => x.name === name).length}`);
      log(
        `  ${o.offered} offered, sent at ${perSecond(o.sentRate)} (generator lag p99 ` +
          `${ms(o.sendLagP99Ms)}), ${o.ok} accepted; failures: ${failuresOf(o.failures)}`,
      );
      log(
        `  accept latency p50 ${ms(o.latency.p50)}, p99 ${ms(o.latency.p99)}, max ` +
          `${ms(o.latency.max)}; stored while loading ${perSecond(r.storedDuringLoad)}; ` +
          `durable ${perSecond(r.durable)} (last stored ${ms(r.drainMs)} after the last answer)`,
      );
      log(`  CPU: ${formatCpu(r.cpu)}`);
      log(
        `  CPU per event: http ${per(r.cpu.http)}, worker ${per(r.cpu.worker)}, postgres ` +
          `${per(r.cpu.postgres)}, redis ${per(r.cpu.redis)}, generator ` +
          `${(o.cpuMs / o.ok).toFixed(3)} ms; max RSS worker ${r.workerRssMb.toFixed(0)} MB, ` +
          `http ${r.httpRssMb.toFixed(0)} MB; load average now ${loadAverage()}`,
      );
    }
    sampler.stop();
    log();

    // What was stored: mapped frames (the throw in src/money.ts) for the mapped workspace only.
    const check = await sql<{ workspace_id: string; n: string; mapped: string; groups: string }>`
      select o.workspace_id, count(*) as n,
        count(*) filter (where o.backtrace[1] like ${`src/money.ts:${THROW_LINE}:%in parsePrice`}) as mapped,
        (select count(*) from error_groups g where g.workspace_id = o.workspace_id) as groups
      from error_occurrences o where o.workspace_id in (${mappedWs.id}, ${unmappedWs.id})
      group by o.workspace_id`.execute(ctx.db);
    for (const row of check.rows) {
      const name = row.workspace_id === mappedWs.id ? 'mapped' : 'unmapped';
      log(
        `stored rows, ${name}: ${row.n} (retention keeps the newest), top frame src/money.ts:` +
          `${THROW_LINE} in parsePrice: ${row.mapped}; ${row.groups} group(s)`,
      );
    }
    for (const [name, ws] of Object.entries(workspaces)) {
      const sample = await ctx.db
        .selectFrom('error_occurrences')
        .select('backtrace')
        .where('workspace_id', '=', ws.id)
        .limit(1)
        .executeTakeFirst();
      log(`a stored backtrace, ${name}: ${JSON.stringify(sample?.backtrace.slice(0, 3))}`);
    }
    log();

    // Ceilings of the same run: the same generator, envelopes and rate against a bare node
    // server; and a 500-row INSERT of occurrences into the same database.
    log('## Ceilings, same run');
    const ceilingPort = port + 100;
    const bare = startService('bench/ingest/ceiling-http.ts', { PORT: String(ceilingPort) });
    let bareOutcome: LoadOutcome;
    try {
      await waitHealthy(bare, ceilingPort);
      await generate({ ...spec('mapped', RATE / 2, 2_000), port: ceilingPort });
      bareOutcome = await generate({ ...spec('mapped', RATE, DURATION_MS), port: ceilingPort });
    } finally {
      await stopChild(bare);
    }
    const bareRate = bareOutcome.ok / ((bareOutcome.lastAnsweredAt - bareOutcome.firstAt) / 1000);
    log(
      `  bare node server, same envelopes at ${perSecond(RATE)} offered: answered ` +
        `${perSecond(bareRate)}, p50 ${ms(bareOutcome.latency.p50)}, p99 ` +
        `${ms(bareOutcome.latency.p99)}; failures ${failuresOf(bareOutcome.failures)}`,
    );
    const pool = new pg.Pool({ connectionString: ctx.config.DATABASE_URL, max: 2 });
    let insert: number;
    try {
      const groups = await sql<{ workspace_id: string; ids: string[] }>`
        select workspace_id, array_agg(id order by id) as ids from error_groups
        group by workspace_id`.execute(ctx.db);
      insert = await insertCeiling(
        pool,
        groups.rows.map((r) => ({ workspaceId: r.workspace_id, groupIds: r.ids })),
        50_000,
        500,
        2,
      );
    } finally {
      await pool.end();
    }
    log(`  multi-row INSERT of occurrences, 500 rows, 2 connections: ${perSecond(insert)}`);
    log();

    const mean = (name: string, pick: (r: PhaseResult) => number) => {
      const of = results.filter((r) => r.name === name).map(pick);
      return of.reduce((a, b) => a + b, 0) / of.length;
    };
    const mapped = mean('mapped', (r) => r.durable);
    const unmapped = mean('unmapped', (r) => r.durable);
    const ratio = mapped / unmapped;
    const mappedRss = Math.max(
      ...results.filter((r) => r.name === 'mapped').map((r) => r.workerRssMb),
    );
    const perEvent = (name: string) =>
      mean(name, (r) => (r.cpu.worker * r.cpuSeconds * 1000) / r.outcome.ok);
    log(`## Summary (issue 41), label ${LABEL}; load average at the end ${loadAverage()}`);
    log(
      `| mapped durable | ${perSecond(mapped)} | unmapped durable | ${perSecond(unmapped)} | ` +
        `ratio | ${(ratio * 100).toFixed(1)}% (target >= ${TARGET_RATIO * 100}%: ` +
        `${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}) |`,
    );
    log(
      `| offered | ${perSecond(RATE)} | bare server | ${perSecond(bareRate)} | 500-row INSERT | ` +
        `${perSecond(insert)} |`,
    );
    log(
      `| worker CPU per event | mapped ${perEvent('mapped').toFixed(3)} ms, unmapped ` +
        `${perEvent('unmapped').toFixed(3)} ms | worker max RSS, ${BUILDS} maps cycling | ` +
        `${mappedRss.toFixed(0)} MB (idle ${idleWorkerRss.toFixed(0)} MB) |`,
    );
  } finally {
    await Promise.all([stopChild(http), stopChild(worker)]);
    await ctx.close();
    await Promise.all(apps.map((app) => rm(app.root, { recursive: true, force: true })));
    await rm(scratch, { recursive: true, force: true });
  }
}

await main();
