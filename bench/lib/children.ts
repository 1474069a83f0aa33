import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Service children of the benches: started from the repo root, as `node --import tsx <entry>`. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const sleep = (msDelay: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, msDelay));

/** BENCH_CPU_PROF=<dir> runs every child with --cpu-prof (diagnosis only: it slows them). */
const PROFILE = process.env.BENCH_CPU_PROF
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
  : [];

export function startService(entry: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...PROFILE, '--import', 'tsx', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/**
 * Until GET `path` (/healthz) on the port answers 200 (and the child is still ours: alive). The
 * bench receiver has no /healthz: its stats path says it is up.
 */
export async function waitHealthy(
  child: ChildProcess,
  port: number,
  timeoutMs = 30_000,
  path = '/healthz',
): Promise<void> {
  for (let i = 0; i < timeoutMs / 100; i++) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`port ${port} did not become healthy in ${timeoutMs / 1000} s`);
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** A random port block for one bench run, away from Linux's ephemeral range. */
export function basePort(): number {
  return 20_000 + Math.floor(Math.random() * 10_000);
}
