import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './process.js';

/**
 * A real PgBouncer (Debian's `pgbouncer`) in transaction mode, in front of the tests' Postgres, on
 * a free loopback port: what an operator puts between many replicas and Postgres (issue 47). Its
 * `*` entry forwards any database name, so each test file's own cloned database is reachable
 * through it as `pooledUrl(databaseUrl)`.
 */
export interface PgBouncer {
  port: number;
  /** The same database and user as `databaseUrl`, through the pooler. */
  pooledUrl(databaseUrl: string): string;
  /** The admin console's URL (`SHOW STATS;` and friends, simple queries only). */
  adminUrl: string;
  /** What it logged so far. */
  log(): string;
  close(): Promise<void>;
}

const BINARIES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'];

/** Where Debian's package puts it (sbin, often not on a user's PATH). */
export function pgbouncerBinary(): string {
  const found = BINARIES.find((candidate) => existsSync(candidate));
  if (!found) throw new Error('pgbouncer is not installed: apt-get install -y pgbouncer');
  return found;
}

/** `"name" "value"` as PgBouncer's auth_file wants it (a `"` doubled). */
const quoted = (value: string): string => `"${value.replace(/"/g, '""')}"`;

export async function startPgBouncer(
  /** Any URL of the Postgres server to front (its host, port, user and password are used). */
  serverUrl: string,
  options: { poolSize?: number; timeoutMs?: number } = {},
): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'ferry-pgbouncer-'));
  // PgBouncer refuses to run as root; as root the test hands it to `nobody`, who must read these.
  await chmod(dir, 0o755);
  const authFile = path.join(dir, 'userlist.txt');
  // trust: clients are not asked for a password; the one here is what PgBouncer logs in with.
  await writeFile(authFile, `${quoted(user)} ${quoted(password)}\n`, { mode: 0o644 });
  const ini = path.join(dir, 'pgbouncer.ini');
  const host = server.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  await writeFile(
    ini,
    [
      '[databases]',
      `* = host=${host} port=${server.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      // No Unix socket: parallel test files would only clash over /tmp's.
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${authFile}`,
      `admin_users = ${user}`,
      `stats_users = ${user}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 2000',
      // node-pg sends none of these today; JDBC-style clients and psql's PGOPTIONS do.
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child = spawn(pgbouncerBinary(), [...(asRoot ? ['-u', 'nobody'] : []), ini], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: Buffer[] = [];
  const log = (): string => Buffer.concat(output).toString('utf8');
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const timeoutMs = options.timeoutMs ?? 30_000;
  // Up once it logs "process up" (after binding its port); down if it exits first.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pgbouncer did not log "process up" within ${timeoutMs} ms:\n${log()}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output.push(chunk);
      if (log().includes('process up')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`pgbouncer exited before it was up:\n${log()}`));
    });
  });
  const auth = `${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ''}@`;
  return {
    port,
    pooledUrl(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    adminUrl: `postgres://${auth}127.0.0.1:${port}/pgbouncer`,
    log,
    async close() {
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
