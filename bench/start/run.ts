import os from 'node:os';
import pg from 'pg';
import { sql } from 'kysely';
import { createTestContext, type TestContext } from '@ferry/testing';
import { basePort, startService, stopChild, waitHealthy } from '../lib/children.js';
import { insertCeiling } from '../ingest/ceiling.js';
import { createCeilingTable } from '../webhooks/ceiling-table.js';
import { REPORTS_PER_REQUEST } from '../ingest/load.js';
import { log } from '../ingest/stats.js';
import { describeTree, loadAverage, treeCpu } from './cpu.js';
import {
  BENCH_OVERRIDES,
  PROCESS_SETTINGS,
  seedWorkspaces,
  startFerry,
  stopFerry,
  storedReports,
  webhookMessages,
  type Seeded,
} from './ferry.js';
import { runPhase, type Phase, type Product } from './measure.js';
import { measureOutgoing } from './outgoing.js';
import { printSummary, type Ceilings, type ExpressInsertCeiling, type Figures } from './report.js';
import type { LoadSpec } from './spec.js';

/**
 * Issue #27 part 5: the figures of `pnpm start` as a user runs it. A fresh `pnpm start` (its own
 * database and Redis prefix), workspaces from `pnpm --silent seed --json --count N`, a load
 * generator in its own process per phase, a warm-up at half rate before each fixed offered rate;
 * then the outgoing backlog (bench/start/outgoing.ts: messages written while it is down, delivered
 * by a fresh `pnpm start` to a local receiver); then the same generator against a bare node server
 * (same offered rates), a 500-row INSERT and a signed POST loop, the ceilings of the same run; load
 * average before and after, and a label saying what else ran.
 *
 *   BENCH_LABEL=quiet BENCH_DURATION_S=10 BENCH_WARM_S=5 FERRY_PROCESSES=1 pnpm bench:start
 *   BENCH_PHASES=outgoing BENCH_CPU_PROF=/tmp/prof pnpm bench:start   (the outgoing phase alone)
 *   BENCH_PHASES=ingest FERRY_PROCESSES=1 pnpm bench:start   (ingest's open loop alone; or incoming)
 */
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 10) * 1000;
const WARM_MS = Number(process.env.BENCH_WARM_S ?? 5) * 1000;
/** Reports/s offered to /ingest/errors, in requests of REPORTS_PER_REQUEST (bench/ingest's batches). */
const INGEST_RATE = Number(process.env.BENCH_INGEST_RATE ?? 6_000);
const INCOMING_RATE = Number(process.env.BENCH_IN_RATE ?? 1_500);
/** Seeded workspaces the spread load goes round; one more is the hot key's. */
const WORKSPACES = Number(process.env.BENCH_WORKSPACES ?? 20);
const CONNECTIONS = 64;
const CLASSES = 20;
const INSERT_ROWS = 100_000;
const LABEL = process.env.BENCH_LABEL ?? 'unlabelled';
/**
 * BENCH_PHASES=outgoing: only the outgoing backlog; `ingest` or `incoming`: only that path's open
 * loop (warm-up included). Each prints its own figures and no summary: for profiling one path
 * (with BENCH_CPU_PROF) and measuring a change to it.
 */
const ONLY_OUTGOING = process.env.BENCH_PHASES === 'outgoing';
const ONLY_OPEN = ['ingest', 'incoming'].find((path) => process.env.BENCH_PHASES === path) as
  'ingest' | 'incoming' | undefined;

interface Keys {
  ingest: string[];
  incoming: string[];
}

function spec(surface: LoadSpec['surface'], mode: LoadSpec['mode'], port: number, keys: string[]) {
  const ingest = surface === 'ingest';
  return {
    surface,
    mode,
    port,
    rate: ingest ? INGEST_RATE / REPORTS_PER_REQUEST : INCOMING_RATE,
    connections: CONNECTIONS,
    durationMs: DURATION_MS,
    keys,
    classes: keys.length === 1 ? 1 : CLASSES,
  } satisfies LoadSpec;
}

