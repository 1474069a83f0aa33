import { log, ms, perSecond } from '../ingest/stats.js';
import { secondsFrom, type Phase } from './measure.js';
import type { OutgoingFigures } from './outgoing.js';

/** The product's phases (bench/start/run.ts) and the ceilings measured in the same run. */
export interface Figures {
  ingestOpen: Phase;
  incomingOpen: Phase;
  ingestClosed: Phase;
  incomingClosed: Phase;
  hotIngest: Phase;
  hotIncoming: Phase;
  outgoing: OutgoingFigures;
}

export interface Ceilings {
  ingestOpen: Phase;
  incomingOpen: Phase;
  ingestClosed: Phase;
  incomingClosed: Phase;
  insertRowsPerSecond: number;
  expressInsert: ExpressInsertCeiling;
  /**
   * The bare node server's own CPU per report and per post in its open-loop phases: loopback HTTP
   * and JSON.parse alone, at the product's offered rates. Beside the CPU goals as their floor.
   */
  bareCpuMs: { report: number; post: number };
}

/** Issue 48's incoming ceiling: express + one INSERT per post (bench/webhooks/ceiling-app.ts). */
export interface ExpressInsertCeiling {
  closed: Phase;
  cpuPerPostMs: number;
}

/**
 * Issue 48's goals: the app's CPU per unit (its process tree, open loop), and throughput as a
 * share of a ceiling measured in the same run, which holds on hosts of this kind whatever their
 * speed that day.
 */
const CPU_GOALS_MS = { report: 0.08, post: 0.28, delivery: 0.17 };
const RATIO_GOALS = { ingestDurable: 0.4, incomingClosed: 0.85, outgoing: 0.35 };

/** Issue #27's goals; the hot keys within 1.5x of the p99s. */
const GOALS = {
  ingestP99: 30,
  ingestDurable: 12_000,
  incomingP99: 40,
  incomingClosed: 3_000,
  outgoingBacklog: 3_000,
};

const latency = (p: Phase): string =>
  `p50 ${ms(p.outcome.latency.p50)}, p99 ${ms(p.outcome.latency.p99)}${failed(p)}`;
const answered = (p: Phase): number =>
  p.outcome.units / secondsFrom(p.outcome, p.outcome.lastAnsweredAt);
/** Reports stored per second, first request to last stored; undefined when some never were. */
const storedRate = (p: Phase): number | undefined =>
  p.storedAt === undefined ? undefined : p.outcome.units / secondsFrom(p.outcome, p.storedAt);
const stored = (p: Phase): string => {
  const rate = storedRate(p);
  return rate === undefined ? 'not all stored' : perSecond(rate);
};
const lastStored = (p: Phase): string =>
  p.storedAt === undefined
    ? ''
    : `, last stored ${ms(p.storedAt - p.outcome.lastAnsweredAt)} after the last answer`;

const keptUp = (p: Phase): boolean =>
  p.storedAt !== undefined && p.storedAt - p.outcome.lastAnsweredAt <= 1_000;

function failed(p: Phase): string {
  const n = Object.values(p.outcome.failures).reduce((sum, v) => sum + v, 0);
  return n ? ` (${n} of ${p.outcome.requests} failed)` : '';
}

const verdict = (ok: boolean): string => (ok ? 'met' : 'missed');

export function printSummary(
  f: Figures,
  c: Ceilings,
  meta: {
    label: string;
    loadBefore: string;
    loadAfter: string;
    processes: string;
    /** Offered: reports/s (ingest), posts/s (incoming). */
    ingestRate: number;
    incomingRate: number;
  },
): void {
  const insert = `500-row INSERT ${perSecond(c.insertRowsPerSecond)}`;
  const rows: [string, string, string, string][] = [
    [
      `ingest accept @ ${perSecond(meta.ingestRate)} reports offered`,
      `p99 ≤ 30 ms: ${verdict(f.ingestOpen.outcome.latency.p99 <= GOALS.ingestP99)}`,
      latency(f.ingestOpen),
      `bare node server ${latency(c.ingestOpen)}`,
    ],
    [
      `ingest stored at ${perSecond(meta.ingestRate)} reports offered`,
      `keeps up (all stored within 1 s of the last answer): ${verdict(keptUp(f.ingestOpen))}`,
      `${stored(f.ingestOpen)}${lastStored(f.ingestOpen)}`,
      insert,
    ],
    [
      'ingest durable, closed loop (64 connections, batches of 10)',
      `≥ 12,000/s: ${verdict((storedRate(f.ingestClosed) ?? 0) >= GOALS.ingestDurable)}`,
      `${stored(f.ingestClosed)} (accepted ${perSecond(answered(f.ingestClosed))}${lastStored(f.ingestClosed)})`,
      `${insert}; bare node server ${perSecond(answered(c.ingestClosed))}`,
    ],
    [
      `incoming @ ${perSecond(meta.incomingRate)} posts offered`,
      `p99 ≤ 40 ms: ${verdict(f.incomingOpen.outcome.latency.p99 <= GOALS.incomingP99)}`,
      latency(f.incomingOpen),
      `bare node server ${latency(c.incomingOpen)}`,
    ],
    [
      'incoming, closed loop (64 connections)',
      `≥ 3,000/s: ${verdict(answered(f.incomingClosed) >= GOALS.incomingClosed)}`,
      `${perSecond(answered(f.incomingClosed))}${failed(f.incomingClosed)}`,
      `bare node server ${perSecond(answered(c.incomingClosed))}`,
    ],
    [
      `hot key: one workspace, one error group, ${perSecond(meta.ingestRate)} reports`,
      `p99 ≤ 45 ms: ${verdict(f.hotIngest.outcome.latency.p99 <= GOALS.ingestP99 * 1.5)}`,
      `${latency(f.hotIngest)}; stored ${stored(f.hotIngest)}${lastStored(f.hotIngest)}`,
      `bare node server ${latency(c.ingestOpen)}`,
    ],
    [
      `hot key: one room, one key, ${perSecond(meta.incomingRate)} posts`,
      `p99 ≤ 60 ms: ${verdict(f.hotIncoming.outcome.latency.p99 <= GOALS.incomingP99 * 1.5)}`,
      latency(f.hotIncoming),
      `bare node server ${latency(c.incomingOpen)}`,
    ],
    [
      `outgoing backlog: ${f.outgoing.messages} messages, ${f.outgoing.rooms} rooms with a hook each`,
      `≥ 3,000 deliveries/s: ${verdict(f.outgoing.perSecond >= GOALS.outgoingBacklog)}`,
      `${perSecond(f.outgoing.perSecond)} first -> last received` +
        (f.outgoing.duplicates ? ` (${f.outgoing.duplicates} duplicates)` : ''),
      `signed POST loop to the same receiver ${perSecond(f.outgoing.ceilingPerSecond)}`,
    ],
  ];
  log(
    `## Summary (${meta.label}; ${meta.processes}; load average before ${meta.loadBefore}, after ${meta.loadAfter})`,
  );
  log();
  log('| figure | goal | measured | ceiling, same run |');
  log('|---|---|---|---|');
  for (const row of rows) log(`| ${row.join(' | ')} |`);
  printCpuAndRatios(f, c);
}

