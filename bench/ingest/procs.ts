import { readdirSync, readFileSync } from 'node:fs';

/**
 * What the machine spends its CPU on while the benchmark runs: /proc/<pid>/stat for every process,
 * bucketed (the ingest HTTP child, the ingest worker child, Postgres, Redis, this load generator,
 * everything else: the machine is shared), plus each ingest child's VmRSS every 200 ms.
 */
export const TICKS_PER_SECOND = 100;

/** A process's name, parent and CPU ticks (user + system) so far; undefined once it has gone. */
export function readStat(pid: number): { comm: string; ppid: number; ticks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // ppid is field 4, utime and stime are fields 14 and 15 (1-based); the slice starts at field 3.
    return { comm, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

export function rssKb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

type Bucket = 'http' | 'worker' | 'postgres' | 'redis' | 'loadgen' | 'other';

/** The ingest children's pids: INGEST_ROLE=http and INGEST_ROLE=worker. */
export interface IngestPids {
  http: number;
  worker: number;
}

function snapshot(pids: IngestPids): Map<number, { bucket: Bucket; ticks: number }> {
  const out = new Map<number, { bucket: Bucket; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (!stat) continue;
    const bucket: Bucket =
      pid === pids.http
        ? 'http'
        : pid === pids.worker
          ? 'worker'
          : pid === process.pid
            ? 'loadgen'
            : stat.comm.startsWith('postgres')
              ? 'postgres'
              : stat.comm.startsWith('redis')
                ? 'redis'
                : 'other';
    out.set(pid, { bucket, ticks: stat.ticks });
  }
  return out;
}

export interface CpuShares {
  /** CPU seconds per wall second (2.0 = both cores), per bucket. */
  http: number;
  worker: number;
  postgres: number;
  redis: number;
  loadgen: number;
  other: number;
}

export interface Sampler {
  /** Starts a CPU window (call when the load starts). */
  markCpu(): void;
  /** CPU shares since the last markCpu. */
  cpuSince(): CpuShares;
  /** Max VmRSS of each ingest child. */
  maxRssMb(): { http: number; worker: number };
  stop(): void;
}

export function startSampler(pids: IngestPids): Sampler {
  const maxRss = { http: 0, worker: 0 };
  const timer = setInterval(() => {
    for (const role of ['http', 'worker'] as const) {
      const kb = rssKb(pids[role]);
      if (kb !== undefined) maxRss[role] = Math.max(maxRss[role], kb);
    }
  }, 200);
  let start = { at: performance.now(), procs: snapshot(pids) };
  return {
    markCpu() {
      start = { at: performance.now(), procs: snapshot(pids) };
    },
    cpuSince() {
      const now = snapshot(pids);
      const seconds = (performance.now() - start.at) / 1000;
      const shares: CpuShares = { http: 0, worker: 0, postgres: 0, redis: 0, loadgen: 0, other: 0 };
      for (const [pid, entry] of now) {
        const before = start.procs.get(pid)?.ticks ?? 0;
        shares[entry.bucket] += Math.max(0, entry.ticks - before) / TICKS_PER_SECOND / seconds;
      }
      return shares;
    },
    maxRssMb: () => ({ http: maxRss.http / 1024, worker: maxRss.worker / 1024 }),
    stop: () => clearInterval(timer),
  };
}

export function formatCpu(shares: CpuShares): string {
  const f = (value: number): string => value.toFixed(2);
  return (
    `ingest http ${f(shares.http)}, ingest worker ${f(shares.worker)}, postgres ${f(shares.postgres)}, redis ${f(shares.redis)}, ` +
    `load generator ${f(shares.loadgen)}, other ${f(shares.other)} (cores, of 2)`
  );
}
