import { z } from 'zod';

/**
 * Environment shared by every service. Services extend it with `baseConfigShape` and parse once
 * at start with `loadConfig`, so a misconfigured process fails before it serves anything.
 */
const DEV_APP_SECRET = 'ferry-dev-secret-do-not-use-in-production';

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const baseConfigShape = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z.url().default('postgres://postgres@127.0.0.1:5432/ferry'),
  REDIS_URL: z.url().default('redis://127.0.0.1:6379/0'),
  /** Every Redis key and BullMQ queue we own starts with this, so tests and tenants can share one Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,40}$/, 'letters, digits, _ and - only, at most 40')
    .default('ferry'),
  APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  PUBLIC_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: booleanFromEnv.default(false),
};

export const baseConfigSchema = z.object(baseConfigShape);

export type BaseEnv = z.infer<typeof baseConfigSchema>;

export interface Config extends Omit<BaseEnv, 'APP_SECRET' | 'PUBLIC_URL'> {
  APP_SECRET: string;
  PUBLIC_URL: string;
  /** True when APP_SECRET fell back to the development default. */
  usingDevSecret: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parse the environment once. Throws a ConfigError listing every problem, one per line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = baseConfigSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`),
    );
  }
  const parsed = result.data;
  if (parsed.NODE_ENV === 'production' && !parsed.APP_SECRET) {
    throw new ConfigError(['APP_SECRET: required when NODE_ENV=production']);
  }
  return {
    ...parsed,
    APP_SECRET: parsed.APP_SECRET ?? DEV_APP_SECRET,
    PUBLIC_URL: (parsed.PUBLIC_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/$/, ''),
    usingDevSecret: !parsed.APP_SECRET,
  };
}