/** CPU seconds per unit, in ms, of one bucket of a CPU window. */
const perUnit = (seconds: number, units: number): number => (seconds * 1000) / Math.max(1, units);

/** Issue 48's figures: CPU per unit (app / Postgres / Redis) and the ratios to same-run ceilings. */
function printCpuAndRatios(f: Figures, c: Ceilings): void {
  const cpuRow = (
    unit: string,
    goal: number,
    cpu: Phase['cpu'],
    units: number,
  ): [string, string, string] => {
    if (!cpu) return [unit, `≤ ${goal} ms`, 'not measured'];
    const app = perUnit(cpu.cpuSeconds.ferry, units);
    const rest = `${perUnit(cpu.cpuSeconds.postgres, units).toFixed(3)} / ${perUnit(cpu.cpuSeconds.redis, units).toFixed(3)}`;
    return [unit, `≤ ${goal} ms: ${verdict(app <= goal)}`, `${app.toFixed(3)} / ${rest} ms`];
  };
  log();
  log('### Issue 48: CPU per unit (the app / Postgres / Redis), open loop');
  log();
  log('| unit | goal (the app) | measured | the ceilings’ own CPU per unit, same run |');
  log('|---|---|---|---|');
  const floor = (value: number): string => `${value.toFixed(3)} ms`;
  for (const row of [
    [
      ...cpuRow('report', CPU_GOALS_MS.report, f.ingestOpen.cpu, f.ingestOpen.outcome.units),
      `bare node server (HTTP, JSON.parse) ${floor(c.bareCpuMs.report)}`,
    ],
    [
      ...cpuRow(
        'incoming post',
        CPU_GOALS_MS.post,
        f.incomingOpen.cpu,
        f.incomingOpen.outcome.units,
      ),
      `bare node server ${floor(c.bareCpuMs.post)}; express + one INSERT ${floor(c.expressInsert.cpuPerPostMs)} (closed loop)`,
    ],
    [
      ...cpuRow('delivery (backlog)', CPU_GOALS_MS.delivery, f.outgoing.cpu, f.outgoing.deliveries),
      `signed POST loop (node:http, the sender alone) ${floor(f.outgoing.ceilingCpuPerPostMs)}`,
    ],
  ]) {
    log(`| ${row.join(' | ')} |`);
  }
  const ratio = (value: number, ceiling: number): number => value / Math.max(1, ceiling);
  const share = (value: number): string => `${Math.round(value * 100)} %`;
  const durable = ratio(storedRate(f.ingestClosed) ?? 0, c.insertRowsPerSecond);
  const incoming = ratio(answered(f.incomingClosed), answered(c.expressInsert.closed));
  const outgoing = ratio(f.outgoing.perSecond, f.outgoing.ceilingPerSecond);
  log();
  log('### Issue 48: throughput as a share of the same run’s ceiling');
  log();
  log('| figure | goal | measured | ceiling, same run |');
  log('|---|---|---|---|');
  log(
    `| ingest durable, closed loop | ≥ ${share(RATIO_GOALS.ingestDurable)}: ${verdict(durable >= RATIO_GOALS.ingestDurable)} | ` +
      `${share(durable)} (${stored(f.ingestClosed)}) | 500-row INSERT ${perSecond(c.insertRowsPerSecond)} |`,
  );
  log(
    `| incoming, closed loop | ≥ ${share(RATIO_GOALS.incomingClosed)}: ${verdict(incoming >= RATIO_GOALS.incomingClosed)} | ` +
      `${share(incoming)} (${perSecond(answered(f.incomingClosed))}) | express + one INSERT ` +
      `${perSecond(answered(c.expressInsert.closed))} (its CPU per post ${c.expressInsert.cpuPerPostMs.toFixed(3)} ms) |`,
  );
  log(
    `| outgoing backlog | ≥ ${share(RATIO_GOALS.outgoing)}: ${verdict(outgoing >= RATIO_GOALS.outgoing)} | ` +
      `${share(outgoing)} (${perSecond(f.outgoing.perSecond)}) | signed POST loop ${perSecond(f.outgoing.ceilingPerSecond)} |`,
  );
}
