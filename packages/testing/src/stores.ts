import { execFileSync } from 'node:child_process';
import net from 'node:net';

export interface StoreUrls {
  databaseUrl: string;
  redisUrl: string;
  /** Stops containers started for this run, if any. */
  stop: () => Promise<void>;
}

const LOCAL_PG = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_REDIS = 'redis://127.0.0.1:6379/0';

function answers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function dockerAnswers(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Where tests find Postgres and Redis: DATABASE_URL/REDIS_URL when set; else the localhost
 * defaults when they answer; else containers when a Docker engine answers; else a clear error.
 */
export async function resolveStores(): Promise<StoreUrls> {
  let databaseUrl = process.env.DATABASE_URL;
  let redisUrl = process.env.REDIS_URL;
  if (!databaseUrl && (await answers('127.0.0.1', 5432))) databaseUrl = LOCAL_PG;
  if (!redisUrl && (await answers('127.0.0.1', 6379))) redisUrl = LOCAL_REDIS;
  if (databaseUrl && redisUrl) return { databaseUrl, redisUrl, stop: () => Promise.resolve() };

  if (!dockerAnswers()) {
    throw new Error(
      'Tests need PostgreSQL and Redis. Either set DATABASE_URL and REDIS_URL (or run them on ' +
        '127.0.0.1:5432 and 127.0.0.1:6379; `bash infra/ensure-stores.sh` starts local ones), ' +
        'or start a Docker engine so the tests can use testcontainers.',
    );
  }
  const { GenericContainer, Wait } = await import('testcontainers');
  const started: { stop: () => Promise<unknown> }[] = [];
  if (!databaseUrl) {
    const pgContainer = await new GenericContainer('postgres:15')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
      .start();
    started.push(pgContainer);
    databaseUrl = `postgres://postgres@${pgContainer.getHost()}:${pgContainer.getMappedPort(5432)}/postgres`;
  }
  if (!redisUrl) {
    const redisContainer = await new GenericContainer('redis:7').withExposedPorts(6379).start();
    started.push(redisContainer);
    redisUrl = `redis://${redisContainer.getHost()}:${redisContainer.getMappedPort(6379)}/0`;
  }
  return {
    databaseUrl,
    redisUrl,
    stop: async () => {
      await Promise.all(started.map((c) => c.stop()));
    },
  };
}
