import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { SecretBox } from '@ferry/core';
import type { Db, Room } from '@ferry/db';
import {
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  type TestContext,
} from '@ferry/testing';
import { createIncomingKey, postMessage, createOutgoingHook } from '@ferry/workspace';
import { log, ms, perSecond, ratio, sleep, summarize, verdict } from '../ingest/stats.js';
import { createCeilingTable } from './ceiling-table.js';
import { runLoad, runOpenLoad, type LoadResult } from './load.js';
import { formatActivity, samplePgActivity } from './pg-activity.js';
import { cpuSampler, formatCpu, type CpuShares } from './procs.js';
import {
  CEILING_SENDERS,
  receiverCeiling,
  receiverReset,
  receiverStats,
  waitReceived,
} from './receiver-client.js';

/**
 * issue #4's numbers. Incoming: posts accepted per second by the real webhooks-in process over 100
 * keys, with p50/p95/p99, next to an express + one-INSERT ceiling driven by the same load
 * generator. Outgoing: deliveries per second from the real outbox relay + webhooks-out processes
 * to a local receiver that answers 200 at once, and message posted -> first attempt received at
 * 200 messages/s, next to a plain loop of signed POSTs to the same receiver. See bench/README.md
 * and bench/RESULTS.md.
 *
 * Issue #12 adds: incoming latency under a fixed offered rate (open loop, BENCH_IN_RATE posts/s for
 * BENCH_IN_OPEN_S), the same incoming load and the paced outgoing load on the all-in-one process
 * (`services/all`, what `pnpm start` runs), and BENCH_OUT_WORKERS webhooks-out processes.
 *
 * Knobs: BENCH_IN_DURATION_S (15), BENCH_CONNECTIONS (64), BENCH_IN_RATE (1500), BENCH_IN_OPEN_S
 * (10), BENCH_OUT_MESSAGES (20000), BENCH_OUT_ROOMS (200), BENCH_OUT_RATE (200 messages/s),
 * BENCH_OUT_LATENCY_S (10), BENCH_OUT_WORKERS (1), BENCH_PHASES (incoming,outgoing).
 * BENCH_CPU_PROF=<dir> runs every child with `--cpu-prof` into that folder (for finding where a
 * child's CPU goes; the figures of such a run are slower and not for RESULTS.md).
 */
const IN_DURATION_S = Number(process.env.BENCH_IN_DURATION_S ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const OUT_MESSAGES = Number(process.env.BENCH_OUT_MESSAGES ?? 20_000);
const OUT_ROOMS = Number(process.env.BENCH_OUT_ROOMS ?? 200);
const OUT_RATE = Number(process.env.BENCH_OUT_RATE ?? 200);
const OUT_LATENCY_S = Number(process.env.BENCH_OUT_LATENCY_S ?? 10);
/** Incoming posts/s offered in the open-loop phase (issue #12: p99 <= 40 ms at 1,500/s). */
const IN_RATE = Number(process.env.BENCH_IN_RATE ?? 1_500);
const IN_OPEN_S = Number(process.env.BENCH_IN_OPEN_S ?? 10);
/** webhooks-out processes for the backlog (2 shows the design scaling with processes). */
const OUT_WORKERS = Number(process.env.BENCH_OUT_WORKERS ?? 1);
/** Which halves run: `incoming`, `outgoing` or both (the default), comma-separated. */
const PHASES = new Set((process.env.BENCH_PHASES ?? 'incoming,outgoing').split(','));
const KEYS = 100;
const WARM_MS = 3_000;
const CEILING_MS = 5_000;
const TARGETS = { inPerSecond: 3_000, inP99Ms: 40, outPerSecond: 3_000, outP95Ms: 50 };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Below Linux's ephemeral range (32768+), where an outgoing connection could already hold the port.
const basePort = 20_000 + Math.floor(Math.random() * 10_000);
const PORTS = {
  in: basePort,
  ceiling: basePort + 1,
  out: basePort + 2,
  receiver: basePort + 3,
  all: basePort + 4,
  out2: basePort + 10,
};
/** Wall clock in ms with sub-ms resolution, comparable across processes on this machine. */
const wall = (): number => performance.timeOrigin + performance.now();

const children = new Set<ChildProcess>();
const PROFILE_ARGS = process.env.BENCH_CPU_PROF
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
  : [];

/** A child node process from the repository root; `ready` says how to know it is up. */
async function startChild(
  name: string,
  script: string,
  env: Record<string, string>,
  ready: { port: number } | 'stdout',
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...PROFILE_ARGS, '--import', 'tsx', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.length > 10_000) out = out.slice(-5_000);
  });
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    if (ready === 'stdout') {
      if (out.includes('ready\n')) return child;
    } else {
      try {
        const res = await fetch(`http://127.0.0.1:${ready.port}/healthz`);
        if (res.ok) return child;
      } catch {
        // not listening yet
      }
    }
    await sleep(100);
  }
  throw new Error(`${name} did not start in 30 s`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ---------------------------------------------------------------------------------------------
// Incoming

interface OpenFigures {
  offered: number;
  accepted: number;
  sentRate: number;
  failures: string;
  latency: ReturnType<typeof summarize>;
  cpu: CpuShares;
}

interface LoadFigures {
  open: OpenFigures;
  load: LoadResult;
  perSecond: number;
  latency: ReturnType<typeof summarize>;
  cpu: CpuShares;
  pg: Awaited<ReturnType<ReturnType<typeof samplePgActivity>['stop']>>;
}

/**
 * Until every outbox event is relayed: the warm-up's burst leaves work downstream (relay, live
 * announce, fan-out jobs), which on the all-in-one process would otherwise land in the next phase.
 */
async function outboxRelayed(db: Db): Promise<void> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const row = await sql<{ n: string }>`
      select count(*) as n from outbox where sent_at is null`.execute(db);
    if (Number(row.rows[0]?.n ?? 0) === 0) break;
    if (performance.now() > deadline) throw new Error('the outbox did not drain in 120 s');
    await sleep(100);
  }
  await sleep(1_000);
}

