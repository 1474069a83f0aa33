import { spawn } from 'node:child_process';

/** The Debian package that provides each program we run, for the "not installed" message. */
const DEBIAN_PACKAGE: Record<string, string> = {
  pg_dump: 'postgresql-client',
  pg_restore: 'postgresql-client',
  'redis-cli': 'redis-tools',
  'redis-server': 'redis-server',
};

export interface ToolResult {
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to its end. Rejects naming the program and what it wrote on stderr when it
 * exits non-zero, and with the package to install when it is missing. Secrets go in `env`
 * (PGPASSWORD, REDISCLI_AUTH), never in `args`, which any user of the machine can read in `ps`.
 */
export function runTool(
  program: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new Error(
              `${program} is not installed (Debian: apt-get install ${DEBIAN_PACKAGE[program] ?? program}).`,
            )
          : error,
      );
    });
    child.once('close', (code) => {
      const result = {
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      };
      if (code === 0) resolve(result);
      else {
        reject(
          new Error(`${program} failed (exit ${code}): ${result.stderr.trim() || result.stdout}`),
        );
      }
    });
  });
}

/** A program's `--version` line, e.g. `pg_dump (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)`. */
export async function toolVersion(program: string): Promise<string> {
  return (await runTool(program, ['--version'])).stdout.trim();
}

/** ` (4.2 s)`: how long a step took since `startedAt` (performance.now()), for progress lines. */
export function took(startedAt: number): string {
  return ` (${((performance.now() - startedAt) / 1000).toFixed(1)} s)`;
}
