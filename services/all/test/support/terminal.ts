import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

/** What `npm start` runs: the bootstrap (stores check, build, then services/all's entry). */
const START = 'node infra/bootstrap.mjs start';

export interface StartRun {
  child: ChildProcess;
  /** Everything written so far (stdout then stderr for a pipe; the terminal's screen for a pty). */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches; rejects after `timeoutMs` with what it printed so far. */
  printed(pattern: RegExp, what: string, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Colours and carriage returns out: the text a person reads. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
  return text.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, '');
}

/**
 * `npm start` as a person runs it: on a pseudo-terminal (util-linux `script`, so stdout is a TTY
 * and Ctrl-C is a key press the terminal turns into SIGINT for the whole foreground group), or
 * with plain pipes (`npm start > log`).
 */
export function runStart(env: Record<string, string>, options: { tty: boolean }): StartRun {
  let child: ChildProcess;
  if (options.tty) {
    if (!existsSync('/usr/bin/script')) throw new Error('this test needs util-linux script(1)');
    // -e: script exits with the command's status; -f: output is written as it comes. `exec`:
    // script runs the command through $SHELL -c, and dash (Debian's /bin/sh, used when SHELL is
    // unset) waits for a child rather than becoming it, then kills itself with the Ctrl-C it
    // received, so the status would be 130 whatever the app did.
    child = spawn('/usr/bin/script', ['-qefc', `exec ${START}`, '/dev/null'], {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } else {
    child = spawn(process.execPath, ['infra/bootstrap.mjs', 'start'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdout = (): string => Buffer.concat(out).toString('utf8');
  const stderr = (): string => Buffer.concat(err).toString('utf8');
  const waiters = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    out.push(chunk);
    for (const check of waiters) check();
  });
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      for (const check of waiters) check();
      resolve({ code, signal });
    }),
  );
  const printed = (pattern: RegExp, what: string, timeoutMs = 60_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const done = (): void => {
        waiters.delete(check);
        clearTimeout(timer);
      };
      const check = (): void => {
        if (pattern.test(plain(stdout()))) {
          done();
          resolve();
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done();
          reject(new Error(`npm start ended before ${what}:\n${stdout()}\n${stderr()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `Timed out after ${timeoutMs} ms waiting for ${what}; npm start printed:\n` +
              `${stdout()}\n(stderr)\n${stderr()}`,
          ),
        );
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return { child, stdout, stderr, printed, exited };
}