async function measureLoad(
  db: Db,
  port: number,
  keys: readonly string[],
  sampler: ReturnType<typeof cpuSampler>,
  /** The process relays the outbox too (all-in-one): let it catch up before measuring. */
  relays = false,
): Promise<LoadFigures & { warmAccepted: number }> {
  const warm = await runLoad({ port, connections: CONNECTIONS, durationMs: WARM_MS, keys });
  if (relays) await outboxRelayed(db);
  sampler.mark();
  const offered = await runOpenLoad({ port, keys, rate: IN_RATE, durationMs: IN_OPEN_S * 1000 });
  const open: OpenFigures = {
    offered: offered.offered,
    accepted: offered.accepted,
    sentRate: offered.sentRate,
    failures: [...offered.failures].map(([st, n]) => `${st}: ${n}`).join(', ') || 'none',
    latency: summarize(offered.latenciesMs),
    cpu: sampler.since(),
  };
  sampler.mark();
  const activity = samplePgActivity(db);
  const load = await runLoad({
    port,
    connections: CONNECTIONS,
    durationMs: IN_DURATION_S * 1000,
    keys,
  });
  const cpu = sampler.since();
  const pg = await activity.stop();
  return {
    pg,
    open,
    load,
    warmAccepted: warm.accepted + open.accepted,
    perSecond: load.accepted / ((load.lastAnsweredAt - load.firstSentAt) / 1000),
    latency: summarize(load.latenciesMs),
    cpu,
  };
}

async function incomingBench(ctx: TestContext) {
  const box = new SecretBox(ctx.config.APP_SECRET);
  const workspace = await createWorkspace(ctx.db);
  const member = await createMember(ctx.db, workspace, { role: 'admin' });
  const room = await createRoom(ctx.db, workspace, { members: [member] });
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const { rawKey } = await createIncomingKey(ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      name: `Bench ${i}`,
      createdBy: member.id,
    });
    keys.push(rawKey);
  }
  await createCeilingTable(ctx.db);

  const service = await startChild(
    'webhooks-in',
    'services/webhooks-in/src/main.ts',
    {
      ...ctx.env,
      PORT: String(PORTS.in),
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000000',
      LOG_LEVEL: 'warn',
    },
    { port: PORTS.in },
  );
  let measured: LoadFigures & { warmAccepted: number };
  try {
    measured = await measureLoad(
      ctx.db,
      PORTS.in,
      keys,
      cpuSampler({ 'webhooks-in': service.pid }),
    );
  } finally {
    await stopChild(service);
  }
  // The same load on the all-in-one process a newcomer runs (`pnpm start`).
  const all = await startChild(
    'all-in-one',
    'services/all/src/main.ts',
    {
      ...ctx.env,
      PORT: String(PORTS.all),
      PUBLIC_URL: `http://127.0.0.1:${PORTS.all}`,
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000000',
      LOG_LEVEL: 'warn',
    },
    { port: PORTS.all },
  );
  let allInOne: LoadFigures & { warmAccepted: number };
  try {
    allInOne = await measureLoad(
      ctx.db,
      PORTS.all,
      keys,
      cpuSampler({ 'all-in-one': all.pid }),
      true,
    );
  } finally {
    await stopChild(all);
  }
  const stored = await sql<{ n: string }>`
    select count(*) as n from messages where room_id = ${room.id} and author_kind = 'webhook'`.execute(
    ctx.db,
  );

  const ceilingChild = await startChild(
    'ceiling app',
    'bench/webhooks/ceiling-app.ts',
    { DATABASE_URL: ctx.config.DATABASE_URL, PORT: String(PORTS.ceiling) },
    'stdout',
  );
  let ceiling: LoadFigures;
  try {
    ceiling = await measureLoad(
      ctx.db,
      PORTS.ceiling,
      keys,
      cpuSampler({ 'ceiling app': ceilingChild.pid }),
    );
  } finally {
    await stopChild(ceilingChild);
  }
  return {
    service: measured,
    allInOne,
    storedMessages: Number(stored.rows[0]?.n ?? 0),
    expectedMessages:
      measured.warmAccepted +
      measured.load.accepted +
      allInOne.warmAccepted +
      allInOne.load.accepted,
    ceiling,
  };
}

