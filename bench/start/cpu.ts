import { readdirSync, readFileSync } from 'node:fs';
import { readStat, TICKS_PER_SECOND } from '../ingest/procs.js';

/**
 * CPU of the process tree `pnpm start` made (bootstrap -> tsx -> node, and whatever processes the
 * app forks: cluster workers), of Postgres and Redis, and of everything else on this shared machine,
 * from /proc. A tree rather than one pid because the app may be N processes (FERRY_PROCESSES).
 */
interface Proc {
  comm: string;
  ppid: number;
  ticks: number;
}

function processes(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (stat) out.set(pid, stat);
  }
  return out;
}

function inTree(procs: ReadonlyMap<number, Proc>, pid: number, root: number): boolean {
  for (let at: number | undefined = pid, hops = 0; at && hops < 64; hops++) {
    if (at === root) return true;
    at = procs.get(at)?.ppid;
  }
  return false;
}

export type Bucket = 'ferry' | 'postgres' | 'redis' | 'other';

function bucketOf(procs: ReadonlyMap<number, Proc>, pid: number, root: number): Bucket {
  if (inTree(procs, pid, root)) return 'ferry';
  const comm = procs.get(pid)?.comm ?? '';
  if (comm.startsWith('postgres')) return 'postgres';
  if (comm.startsWith('redis')) return 'redis';
  return 'other';
}

/** CPU seconds per bucket over a window; the load generator reports its own (it exits first). */
export interface CpuWindow {
  seconds: number;
  cpuSeconds: Record<Bucket, number>;
}

export function treeCpu(root: number): { mark(): void; since(): CpuWindow } {
  let start = { at: performance.now(), procs: processes() };
  return {
    mark() {
      start = { at: performance.now(), procs: processes() };
    },
    since() {
      const now = processes();
      const cpuSeconds: Record<Bucket, number> = { ferry: 0, postgres: 0, redis: 0, other: 0 };
      for (const [pid, proc] of now) {
        const before = start.procs.get(pid)?.ticks ?? 0;
        cpuSeconds[bucketOf(now, pid, root)] += Math.max(0, proc.ticks - before) / TICKS_PER_SECOND;
      }
      return { seconds: (performance.now() - start.at) / 1000, cpuSeconds };
    },
  };
}

/** The tree's processes by name, e.g. "node x3, esbuild x1": how many processes the app really is. */
export function describeTree(root: number): string {
  const procs = processes();
  const counts = new Map<string, number>();
  for (const [pid, proc] of procs) {
    if (inTree(procs, pid, root)) counts.set(proc.comm, (counts.get(proc.comm) ?? 0) + 1);
  }
  return [...counts].map(([comm, n]) => `${comm} x${n}`).join(', ');
}

/** /proc/loadavg's 1, 5 and 15 minute averages, as written there. */
export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