async function measureProduct(product: Product, port: number, spread: Keys, hot: Keys) {
  const phase = (title: string, load: LoadSpec, warm = true): Promise<Phase> =>
    runPhase({ title, spec: load, warmMs: warm ? WARM_MS : 0, product });
  log('## pnpm start');
  const ingestOpen = await phase('ingest, open loop', spec('ingest', 'open', port, spread.ingest));
  const incomingOpen = await phase(
    'incoming, open loop',
    spec('incoming', 'open', port, spread.incoming),
  );
  const ingestClosed = await phase(
    `ingest, closed loop`,
    spec('ingest', 'closed', port, spread.ingest),
    false,
  );
  const incomingClosed = await phase(
    `incoming, closed loop`,
    spec('incoming', 'closed', port, spread.incoming),
    false,
  );
  const hotIngest = await phase(
    'hot key: one workspace, one error group, open loop',
    spec('ingest', 'open', port, hot.ingest),
  );
  const hotIncoming = await phase(
    'hot key: one room, one key, open loop',
    spec('incoming', 'open', port, hot.incoming),
  );
  return { ingestOpen, incomingOpen, ingestClosed, incomingClosed, hotIngest, hotIncoming };
}

async function measureCeilings(ctx: TestContext, port: number, keys: Keys): Promise<Ceilings> {
  log('## Ceilings, same run');
  const bare = startService('bench/ingest/ceiling-http.ts', { PORT: String(port) });
  let ceilings: Omit<Ceilings, 'insertRowsPerSecond' | 'expressInsert'>;
  try {
    await waitHealthy(bare, port);
    const phase = (title: string, load: LoadSpec, warm = true): Promise<Phase> =>
      runPhase({ title, spec: load, warmMs: warm ? WARM_MS : 0 });
    /** An open-loop phase with the bare server's own CPU per unit (issue 48's floors). */
    const measured = async (title: string, load: LoadSpec): Promise<[Phase, number]> => {
      const cpu = treeCpu(bare.pid!);
      const result = await phase(title, load);
      // The window holds the warm-up too: per unit of both.
      const seconds = cpu.since().cpuSeconds.ferry;
      const perUnitMs = (seconds * 1000) / Math.max(1, result.outcome.units + result.warmUnits);
      log(
        `  the bare server's CPU per ${load.surface === 'ingest' ? 'report' : 'post'}: ${perUnitMs.toFixed(3)} ms`,
      );
      return [result, perUnitMs];
    };
    const [ingestOpen, bareReport] = await measured(
      'bare node server, ingest bodies, open loop',
      spec('ingest', 'open', port, keys.ingest),
    );
    const [incomingOpen, barePost] = await measured(
      'bare node server, incoming bodies, open loop',
      spec('incoming', 'open', port, keys.incoming),
    );
    ceilings = {
      ingestOpen,
      incomingOpen,
      bareCpuMs: { report: bareReport, post: barePost },
      ingestClosed: await phase(
        'bare node server, ingest bodies, closed loop',
        spec('ingest', 'closed', port, keys.ingest),
        false,
      ),
      incomingClosed: await phase(
        'bare node server, incoming bodies, closed loop',
        spec('incoming', 'closed', port, keys.incoming),
        false,
      ),
    };
  } finally {
    await stopChild(bare);
  }
  const expressInsert = await measureExpressInsert(ctx, port, keys.incoming);
  // The product is stopped by now: the INSERT has Postgres to itself, on the same tables.
  const groups = await sql<{ workspace_id: string; ids: string[] }>`
    select workspace_id, array_agg(id order by id) as ids from error_groups
    group by workspace_id`.execute(ctx.db);
  const pool = new pg.Pool({ connectionString: ctx.config.DATABASE_URL, max: 2 });
  try {
    const targets = groups.rows.map((r) => ({ workspaceId: r.workspace_id, groupIds: r.ids }));
    const insertRowsPerSecond = await insertCeiling(pool, targets, INSERT_ROWS, 500, 2);
    log(
      `### 500-row INSERT into error_occurrences, 2 connections: ${Math.round(insertRowsPerSecond)} rows/s`,
    );
    return { ...ceilings, insertRowsPerSecond, expressInsert };
  } finally {
    await pool.end();
  }
}

/**
 * Issue 48's incoming ceiling (bench:webhooks' own): a tiny express app doing one INSERT per post
 * into a table shaped like `messages`, under the same closed loop as the product's; its process's
 * CPU per post beside it.
 */