// ---------------------------------------------------------------------------------------------
// Outgoing

/** Runs `task(i)` for i < total with at most `concurrency` in flight. */
async function pool(total: number, concurrency: number, task: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

/**
 * OUT_RATE member messages a second for OUT_LATENCY_S (open loop: each posted on its own schedule),
 * each timed from its commit to its first attempt arriving at the receiver.
 */
async function pacedLatency(
  ctx: TestContext,
  post: (i: number, body: string) => Promise<{ id: string }>,
  sampler: ReturnType<typeof cpuSampler>,
  durationMs = OUT_LATENCY_S * 1000,
) {
  await receiverReset(PORTS.receiver);
  const total = Math.round((OUT_RATE * durationMs) / 1000);
  const committed = new Map<string, number>();
  const inFlight: Promise<void>[] = [];
  const paceStart = performance.now();
  sampler.mark();
  const activity = samplePgActivity(ctx.db);
  for (let i = 0; i < total; i++) {
    const due = paceStart + (i * 1000) / OUT_RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    inFlight.push(
      post(i, `Paced message ${i}`).then((message) => {
        committed.set(message.id, wall());
      }),
    );
  }
  await Promise.all(inFlight);
  const postedSeconds = (performance.now() - paceStart) / 1000;
  await waitReceived(PORTS.receiver, total, 120_000);
  const cpuPaced = sampler.since();
  const pg = await activity.stop();
  const times = (await (await fetch(`http://127.0.0.1:${PORTS.receiver}/__times`)).json()) as [
    string,
    number,
  ][];
  const receivedAt = new Map(times);
  const ids = [...committed.keys()];
  const relayed = await sql<{ id: string; sent: number }>`
      select payload->>'messageId' as id, extract(epoch from sent_at) * 1000 as sent
      from outbox where payload->>'messageId' = any(${ids}::text[])`.execute(ctx.db);
  const sentAt = new Map(relayed.rows.map((r) => [r.id, Number(r.sent)]));
  const endToEnd: number[] = [];
  const toRelay: number[] = [];
  const relayToReceiver: number[] = [];
  for (const [id, at] of committed) {
    const got = receivedAt.get(id);
    if (got === undefined) continue;
    endToEnd.push(got - at);
    const sent = sentAt.get(id);
    if (sent !== undefined) {
      toRelay.push(sent - at);
      relayToReceiver.push(got - sent);
    }
  }

  return {
    total,
    postedPerSecond: total / postedSeconds,
    endToEnd: summarize(endToEnd),
    toRelay: summarize(toRelay),
    relayToReceiver: summarize(relayToReceiver),
    cpu: cpuPaced,
    pg,
  };
}

async function outgoingBench(ctx: TestContext) {
  const box = new SecretBox(ctx.config.APP_SECRET);
  const workspace = await createWorkspace(ctx.db);
  const member = await createMember(ctx.db, workspace, { role: 'member' });
  const rooms: Room[] = [];
  for (let i = 0; i < OUT_ROOMS; i++) {
    const room = await createRoom(ctx.db, workspace, { members: [member] });
    await createOutgoingHook(ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      targetUrl: `http://127.0.0.1:${PORTS.receiver}/hook/${i}`,
      createdBy: member.id,
    });
    rooms.push(room);
  }
  const post = (i: number, body: string) =>
    postMessage(ctx.db, {
      roomId: rooms[i % rooms.length]!.id,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: member.id,
      displayName: 'Ada',
      body,
    });

  const receiver = await startChild(
    'receiver',
    'bench/webhooks/receiver.ts',
    { PORT: String(PORTS.receiver) },
    'stdout',
  );
  const started: ChildProcess[] = [receiver];
  try {
    const worker = await startChild(
      'webhooks-out',
      'services/webhooks-out/src/main.ts',
      {
        ...ctx.env,
        PORT: String(PORTS.out),
        ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        LOG_LEVEL: 'warn',
      },
      { port: PORTS.out },
    );
    started.push(worker);
    const second =
      OUT_WORKERS >= 2
        ? await startChild(
            'webhooks-out 2',
            'services/webhooks-out/src/main.ts',
            {
              ...ctx.env,
              PORT: String(PORTS.out2),
              ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
              LOG_LEVEL: 'warn',
            },
            { port: PORTS.out2 },
          )
        : undefined;
    if (second) started.push(second);

    // Throughput: a backlog of OUT_MESSAGES member messages (outbox rows, relay not running yet),
    // then the relay starts and the receiver counts deliveries.
    const insertStarted = performance.now();
    await pool(OUT_MESSAGES, 5, async (i) => {
      await post(i, `Backlog message ${i}: the deploy of build ${i} finished`);
    });
    const insertPerSecond = OUT_MESSAGES / ((performance.now() - insertStarted) / 1000);
    const relayStartedAt = wall();
    const relay = await startChild(
      'outbox relay',
      'bench/webhooks/relay.ts',
      { ...ctx.env, LOG_LEVEL: 'warn' },
      'stdout',
    );
    started.push(relay);
    const sampler = cpuSampler({
      'webhooks-out': worker.pid,
      ...(second ? { 'webhooks-out 2': second.pid } : {}),
      relay: relay.pid,
      receiver: receiver.pid,
    });
    sampler.mark();
    const backlogActivity = samplePgActivity(ctx.db);
    const backlog = await waitReceived(PORTS.receiver, OUT_MESSAGES, 600_000);
    const cpuBacklog = sampler.since();
    const pgBacklog = await backlogActivity.stop();
    const throughput = {
      deliveries: backlog.unique,
      duplicates: backlog.duplicates,
      perSecond: backlog.unique / ((backlog.lastAt - backlog.firstAt) / 1000),
      fromRelayStart: backlog.unique / ((backlog.lastAt - relayStartedAt) / 1000),
      seconds: (backlog.lastAt - backlog.firstAt) / 1000,
      firstAfterRelayMs: backlog.firstAt - relayStartedAt,
      insertPerSecond,
    };

    // Latency: OUT_RATE messages/s for OUT_LATENCY_S, each timed from its commit.
    const paced = await pacedLatency(ctx, post, sampler);

    // Ceiling: the receiver fed by a plain signed-POST loop.
    await receiverReset(PORTS.receiver);
    await receiverCeiling(PORTS.receiver, 1_000);
    await receiverReset(PORTS.receiver);
    sampler.mark();
    const ceiling = await receiverCeiling(PORTS.receiver, CEILING_MS);
    const cpuCeiling = sampler.since();
    const ceilingStats = await receiverStats(PORTS.receiver);

    // The same paced load on the all-in-one process (`pnpm start`): its own relay and workers.
    for (const child of started.slice(1).reverse()) await stopChild(child);
    started.splice(1);
    const all = await startChild(
      'all-in-one',
      'services/all/src/main.ts',
      {
        ...ctx.env,
        PORT: String(PORTS.all),
        PUBLIC_URL: `http://127.0.0.1:${PORTS.all}`,
        ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        LOG_LEVEL: 'warn',
      },
      { port: PORTS.all },
    );
    started.push(all);
    // A process just started is still warming up (JIT, pools, the widget build): the split
    // deployment's processes had the backlog for that, this one gets the same paced load for a
    // couple of seconds first, not counted.
    await pacedLatency(ctx, post, cpuSampler({}), WARM_MS);
    const allPaced = await pacedLatency(
      ctx,
      post,
      cpuSampler({ 'all-in-one': all.pid, receiver: receiver.pid }),
    );

    return {
      throughput,
      cpuBacklog,
      pgBacklog,
      paced,
      allPaced,
      ceiling: { ...ceiling, received: ceilingStats.unique, cpu: cpuCeiling },
    };
  } finally {
    for (const child of started.reverse()) await stopChild(child);
  }
}

