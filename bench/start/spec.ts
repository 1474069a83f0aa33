import type { Summary } from '../ingest/stats.js';

/**
 * What bench/start/run.ts asks its load generator child (bench/start/load.ts) to do, and what the
 * child answers: one JSON line on stdout. The generator runs in its own process so its CPU is not
 * the measuring process's, and so the product cannot borrow the generator's event loop.
 */
export interface LoadSpec {
  surface: 'ingest' | 'incoming';
  mode: 'open' | 'closed';
  port: number;
  /** open: requests per second offered (an ingest request carries REPORTS_PER_REQUEST reports). */
  rate: number;
  /** closed: connections, each sending when its last request answered. */
  connections: number;
  durationMs: number;
  /** Workspaces' public keys (ingest) or raw incoming webhook keys, taken round robin. */
  keys: string[];
  /** Distinct error classes per workspace (ingest): 1 makes one error group. */
  classes: number;
}

export interface LoadOutcome {
  /** Requests sent (open loop: offered). */
  requests: number;
  /** Requests answered 202 (ingest) / 201 (incoming). */
  ok: number;
  /** Reports (ingest) or posts (incoming) the service accepted. */
  units: number;
  /** Non-success answers by status; 0 = transport error. */
  failures: Record<string, number>;
  /** Open loop: due -> answered; closed loop: sent -> answered; successful requests only. */
  latency: Summary;
  /** Open loop only: requests/s actually sent, and the generator's own lag (p99). */
  sentRate?: number;
  sendLagP99Ms?: number;
  /** Wall clock (ms since the epoch), comparable with the parent's. */
  firstAt: number;
  lastAnsweredAt: number;
  /** The generator's own CPU time over the run, ms. */
  cpuMs: number;
}
