import { z } from 'zod';
import { parseRedisUrl, type RedisTarget } from './redis-url.js';

/**
 * Environment shared by every service. Services extend it with `baseConfigShape` and parse once
 * at start with `loadConfig`, so a misconfigured process fails before it serves anything.
 */
const DEV_APP_SECRET = 'ferry-dev-secret-do-not-use-in-production';

/** `true`/`false`, `1`/`0`, `yes`/`no`: the one way every setting reads a switch. */
export const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * A connection URL the driver can use: one of its schemes and a host (or, for PostgreSQL, a
 * `?host=` socket folder). Checked here so a typo (`postgress:/db`) is one line in the list of
 * problems, not the driver's stack from deep inside the first query (issue 42).
 */
function serviceUrl(schemes: readonly string[], example: string) {
  return z.string().refine(
    (value) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return false;
      }
      if (!schemes.includes(url.protocol.slice(0, -1))) return false;
      return url.hostname !== '' || url.searchParams.has('host');
    },
    `must be a URL of scheme ${schemes.map((s) => `${s}://`).join(' or ')} with a host, such as ${example}`,
  );
}

export const baseConfigShape = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: serviceUrl(
    ['postgres', 'postgresql'],
    'postgres://user@127.0.0.1:5432/ferry',
  ).default('postgres://postgres@127.0.0.1:5432/ferry'),
  /**
   * Postgres itself, for what needs a session of its own (issue 47): LISTEN connections and the
   * migrator. Set when DATABASE_URL goes through a transaction pooler (PgBouncer in transaction
   * mode), which hands each transaction whichever server connection is free, so a LISTEN made on
   * one is never heard by its client. Unset, it is DATABASE_URL (loadConfig).
   */
  DATABASE_DIRECT_URL: serviceUrl(
    ['postgres', 'postgresql'],
    'postgres://user@127.0.0.1:5432/ferry',
  ).optional(),
  /** One server or Sentinels and a master name (redis-url.ts has both forms). */
  REDIS_URL: z
    .string()
    .superRefine((value, ctx) => {
      const result = parseRedisUrl(value);
      if ('problem' in result) ctx.addIssue({ code: 'custom', message: result.problem });
    })
    .default('redis://127.0.0.1:6379/0'),
  /** Every Redis key and BullMQ queue we own starts with this, so tests and tenants can share one Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,40}$/, 'letters, digits, _ and - only, at most 40')
    .default('ferry'),
  APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  PUBLIC_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * `auto`: readable lines at a terminal, JSON otherwise (see logger.ts prettyByDefault); `json`
   * and `pretty` force one (a collector reading a TTY, a person reading a pipe).
   */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  TRUST_PROXY: booleanFromEnv.default(false),
  /**
   * The bearer token Prometheus scrapes `/metrics` with. Unset, `/metrics` answers loopback
   * callers only (packages/http's metricsRouter).
   */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** A service's own entry applies pending migrations before it serves (`pnpm start` always does). */
  MIGRATE_ON_START: booleanFromEnv.default(false),
  /**
   * Slow clients (issue 47): how long a request's headers may take to arrive (slowloris), and how
   * long its body may take, by kind of route (packages/http body-deadline.ts). Settings because the
   * right values depend on the clients an operator serves: a CI uploading source maps over a slow
   * link, a proxy in front that buffers bodies itself. Tests lower them to run fast.
   */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
  /** Page forms and the JSON API: every route that does not name another kind. */
  BODY_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /** Error reports (native and Sentry) and incoming webhooks: machines' small bodies. */
  INGEST_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Bodies that are large on purpose: sentry-cli's chunks, widget feedback with a screenshot. */
  UPLOAD_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).default(300_000),
};

export const baseConfigSchema = z.object(baseConfigShape);

export type BaseEnv = z.infer<typeof baseConfigSchema>;

export type LogFormat = BaseEnv['LOG_FORMAT'];

export interface Config extends Omit<BaseEnv, 'APP_SECRET' | 'PUBLIC_URL' | 'DATABASE_DIRECT_URL'> {
  APP_SECRET: string;
  PUBLIC_URL: string;
  /** Where sessions go (LISTEN, migrations): DATABASE_DIRECT_URL, else DATABASE_URL. */
  DATABASE_DIRECT_URL: string;
  /** True when APP_SECRET fell back to the development default. */
  usingDevSecret: boolean;
  /** REDIS_URL read once: what createRedisConnection connects to. */
  redis: RedisTarget;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export type EnvLoader<T> = (env?: NodeJS.ProcessEnv) => T;

/**
 * A loader for one group of settings: empty values count as unset (so `FOO=` in an env file means
 * "the default"), the shape is parsed once, and a bad value throws a ConfigError naming every
 * problem. Every service declares its settings as a shape and gets its loader here.
 */
export function defineConfig<S extends z.ZodRawShape>(
  shape: S,
): EnvLoader<z.output<z.ZodObject<S>>> {
  const schema = z.object(shape);
  return (env = process.env) => {
    const cleaned = Object.fromEntries(
      Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
    );
    const result = schema.safeParse(cleaned);
    if (!result.success) {
      throw new ConfigError(
        result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`),
      );
    }
    return result.data;
  };
}

/**
 * Runs several loaders over one environment and returns their results by name. Every problem of
 * every loader is reported in one ConfigError, so a start lists all of them at once.
 */
export function loadAll<L extends Record<string, EnvLoader<unknown>>>(
  loaders: L,
  env: NodeJS.ProcessEnv = process.env,
): { [K in keyof L]: ReturnType<L[K]> } {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, load] of Object.entries(loaders)) {
    try {
      out[name] = load(env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return out as { [K in keyof L]: ReturnType<L[K]> };
}

const loadBaseEnv = defineConfig(baseConfigShape);

/** Parse the shared environment once. Throws a ConfigError listing every problem, one per line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = loadBaseEnv(env);
  if (parsed.NODE_ENV === 'production' && !parsed.APP_SECRET) {
    throw new ConfigError(['APP_SECRET: required when NODE_ENV=production']);
  }
  return {
    ...parsed,
    APP_SECRET: parsed.APP_SECRET ?? DEV_APP_SECRET,
    DATABASE_DIRECT_URL: parsed.DATABASE_DIRECT_URL ?? parsed.DATABASE_URL,
    PUBLIC_URL: (parsed.PUBLIC_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/$/, ''),
    usingDevSecret: !parsed.APP_SECRET,
    redis: redisTarget(parsed.REDIS_URL),
  };
}

/** REDIS_URL as a target; the schema has already refused a URL that has a problem. */
function redisTarget(url: string): RedisTarget {
  const result = parseRedisUrl(url);
  if ('problem' in result) throw new ConfigError([`REDIS_URL: ${result.problem}`]);
  return result.target;
}

/**
 * What a person should know about this config before real use, one sentence each. A process logs
 * them once at start; `pnpm start`'s cluster primary logs them for all of its workers.
 */
export function configWarnings(config: Config): string[] {
  return config.usingDevSecret
    ? ['APP_SECRET is not set: using the development default. Set it before real use.']
    : [];
}

/**
 * A service process's whole config: the shared settings plus the service's own under `key`
 * (`config.ingest`, `config.webhooksOut`, ...), every problem of both listed at once.
 */
export function serviceConfig<K extends string, T>(
  key: K,
  loadSettings: EnvLoader<T>,
): EnvLoader<Config & Record<K, T>> {
  return (env = process.env) => {
    const { base, own } = loadAll({ base: loadConfig, own: loadSettings }, env);
    return { ...base, [key]: own } as Config & Record<K, T>;
  };
}
