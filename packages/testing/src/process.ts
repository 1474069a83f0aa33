import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
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

/** Where infra/build.mjs writes a file's bundle: the same path under .build/, as .mjs. */
function bundleOf(file: string): string {
  const relative = path.isAbsolute(file) ? path.relative(repoRoot, file) : file;
  return path.join('.build', relative.replace(/\.ts$/, '.mjs'));
}

/**
 * Runs a test's own script (a `*-process.ts` under a test directory, which the suite's global setup
 * bundles like a service entry) in a REAL child process, so a test can SIGKILL it mid-work and
 * prove nothing is lost. The script signals readiness by printing `ready`.
 */
export function spawnScript(scriptPath: string, env: Record<string, string>): ScriptProcess {
  if (!/-process\.ts$/.test(scriptPath)) {
    throw new Error(`spawnScript: ${scriptPath} must be named *-process.ts (infra/build.mjs)`);
  }
  const child = spawn(process.execPath, ['--enable-source-maps', bundleOf(scriptPath)], {
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

/**
 * Polls `read` every `everyMs` until it gives a value (anything but undefined) and returns it;
 * rejects naming `what` after `timeoutMs` (a function is asked only then, so it can tell what the
 * wait saw, such as a child's output so far or the last state read).
 */
export async function waitFor<T>(
  read: () => T | undefined | Promise<T | undefined>,
  what: string | (() => string),
  timeoutMs = 30_000,
  everyMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for ${typeof what === 'function' ? what() : what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Polls `check` until it holds (waitFor's bounds and message). */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 30_000,
  everyMs = 10,
): Promise<void> {
  await waitFor(async () => ((await check()) ? true : undefined), what, timeoutMs, everyMs);
}

/**
 * Ports below Linux's ephemeral range (32768+), a block of 1,000 per vitest worker. A port picked by
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
  const worker = Number(process.env.VITEST_POOL_ID ?? 0) % 12;
  const base = BLOCK_START + worker * BLOCK_SIZE;
  for (let tries = 0; tries < BLOCK_SIZE; tries++) {
    const port = base + (nextOffset++ % BLOCK_SIZE);
    // Every address: servers listen on `::` (dual stack), helpers on 127.0.0.1.
    if ((await bindable(port, '127.0.0.1')) && (await bindable(port, '::'))) return port;
  }
  throw new Error(`no free port in ${base}-${base + BLOCK_SIZE - 1}`);
}

export interface ServiceProcess {
  child: ChildProcess;
  /** The PORT it was given (HTTP services answer on it). */
  port: number;
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  log(): string;
  /** It exited and its output ended (every line is in log()). */
  exited: Promise<ChildExit>;
  /** Sends SIGTERM; resolves with the exit and how many milliseconds it took. */
  terminate(): Promise<ChildExit & { ms: number }>;
}

export interface StartServiceOptions {
  /** What the container runs, e.g. `entryCommand('services/web/src/main.ts')`. */
  command: readonly string[];
  env: Record<string, string>;
  /** Up once this line is logged; by default once `/healthz` answers 200. */
  readyLine?: string;
  /** A PORT of the caller's: a restart on the port its clients already know. */
  port?: number;
  /**
   * A bound for a start that hangs, not a speed: a child's start (loading the bundled
   * service) costs CPU, and on 2 cores beside the rest of the suite a tsx start once took over 15 s.
   */
  timeoutMs?: number;
  /** Where it runs: by default this repository's root; another checkout runs its own release. */
  cwd?: string;
}

/**
 * The command line of a service entry run as its container runs it: its bundle from `pnpm build`
 * (infra/build.mjs; the suite's global setup builds every entry once), e.g.
 * `services/web/src/main.ts` -> `node --enable-source-maps .build/services/web/src/main.mjs`.
 */
export function entryCommand(entry: string): string[] {
  return ['node', '--enable-source-maps', bundleOf(entry)];
}

/**
 * Starts a service's real entry in a child process from the repository root (the image's working
 * directory) on a free PORT, and resolves once it is up: `/healthz` answers, or `readyLine` is
 * logged for a process without HTTP. Rejects with its output if it exits or stays down.
 */
export async function startService(options: StartServiceOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const [command, ...args] = options.command;
  if (!command) throw new Error('startService: empty command');
  const child = spawn(command === 'node' ? process.execPath : command, args, {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  const log = (): string => Buffer.concat(output).toString('utf8');
  // On 'close', not 'exit': its output has ended too, so log() then holds every line it wrote.
  const exited = new Promise<ChildExit>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  const { readyLine } = options;
  const up = async (): Promise<boolean> => {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${options.command.join(' ')} exited before it was up:\n${log()}`);
    }
    const ready = readyLine
      ? log().includes(readyLine)
      : await fetch(`${url}/healthz`).then(
          (res) => res.ok,
          () => false,
        );
    // Several children start at once on a small machine: poll gently.
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
    return ready;
  };
  try {
    await waitUntil(up, `${options.command.join(' ')} to be up`, options.timeoutMs ?? 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${log()}`);
  }
  return {
    child,
    port,
    url,
    log,
    exited,
    async terminate() {
      const started = Date.now();
      child.kill('SIGTERM');
      const exit = await exited;
      return { ...exit, ms: Date.now() - started };
    },
  };
}

/** SIGKILLs whichever of `processes` still run (a test's afterAll), and waits for them. */
export async function killAll(processes: readonly { child: ChildProcess }[]): Promise<void> {
  const running = processes.filter((p) => p.child.exitCode === null && !p.child.signalCode);
  const gone = running.map(
    (p) => new Promise<void>((resolve) => p.child.once('exit', () => resolve())),
  );
  for (const p of running) p.child.kill('SIGKILL');
  await Promise.all(gone);
}