async function measureExpressInsert(
  ctx: TestContext,
  port: number,
  keys: string[],
): Promise<ExpressInsertCeiling> {
  await createCeilingTable(ctx.db);
  const app = startService('bench/webhooks/ceiling-app.ts', {
    DATABASE_URL: ctx.config.DATABASE_URL,
    PORT: String(port),
  });
  try {
    await waitHealthy(app, port);
    const cpu = treeCpu(app.pid!);
    cpu.mark();
    const closed = await runPhase({
      title: 'express + one INSERT per post, incoming bodies, closed loop',
      spec: spec('incoming', 'closed', port, keys),
      warmMs: 0,
    });
    const window = cpu.since();
    const perPostMs = (window.cpuSeconds.ferry * 1000) / Math.max(1, closed.outcome.units);
    log(`  the ceiling app's CPU per post: ${perPostMs.toFixed(3)} ms`);
    return { closed, cpuPerPostMs: perPostMs };
  } finally {
    await stopChild(app);
  }
}

const keysOf = (seeded: readonly Seeded[]): Keys => ({
  ingest: seeded.map((s) => s.workspace.public_key),
  incoming: seeded.map((s) => s.incoming_webhook.key),
});

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const processes = PROCESS_SETTINGS.map((name) => `${name}=${process.env[name] ?? 'unset'}`).join(
    ', ',
  );
  log(`# pnpm start as a user runs it (issue #27), ${new Date().toISOString()}`);
  log(`label: ${LABEL}; load average before: ${loadBefore}`);
  log(
    `machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; node ${process.version}; ` +
      `${processes}; measured ${DURATION_MS / 1000} s, warm-up ${WARM_MS / 1000} s at half rate`,
  );
  log(
    `set for the bench: ${Object.entries(BENCH_OVERRIDES)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
  );
  const port = basePort();
  const ctx = await createTestContext();
  try {
    if (ONLY_OUTGOING) {
      // Diagnosis (e.g. with BENCH_CPU_PROF): the outgoing phase alone, no summary.
      await measureOutgoing(ctx, port, port + 2);
      return;
    }
    if (ONLY_OPEN) {
      const ferry = await startFerry(ctx, port);
      try {
        const seeded = keysOf(await seedWorkspaces(ctx, port, WORKSPACES));
        await runPhase({
          title: `${ONLY_OPEN}, open loop`,
          spec: spec(ONLY_OPEN, 'open', port, seeded[ONLY_OPEN]),
          warmMs: WARM_MS,
          product: { ctx, pid: ferry.child.pid! },
        });
      } finally {
        await stopFerry(ferry);
      }
      return;
    }
    const ferry = await startFerry(ctx, port);
    let figures: Omit<Figures, 'outgoing'>;
    let spread: Keys;
    try {
      log(
        `pnpm start is up on ${port} (log: ${ferry.logFile}); its process tree: ${describeTree(ferry.child.pid!)}`,
      );
      const seeded = await seedWorkspaces(ctx, port, WORKSPACES + 1);
      const hot = keysOf(seeded.slice(WORKSPACES));
      spread = keysOf(seeded.slice(0, WORKSPACES));
      log(
        `seeded ${seeded.length} workspaces with pnpm --silent seed --json --count ${seeded.length}`,
      );
      log();
      figures = await measureProduct({ ctx, pid: ferry.child.pid! }, port, spread, hot);
      log(`process tree at the end: ${describeTree(ferry.child.pid!)}`);
    } finally {
      await stopFerry(ferry);
      log(`pnpm start exited with ${ferry.child.exitCode ?? ferry.child.signalCode} on SIGTERM`);
    }
    const total = (phases: readonly Phase[]): number =>
      phases.reduce((n, p) => n + p.outcome.units + p.warmUnits, 0);
    const reports = total([figures.ingestOpen, figures.ingestClosed, figures.hotIngest]);
    const posts = total([figures.incomingOpen, figures.incomingClosed, figures.hotIncoming]);
    log(
      `stored vs accepted: ${await storedReports(ctx)} reports stored of ${reports} accepted, ` +
        `${await webhookMessages(ctx)} webhook messages of ${posts} posts accepted (warm-ups included)`,
    );
    log();
    const outgoing = await measureOutgoing(ctx, port, port + 2);
    log();
    // The same keys and bodies: the bare server ignores them, but the requests are the same bytes.
    const ceilings = await measureCeilings(ctx, port + 1, spread);
    log();
    printSummary({ ...figures, outgoing }, ceilings, {
      label: LABEL,
      loadBefore,
      loadAfter: loadAverage(),
      processes,
      ingestRate: INGEST_RATE,
      incomingRate: INCOMING_RATE,
    });
  } finally {
    await ctx.close();
  }
}

await main();
