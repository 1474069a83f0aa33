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

/**
 * Ports below Linux's ephemeral range (32768+), a block of 1,000 per jest worker. A port picked by
 * `listen(0)` and closed again can be handed to another worker's `listen(0)` (or an outgoing
 * connection) before our child binds it; then a test talks to some other test's server. Blocks
 * per worker, walked in order, cannot collide between workers of one run.
 */
const BLOCK_START = 20_000;
const BLOCK_SIZE = 1_000;
let nextOffset = Math.floor(Math.random() * BLOCK_SIZE);

async function bindable(port: number, host: string): Promise<boolean> {
  const { createServer } = await import('node:net');
  const server = createServer();
  const ok = await new Promise<boolean>((resolve) => {
    // Only "in use" counts: a machine without IPv6 cannot bind `::` and that says nothing.
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code !== 'EADDRINUSE'));
    server.listen({ port, host, exclusive: true }, () => resolve(true));
  });
  if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  return ok;
}

/** A free port, for a child process or a URL that must name its port before it listens. */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID ?? 0) % 12;
  const base = BLOCK_START + worker * BLOCK_SIZE;
  for (let tries = 0; tries < BLOCK_SIZE; tries++) {
    const port = base + (nextOffset++ % BLOCK_SIZE);
    // Every address: servers listen on `::` (dual stack), helpers on 127.0.0.1.
    if ((await bindable(port, '127.0.0.1')) && (await bindable(port, '::'))) return port;
  }
  throw new Error(`no free port in ${base}-${base + BLOCK_SIZE - 1}`);
}
