import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { postJson, type Answer } from '../lib/closed-loop.js';
import { openLoop } from '../lib/open-loop.js';
import { summarize, type Summary } from '../ingest/stats.js';

/**
 * bench/sourcemaps' load generator, one run per process (so its CPU is not the measuring
 * process's, nor the product's): `node --import tsx bench/sourcemaps/load.ts '<LoadSpec JSON>'`
 * posts the envelopes of `bodiesFile` round robin to the Sentry envelope endpoint of `key`'s
 * workspace at a fixed offered rate (open loop), each with a fresh event_id (copies of one id
 * would be stored once), and prints one LoadOutcome JSON line.
 */
export interface LoadSpec {
  port: number;
  /** Events (requests) per second offered. */
  rate: number;
  durationMs: number;
  /** The workspace's public key (the DSN's). */
  key: string;
  /** A JSON array of envelopes with `__EVENT_ID__` and `__KEY__` to fill in. */
  bodiesFile: string;
  /** 200 for the product (the envelope endpoint's answer); the ceiling server answers the same. */
  ok: number;
}

export interface LoadOutcome {
  offered: number;
  ok: number;
  failures: Record<string, number>;
  latency: Summary;
  sentRate: number;
  sendLagP99Ms: number;
  /** Wall clock ms. */
  firstAt: number;
  lastAnsweredAt: number;
  cpuMs: number;
}

const spec = JSON.parse(process.argv[2] ?? '') as LoadSpec;
const wall = (at: number): number => performance.timeOrigin + at;
const bodies = (JSON.parse(readFileSync(spec.bodiesFile, 'utf8')) as string[]).map((body) =>
  body.replaceAll('__KEY__', spec.key),
);
const path = `/api/1/envelope/?sentry_key=${spec.key}`;

let ok = 0;
const cpuBefore = process.cpuUsage();
const run = await openLoop({
  rate: spec.rate,
  durationMs: spec.durationMs,
  send: (agent, n) =>
    postJson(
      agent,
      spec.port,
      path,
      bodies[n % bodies.length]!.replaceAll('__EVENT_ID__', randomBytes(16).toString('hex')),
    ),
  isSuccess: (answer: Answer) => {
    if (answer.status !== spec.ok) return false;
    ok += 1;
    return true;
  },
});
const cpu = process.cpuUsage(cpuBefore);
const outcome: LoadOutcome = {
  offered: run.offered,
  ok,
  failures: Object.fromEntries(run.failures),
  latency: summarize(run.latenciesMs),
  sentRate: run.sentRate,
  sendLagP99Ms: run.sendLagP99Ms,
  firstAt: wall(run.firstDueAt),
  lastAnsweredAt: wall(run.lastAnsweredAt),
  cpuMs: (cpu.user + cpu.system) / 1000,
};
process.stdout.write(`${JSON.stringify(outcome)}\n`);
