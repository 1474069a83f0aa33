import { readdirSync } from 'node:fs';
import { readStat, TICKS_PER_SECOND } from '../ingest/procs.js';

/**
 * CPU per process while a webhooks benchmark runs, from /proc/<pid>/stat (as ingest/procs.ts
 * does): the named children, Postgres, Redis, this bench process, and everything else (the machine
 * is shared).
 */
export type CpuShares = Record<string, number>;

export interface CpuSampler {
  /** Starts a CPU window. */
  mark(): void;
  /** CPU seconds per wall second (2.0 = both cores) per bucket since the last mark. */
  since(): CpuShares;
}

/**
 * `children` names the pids to report on their own, e.g. { 'webhooks-in': 1234 }. A named pid's
 * descendants count as it (the all-in-one forks a process per core: FERRY_PROCESSES).
 */
export function cpuSampler(children: Record<string, number | undefined>): CpuSampler {
  const byPid = new Map<number, string>();
  for (const [name, pid] of Object.entries(children)) if (pid !== undefined) byPid.set(pid, name);
  type Stat = NonNullable<ReturnType<typeof readStat>>;
  const namedAncestor = (pid: number, stats: ReadonlyMap<number, Stat>): string | undefined => {
    for (let at: number | undefined = pid, hops = 0; at && hops < 64; hops++) {
      const name = byPid.get(at);
      if (name) return name;
      at = stats.get(at)?.ppid;
    }
    return undefined;
  };
  const bucketOf = (pid: number, stats: ReadonlyMap<number, Stat>): string => {
    const comm = stats.get(pid)?.comm ?? '';
    return (
      namedAncestor(pid, stats) ??
      (pid === process.pid
        ? 'bench'
        : comm.startsWith('postgres')
          ? 'postgres'
          : comm.startsWith('redis')
            ? 'redis'
            : 'other')
    );
  };
  const snapshot = (): Map<number, { bucket: string; ticks: number }> => {
    const stats = new Map<number, Stat>();
    for (const name of readdirSync('/proc')) {
      const pid = Number(name);
      if (!Number.isInteger(pid)) continue;
      const stat = readStat(pid);
      if (stat) stats.set(pid, stat);
    }
    const out = new Map<number, { bucket: string; ticks: number }>();
    for (const [pid, stat] of stats)
      out.set(pid, { bucket: bucketOf(pid, stats), ticks: stat.ticks });
    return out;
  };
  let start = { at: performance.now(), procs: snapshot() };
  return {
    mark() {
      start = { at: performance.now(), procs: snapshot() };
    },
    since() {
      const now = snapshot();
      const seconds = (performance.now() - start.at) / 1000;
      const shares: CpuShares = Object.fromEntries(
        [...byPid.values(), 'postgres', 'redis', 'bench', 'other'].map((name) => [name, 0]),
      );
      for (const [pid, entry] of now) {
        const before = start.procs.get(pid)?.ticks ?? 0;
        shares[entry.bucket] =
          (shares[entry.bucket] ?? 0) +
          Math.max(0, entry.ticks - before) / TICKS_PER_SECOND / seconds;
      }
      return shares;
    },
  };
}

export function formatCpu(shares: CpuShares): string {
  return `${Object.entries(shares)
    .map(([name, value]) => `${name} ${value.toFixed(2)}`)
    .join(', ')} (cores, of 2)`;
}
