import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The real `sentry-cli` (npm `@sentry/cli`, its binary from the platform package it depends on),
 * run as a user runs it against Ferry: SENTRY_URL is Ferry's base URL, the token a Ferry API token
 * with `releases:write`, the org the workspace's slug. It runs with an empty HOME, so no
 * ~/.sentryclirc of the machine's leaks in, and without its update check.
 */
const run = promisify(execFile);

export interface SentryCliTarget {
  /** The path of the sentry-cli binary: `SentryCli.getPath()` of `@sentry/cli`. */
  binary: string;
  url: string;
  token: string;
  org: string;
  project?: string;
}

export interface SentryCliResult {
  code: number;
  stdout: string;
  stderr: string;
}

let home: string | undefined;

export async function runSentryCli(
  target: SentryCliTarget,
  args: readonly string[],
  cwd: string,
): Promise<SentryCliResult> {
  home ??= await mkdtemp(join(tmpdir(), 'ferry-sentry-cli-home-'));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    SENTRY_URL: target.url,
    SENTRY_AUTH_TOKEN: target.token,
    SENTRY_ORG: target.org,
    SENTRY_PROJECT: target.project ?? 'web',
    SENTRY_DISABLE_UPDATE_CHECK: 'true',
    SENTRY_LOAD_DOTENV: '0',
    SENTRY_HTTP_MAX_RETRIES: '0',
  };
  try {
    const { stdout, stderr } = await run(target.binary, [...args], { cwd, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
