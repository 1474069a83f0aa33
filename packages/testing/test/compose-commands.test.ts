import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  createTestContext,
  killAll,
  startService,
  type ServiceProcess,
  type TestContext,
} from '../src/index.js';

/**
 * Every app service of docker-compose.yml started once, outside Docker, the way its container
 * starts it: its own `command` from the image's working directory (the repository root) with its
 * own `environment` (INGEST_ROLE=worker, DISPATCH_ROLE=http, WEB_RELAY=false, ...), the stores of
 * an isolated test context and a free PORT. Each must come up, then exit 0 on SIGTERM well within
 * its stop_grace_period (a command that exits on SIGTERM without letting Node drain, such as
 * `pnpm exec`, fails here).
 */
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** The parts of a compose service this test reads (infra/check-compose.mjs checks the schema). */
interface ComposeService {
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  restart?: string;
  stop_grace_period?: string;
  healthcheck?: { disable?: boolean };
}

function composeServices(text: string): Record<string, ComposeService> {
  const file = parse(text, { merge: true }) as { services?: Record<string, ComposeService> };
  if (!file.services) throw new Error('docker-compose.yml has no services');
  return file.services;
}

/** What a process without HTTP (compose disables its health check) logs once it is up. */
const READY_LINES: Record<string, string> = {
  relay: 'outbox relay started',
  'ingest-errors-worker': 'error-ingest worker started',
};

/** `${NAME:-default}` as Compose resolves it with NAME unset: the default. */
const interpolate = (value: string): string =>
  value.replace(/\$\{[A-Z0-9_]+(?::?-([^}]*))?\}/g, (_match, fallback?: string) => fallback ?? '');

const services = composeServices(fs.readFileSync(`${repoRoot}/docker-compose.yml`, 'utf8'));
/** The services built from our image (the stores and the proxy are someone else's). */
const appServices = Object.entries(services).filter(([, service]) => service.build);
const oneShots = appServices.filter(([, service]) => service.restart === 'no');
const longRunning = appServices.filter(([, service]) => service.restart !== 'no');

/** Compose's environment for the service, pointed at the test's own stores. */
function environmentOf(service: ComposeService, ctx: TestContext): Record<string, string> {
  const own = Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolate(value)]),
  );
  return {
    ...own,
    DATABASE_URL: ctx.env.DATABASE_URL!,
    REDIS_URL: ctx.env.REDIS_URL!,
    REDIS_PREFIX: ctx.env.REDIS_PREFIX!,
    LOG_LEVEL: 'info',
  };
}

describe('docker-compose.yml commands, started as their containers start them', () => {
  let ctx: TestContext;
  const running = new Map<string, ServiceProcess>();

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await killAll([...running.values()]);
    await ctx.close();
  });

  it('knows every app service: the ten DESIGN.md deploys', () => {
    expect(appServices.map(([name]) => name).sort()).toEqual(
      [
        'agent-gateway',
        'dispatch',
        'dispatch-worker',
        'ingest-errors',
        'ingest-errors-worker',
        'migrate',
        'relay',
        'web',
        'webhooks-in',
        'webhooks-out',
      ].sort(),
    );
    for (const [name, service] of appServices) {
      // Node itself on an entry's bundle (infra/build.mjs), whose source is in the repository.
      const [node, flag, bundle, ...rest] = service.command ?? [];
      const source = bundle?.replace(/^\.build\/(.+)\.mjs$/, '$1.ts') ?? '';
      expect({
        name,
        node,
        flag,
        rest,
        sourceExists: fs.existsSync(`${repoRoot}/${source}`),
      }).toEqual({
        name,
        node: 'node',
        flag: '--enable-source-maps',
        rest: [],
        sourceExists: true,
      });
      // Docker's SIGKILL must not come before onShutdown's own 25 s bound.
      expect({ name, grace: service.stop_grace_period }).toEqual({ name, grace: '30s' });
    }
    for (const [name, service] of longRunning) {
      if (service.healthcheck?.disable)
        expect({ name, line: READY_LINES[name] }).toEqual({
          name,
          line: expect.any(String) as string,
        });
    }
  });

  it('runs the one-shot services to exit 0 (migrate: the database is already current)', async () => {
    for (const [name, service] of oneShots) {
      const [command, ...args] = service.command!;
      const child = spawn(command === 'node' ? process.execPath : command!, args, {
        cwd: repoRoot,
        env: { ...process.env, ...environmentOf(service, ctx) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect({ name, code, output: code === 0 ? '' : output }).toEqual({
        name,
        code: 0,
        output: '',
      });
    }
  });

  it('starts every long-running service, then each exits 0 on SIGTERM within 10 s', async () => {
    // In parallel: start-up (loading the code) is the slow part. Settled, so none is left
    // starting when one fails.
    const starts = await Promise.allSettled(
      longRunning.map(async ([name, service]) => {
        const started = await startService({
          command: service.command!,
          env: environmentOf(service, ctx),
          readyLine: service.healthcheck?.disable ? READY_LINES[name] : undefined,
          timeoutMs: 100_000,
        });
        running.set(name, started);
      }),
    );
    for (const start of starts) if (start.status === 'rejected') throw start.reason;
    const exits = await Promise.all(
      longRunning.map(async ([name]) => {
        const process = running.get(name)!;
        const exit = await process.terminate();
        return {
          name,
          code: exit.code,
          inTime: exit.ms < 10_000,
          log: exit.code === 0 ? '' : process.log(),
        };
      }),
    );
    expect(exits).toEqual(longRunning.map(([name]) => ({ name, code: 0, inTime: true, log: '' })));
    for (const [name, process] of running) {
      expect({ name, stopping: process.log().includes('shutting down') }).toEqual({
        name,
        stopping: true,
      });
    }
  });
});
