import os from 'node:os';
import type { TestContext } from '@ferry/testing';
import { REPORTS_PER_REQUEST } from '../ingest/load.js';
import { log, ms, perSecond } from '../ingest/stats.js';
import { loadAverage, treeCpu, type CpuWindow } from './cpu.js';
import { outboxDrained, storedBy, storedReports } from './ferry.js';
import { generate } from './generator.js';
import type { LoadOutcome, LoadSpec } from './spec.js';

/**
 * One measured phase: an optional warm-up at half the rate (open loop), then the load, then (on
 * the product) until its work is done: the reports stored, or the outbox relayed. The CPU window
 * covers the load and that drain, so CPU per report includes writing it.
 */
export interface Phase {
  title: string;
  outcome: LoadOutcome;
  /** Reports or posts the warm-up had accepted (they are stored too). */
  warmUnits: number;
  /** Ingest on the product: when the last accepted report was stored (wall clock ms). */
  storedAt?: number;
  cpu?: CpuWindow;
  loadAfter: string;
}

/** The product under load (undefined for a ceiling server, which stores nothing). */
export interface Product {
  ctx: TestContext;
  pid: number;
}

export interface PhaseOptions {
  title: string;
  spec: LoadSpec;
  warmMs: number;
  product?: Product;
}

const DRAIN_MS = 300_000;

async function settle(options: PhaseOptions, base: number, outcome: LoadOutcome) {
  const product = options.product;
  if (!product) return undefined;
  if (options.spec.surface === 'ingest') {
    const at = await storedBy(product.ctx, base + outcome.units, DRAIN_MS);
    if (at === undefined) log(`  !! ${options.title}: not all accepted reports stored in 300 s`);
    return at;
  }
  if (!(await outboxDrained(product.ctx, DRAIN_MS))) {
    log(`  !! ${options.title}: the outbox did not drain in 300 s`);
  }
  return undefined;
}

export async function runPhase(options: PhaseOptions): Promise<Phase> {
  const { spec, product } = options;
  let warmUnits = 0;
  if (options.warmMs > 0) {
    const before = product ? await storedReports(product.ctx) : 0;
    const warm = await generate({
      ...spec,
      mode: 'open',
      rate: spec.rate / 2,
      durationMs: options.warmMs,
    });
    warmUnits = warm.units;
    await settle(options, before, warm);
  }
  const cpu = product ? treeCpu(product.pid) : undefined;
  const base = product ? await storedReports(product.ctx) : 0;
  cpu?.mark();
  const outcome = await generate(spec);
  const storedAt = await settle(options, base, outcome);
  const phase: Phase = {
    title: options.title,
    outcome,
    warmUnits,
    ...(storedAt !== undefined ? { storedAt } : {}),
    ...(cpu ? { cpu: cpu.since() } : {}),
    loadAfter: loadAverage(),
  };
  describePhase(phase, spec);
  return phase;
}

const failuresOf = (failures: Record<string, number>): string =>
  Object.entries(failures)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ') || 'none';

/** Seconds from the first request to `until` (wall clock ms). */
export const secondsFrom = (outcome: LoadOutcome, until: number): number =>
  (until - outcome.firstAt) / 1000;

function describePhase(phase: Phase, spec: LoadSpec): void {
  const { outcome } = phase;
  const unit = spec.surface === 'ingest' ? 'reports' : 'posts';
  const perRequest = spec.surface === 'ingest' ? REPORTS_PER_REQUEST : 1;
  const load =
    spec.mode === 'open'
      ? `${perSecond(spec.rate * perRequest)} ${unit} offered (${perSecond(spec.rate)} requests), ` +
        `sent at ${perSecond(outcome.sentRate ?? 0)} requests (generator lag p99 ${ms(outcome.sendLagP99Ms ?? 0)})`
      : `${spec.connections} connections`;
  log(`### ${phase.title}`);
  log(
    `  ${load}; ${outcome.requests} requests, ${outcome.ok} ok, ${outcome.units} ${unit} accepted; ` +
      `failures: ${failuresOf(outcome.failures)}`,
  );
  const lat = outcome.latency;
  log(
    `  latency p50 ${ms(lat.p50)}, p95 ${ms(lat.p95)}, p99 ${ms(lat.p99)}, max ${ms(lat.max)}; ` +
      `answered ${perSecond(outcome.units / secondsFrom(outcome, outcome.lastAnsweredAt))} ${unit}`,
  );
  if (phase.storedAt !== undefined) {
    log(
      `  stored ${perSecond(outcome.units / secondsFrom(outcome, phase.storedAt))} ${unit}, the last ` +
        `${ms(phase.storedAt - outcome.lastAnsweredAt)} after the last answer`,
    );
  }
  const per = (cpuSeconds: number): string =>
    `${((cpuSeconds * 1000) / Math.max(1, outcome.units)).toFixed(3)} ms`;
  if (phase.cpu) {
    const c = phase.cpu.cpuSeconds;
    const busy = secondsFrom(outcome, phase.storedAt ?? outcome.lastAnsweredAt);
    log(
      `  pnpm start used ${(c.ferry / busy).toFixed(2)} cores (of ${os.cpus().length}) from the ` +
        `first request to the last ${phase.storedAt !== undefined ? 'stored' : 'answer'}`,
    );
    log(
      `  CPU per ${unit.slice(0, -1)}: pnpm start ${per(c.ferry)}, postgres ${per(c.postgres)}, ` +
        `redis ${per(c.redis)}, generator ${per(outcome.cpuMs / 1000)}; the rest of the host ` +
        `(this bench's polling included) ${(c.other / phase.cpu.seconds).toFixed(2)} cores; ` +
        `load average now ${phase.loadAfter}`,
    );
  } else {
    log(
      `  generator CPU per ${unit.slice(0, -1)} ${per(outcome.cpuMs / 1000)}; load average now ${phase.loadAfter}`,
    );
  }
}
