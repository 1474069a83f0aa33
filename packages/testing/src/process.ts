import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ScriptProcess {
  child: ChildProcess;
  /** The script printed `ready` on stdout: loaded, connected, waiting for `go()` if it waits. */
  ready: Promise<void>;
  /** Writes `go` to the script's stdin (scripts that wait for it start their work then). */
  go(): void;
  exited: Promise<ChildExit>;
}

/**
 * Runs a TypeScript script in a REAL child process (`node --import tsx`), so a test can SIGKILL it
 * mid-work and prove nothing is lost. The script signals readiness by printing `ready`.
 */
export function spawnScript(scriptPath: string, env: Record<string, string>): ScriptProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', scriptPath], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((resolve) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('ready')) resolve();
    });
  });
  const exited = new Promise<ChildExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, ready, go: () => child.stdin?.write('go\n'), exited };
}

/** Polls `check` until it holds; rejects naming `what` after `timeoutMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