// ---------------------------------------------------------------------------------------------

function failuresOf(load: LoadResult): string {
  return [...load.failures].map(([s, n]) => `${s}: ${n}`).join(', ') || 'none';
}

/** The incoming phases; returns their summary lines. */
async function reportIncoming(inCtx: TestContext): Promise<string[]> {
  const summary: string[] = [];
  log(
    `## Incoming: POST /wh/in/<key>, ${KEYS} keys, ${CONNECTIONS} connections, ` +
      `${IN_DURATION_S} s after a ${WARM_MS / 1000} s warm-up`,
  );
  const inc = await incomingBench(inCtx);
  const s = inc.service;
  const openLine = (name: string, o: OpenFigures) =>
    `  ${name}, open loop ${perSecond(IN_RATE)} offered for ${IN_OPEN_S} s (sent at ` +
    `${perSecond(o.sentRate)}; non-201: ${o.failures}): p50 ${ms(o.latency.p50)}, ` +
    `p95 ${ms(o.latency.p95)}, p99 ${ms(o.latency.p99)}, max ${ms(o.latency.max)}; CPU ${formatCpu(o.cpu)}`;
  log(openLine('webhooks-in', s.open));
  log(openLine('all-in-one', inc.allInOne.open));
  log(openLine('ceiling', inc.ceiling.open));
  const a = inc.allInOne;
  log(
    `  all-in-one, closed loop: accepted ${perSecond(a.perSecond)}; p50 ${ms(a.latency.p50)}, ` +
      `p99 ${ms(a.latency.p99)}; CPU ${formatCpu(a.cpu)}`,
  );
  log(
    `  webhooks-in: requests ${s.load.requests} (non-201: ${failuresOf(s.load)}), ` +
      `accepted ${perSecond(s.perSecond)}; p50 ${ms(s.latency.p50)}, p95 ${ms(s.latency.p95)}, ` +
      `p99 ${ms(s.latency.p99)}, max ${ms(s.latency.max)}`,
  );
  log(`  messages stored: ${inc.storedMessages} (accepted incl. warm-up ${inc.expectedMessages})`);
  log(`  CPU: ${formatCpu(s.cpu)}`);
  for (const line of formatActivity(s.pg)) log(line);
  const c = inc.ceiling;
  log(
    `  ceiling (express + one INSERT): requests ${c.load.requests} (non-201: ` +
      `${failuresOf(c.load)}), ${perSecond(c.perSecond)}; p50 ${ms(c.latency.p50)}, ` +
      `p95 ${ms(c.latency.p95)}, p99 ${ms(c.latency.p99)}`,
  );
  log(`  CPU: ${formatCpu(c.cpu)}`);
  for (const line of formatActivity(c.pg)) log(line);
  log(`  load average now ${os.loadavg()[0]!.toFixed(2)}`);
  log();

  summary.push(
    `  incoming accepted/s: ${perSecond(s.perSecond)} vs ceiling ${perSecond(c.perSecond)} ` +
      `(${ratio(s.perSecond, c.perSecond)}); target >= ${perSecond(TARGETS.inPerSecond)}: ` +
      `${verdict(s.perSecond >= TARGETS.inPerSecond)}`,
  );
  summary.push(
    `  incoming p99 at ${CONNECTIONS} connections (closed loop): ${ms(s.latency.p99)} ` +
      `(ceiling ${ms(c.latency.p99)})`,
  );
  for (const [name, o] of [
    ['webhooks-in', s.open],
    ['all-in-one', inc.allInOne.open],
  ] as const) {
    summary.push(
      `  incoming open-loop p99 at ${perSecond(IN_RATE)} offered, ${name}: ${ms(o.latency.p99)} ` +
        `(ceiling ${ms(inc.ceiling.open.latency.p99)}); target <= ${TARGETS.inP99Ms} ms: ` +
        `${verdict(o.latency.p99 <= TARGETS.inP99Ms && o.accepted === o.offered)}`,
    );
  }
  return summary;
}

