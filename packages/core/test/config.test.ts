import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { booleanFromEnv, ConfigError, defineConfig, loadAll, loadConfig } from '../src/config.js';

function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  const loadLimits = defineConfig({
    LIMIT: z.coerce.number().int().min(1).default(60),
    ENABLED: booleanFromEnv.default(true),
  });

  it('treats empty values as unset and reads every switch spelling', () => {
    expect(loadLimits({ LIMIT: '', ENABLED: '' })).toEqual({ LIMIT: 60, ENABLED: true });
    expect(loadLimits({ LIMIT: '5', ENABLED: 'no' })).toEqual({ LIMIT: 5, ENABLED: false });
    expect(loadLimits({ ENABLED: '1' }).ENABLED).toBe(true);
  });

  it('names every bad setting of every group at once', () => {
    const problems = problemsOf(() =>
      loadAll(
        { base: loadConfig, limits: loadLimits },
        { PORT: 'eighty', LOG_LEVEL: 'loud', LIMIT: '0', ENABLED: 'maybe' },
      ),
    );
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'ENABLED',
      'LIMIT',
      'LOG_LEVEL',
      'PORT',
    ]);
  });

  it('requires APP_SECRET in production and warns of the default elsewhere', () => {
    expect(problemsOf(() => loadConfig({ NODE_ENV: 'production' }))).toEqual([
      'APP_SECRET: required when NODE_ENV=production',
    ]);
    expect(loadConfig({}).usingDevSecret).toBe(true);
    const config = loadConfig({
      APP_SECRET: 'x'.repeat(32),
      PORT: '4000',
      MIGRATE_ON_START: 'true',
    });
    expect(config).toMatchObject({
      usingDevSecret: false,
      PUBLIC_URL: 'http://localhost:4000',
      MIGRATE_ON_START: true,
    });
  });

  it('refuses a database or Redis URL the driver cannot use, in the list of problems (issue 42)', () => {
    const problems = problemsOf(() =>
      loadConfig({ DATABASE_URL: 'postgress:/nonsense', REDIS_URL: 'http://127.0.0.1:6379' }),
    );
    expect(problems).toEqual([
      'DATABASE_URL: must be a URL of scheme postgres:// or postgresql:// with a host, such as postgres://user@127.0.0.1:5432/ferry',
      'REDIS_URL: must be a URL of scheme redis://, rediss:// or redis+sentinel:// with a host, such as redis://host:6379/0, rediss://host:6380/0 or redis+sentinel://host1:26379,host2:26379/mymaster/0',
    ]);
    expect(problemsOf(() => loadConfig({ DATABASE_URL: 'not a url' }))).toHaveLength(1);
    // What drivers accept still loads: a socket folder, TLS Redis, the postgresql scheme.
    const config = loadConfig({
      DATABASE_URL: 'postgresql:///ferry?host=/var/run/postgresql',
      REDIS_URL: 'rediss://:secret@cache.internal:6380/1',
    });
    expect(config.DATABASE_URL).toBe('postgresql:///ferry?host=/var/run/postgresql');
  });

  it('takes DATABASE_DIRECT_URL for sessions, DATABASE_URL when unset or empty (issue 47)', () => {
    const pooled = 'postgres://app@pgbouncer:6432/ferry';
    const direct = 'postgres://app@postgres:5432/ferry';
    expect(loadConfig({ DATABASE_URL: pooled }).DATABASE_DIRECT_URL).toBe(pooled);
    expect(loadConfig({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: '' }).DATABASE_DIRECT_URL).toBe(
      pooled,
    );
    const both = loadConfig({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct });
    expect([both.DATABASE_URL, both.DATABASE_DIRECT_URL]).toEqual([pooled, direct]);
    expect(problemsOf(() => loadConfig({ DATABASE_DIRECT_URL: 'pgbouncer:6432' }))).toEqual([
      'DATABASE_DIRECT_URL: must be a URL of scheme postgres:// or postgresql:// with a host, such as postgres://user@127.0.0.1:5432/ferry',
    ]);
  });
});
