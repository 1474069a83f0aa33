import http from 'node:http';
import type { Answer } from './closed-loop.js';

/**
 * The benches' open-loop generator: requests leave at a fixed offered rate, whatever the service
 * answers, each on its own schedule (request n is due at start + n / rate). Latency is measured
 * from when a request was DUE, not when the generator got round to sending it, so a service (or a
 * generator) that falls behind shows it in the figures instead of hiding it (no coordinated
 * omission). Sockets are kept alive and opened as needed, up to `maxSockets`.
 */
export interface OpenLoopOptions {
  /** Requests per second offered. */
  rate: number;
  durationMs: number;
  /** Keep-alive sockets at most (requests queue in the agent beyond that: counted as latency). */
  maxSockets?: number;
  send: (agent: http.Agent, n: number) => Promise<Answer>;
  isSuccess: (answer: Answer) => boolean;
}

export interface OpenLoopResult {
  offered: number;
  /** Requests that answered (successes and failures). */
  answered: number;
  failures: Map<number, number>;
  /** Due -> answered, per successful request. */
  latenciesMs: number[];
  /** Requests sent per second, as achieved (falls short when the generator itself lags). */
  sentRate: number;
  /** How late the generator sent requests (p99 of send time - due time): its own lag. */
  sendLagP99Ms: number;
  firstDueAt: number;
  lastAnsweredAt: number;
}

/** Ticks of at most this length: a finer tick costs the generator CPU for nothing. */
const TICK_MS = 2;

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 512 });
  const total = Math.round((options.rate * options.durationMs) / 1000);
  const intervalMs = 1000 / options.rate;
  const failures = new Map<number, number>();
  const latenciesMs: number[] = [];
  const lags: number[] = [];
  let answered = 0;
  let lastAnsweredAt = 0;
  const inFlight = new Set<Promise<void>>();
  const start = performance.now() + 20;
  let next = 0;

  const fire = (n: number, dueAt: number): void => {
    lags.push(performance.now() - dueAt);
    const done = options
      .send(agent, n)
      .then(
        (answer) => {
          if (options.isSuccess(answer)) latenciesMs.push(performance.now() - dueAt);
          else failures.set(answer.status, (failures.get(answer.status) ?? 0) + 1);
        },
        () => {
          failures.set(0, (failures.get(0) ?? 0) + 1);
        },
      )
      .finally(() => {
        answered += 1;
        lastAnsweredAt = performance.now();
        inFlight.delete(done);
      });
    inFlight.add(done);
  };

  while (next < total) {
    const now = performance.now();
    // Everything due by now leaves now, each keeping its own due time for the latency.
    while (next < total && start + next * intervalMs <= now) {
      fire(next, start + next * intervalMs);
      next += 1;
    }
    const wait = Math.min(TICK_MS, Math.max(0, start + next * intervalMs - performance.now()));
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const sentAllAt = performance.now();
  await Promise.all([...inFlight]);
  agent.destroy();
  lags.sort((a, b) => a - b);
  return {
    offered: total,
    answered,
    failures,
    latenciesMs,
    sentRate: total / ((sentAllAt - start) / 1000),
    sendLagP99Ms: lags[Math.floor(lags.length * 0.99)] ?? 0,
    firstDueAt: start,
    lastAnsweredAt,
  };
}