/** The outgoing phases; returns their summary lines. */
async function reportOutgoing(outCtx: TestContext): Promise<string[]> {
  const summary: string[] = [];
  log(
    `## Outgoing: ${OUT_ROOMS} rooms with one hook each, receiver answering 200 at once; ` +
      `relay and webhooks-out as child processes`,
  );
  const out = await outgoingBench(outCtx);
  const t = out.throughput;
  log(
    `  backlog of ${OUT_MESSAGES} messages (postMessage, 5 at a time: ` +
      `${perSecond(t.insertPerSecond)}), then the relay started`,
  );
  log(
    `  deliveries ${t.deliveries} (duplicate webhook-ids ${t.duplicates}) in ` +
      `${t.seconds.toFixed(1)} s: ${perSecond(t.perSecond)} first->last received; ` +
      `${perSecond(t.fromRelayStart)} from relay start (first delivery ` +
      `${(t.firstAfterRelayMs / 1000).toFixed(2)} s after spawning it)`,
  );
  log(`  CPU: ${formatCpu(out.cpuBacklog)}`);
  for (const line of formatActivity(out.pgBacklog)) log(line);
  const p = out.paced;
  log(
    `  paced ${p.total} messages at ${perSecond(p.postedPerSecond)}: posted -> first attempt ` +
      `received p50 ${ms(p.endToEnd.p50)}, p95 ${ms(p.endToEnd.p95)}, p99 ${ms(p.endToEnd.p99)}, ` +
      `max ${ms(p.endToEnd.max)} (n ${p.endToEnd.n})`,
  );
  log(
    `    of which commit -> relay picked it (outbox.sent_at) p50 ${ms(p.toRelay.p50)}, ` +
      `p95 ${ms(p.toRelay.p95)}; relay -> received p50 ${ms(p.relayToReceiver.p50)}, ` +
      `p95 ${ms(p.relayToReceiver.p95)}`,
  );
  log(`  CPU: ${formatCpu(p.cpu)}`);
  for (const line of formatActivity(p.pg)) log(line);
  const ap = out.allPaced;
  log(
    `  all-in-one, paced ${ap.total} messages at ${perSecond(ap.postedPerSecond)}: posted -> ` +
      `first attempt received p50 ${ms(ap.endToEnd.p50)}, p95 ${ms(ap.endToEnd.p95)}, ` +
      `p99 ${ms(ap.endToEnd.p99)}, max ${ms(ap.endToEnd.max)} (n ${ap.endToEnd.n}); CPU ${formatCpu(ap.cpu)}`,
  );
  for (const line of formatActivity(ap.pg)) log(line);
  log(
    `  ceiling (signed POST loop, ${CEILING_SENDERS} keep-alive senders, one process): ` +
      `${perSecond(out.ceiling.perSecond)} (${out.ceiling.sent} sent, ${out.ceiling.received} received)`,
  );
  log(`  CPU: ${formatCpu(out.ceiling.cpu)}`);
  log();

  summary.push(
    `  outgoing deliveries/s: ${perSecond(t.perSecond)} vs ceiling ` +
      `${perSecond(out.ceiling.perSecond)} (${ratio(t.perSecond, out.ceiling.perSecond)}); ` +
      `target >= ${perSecond(TARGETS.outPerSecond)}: ${verdict(t.perSecond >= TARGETS.outPerSecond)}`,
  );
  summary.push(
    `  outgoing posted -> received p95 at ${OUT_RATE}/s: ${ms(p.endToEnd.p95)}; target <= ` +
      `${TARGETS.outP95Ms} ms: ${verdict(p.endToEnd.p95 <= TARGETS.outP95Ms)}; all-in-one ` +
      `${ms(ap.endToEnd.p95)}: ${verdict(ap.endToEnd.p95 <= TARGETS.outP95Ms)}`,
  );
  return summary;
}

async function main(): Promise<void> {
  log(`# Ferry webhooks benchmarks, ${new Date().toISOString()}`);
  log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ` +
      `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, load average ${os
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}`,
  );
  log(`node ${process.version}; ${execFileSync('psql', ['-V']).toString().trim()}`);
  log();

  const contexts: TestContext[] = [];
  try {
    const summary: string[] = [];
    if (PHASES.has('incoming')) {
      const inCtx = await createTestContext({ LOG_LEVEL: 'warn' });
      contexts.push(inCtx);
      summary.push(...(await reportIncoming(inCtx)));
    }
    if (PHASES.has('outgoing')) {
      const outCtx = await createTestContext({ LOG_LEVEL: 'warn' });
      contexts.push(outCtx);
      summary.push(...(await reportOutgoing(outCtx)));
    }
    log('## Summary (targets from issues #4 and #12)');
    for (const line of summary) log(line);
  } finally {
    for (const child of children) child.kill('SIGKILL');
    for (const ctx of contexts) await ctx.close();
  }
}

await main();
