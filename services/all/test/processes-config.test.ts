import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadProcesses, postgresIsLocal } from '../src/config.js';

/**
 * How many processes `pnpm start` runs: FERRY_PROCESSES, else WEB_CONCURRENCY, else the cores (less
 * one when Postgres shares them).
 */
describe('FERRY_PROCESSES', () => {
  const cores = os.availableParallelism();
  const remote = 'postgres://ferry@db.internal:5432/ferry';

  it('defaults to every core this process may use, less one for a Postgres on this host', () => {
    expect(loadProcesses({ DATABASE_URL: remote })).toBe(cores);
    expect(loadProcesses({ DATABASE_URL: remote, FERRY_PROCESSES: '' })).toBe(cores);
    const local = Math.max(1, cores - 1);
    // The default DATABASE_URL is this host's Postgres.
    expect(loadProcesses({})).toBe(local);
    for (const url of [
      'postgres://postgres@127.0.0.1:5432/ferry',
      'postgres://postgres@localhost/ferry',
      'postgres://postgres@[::1]:5432/ferry',
      'postgres:///ferry?host=/var/run/postgresql',
    ]) {
      expect(loadProcesses({ DATABASE_URL: url }), url).toBe(local);
    }
    // Past a pooler on this host, Postgres is where DATABASE_DIRECT_URL says.
    expect(
      loadProcesses({
        DATABASE_URL: 'postgres://app@127.0.0.1:6432/ferry',
        DATABASE_DIRECT_URL: remote,
      }),
    ).toBe(cores);
  });

  it('names Postgres local by its URL', () => {
    expect(postgresIsLocal({ DATABASE_URL: 'postgres://u@127.0.0.2/db' })).toBe(true);
    expect(postgresIsLocal({ DATABASE_URL: 'postgres://u@10.0.0.5/db' })).toBe(false);
    expect(postgresIsLocal({ DATABASE_URL: 'not a url' })).toBe(false);
  });

  it('takes FERRY_PROCESSES over WEB_CONCURRENCY', () => {
    expect(loadProcesses({ WEB_CONCURRENCY: '3' })).toBe(3);
    expect(loadProcesses({ FERRY_PROCESSES: '1', WEB_CONCURRENCY: '3' })).toBe(1);
  });

  it('names every bad value', () => {
    expect(() => loadProcesses({ FERRY_PROCESSES: '0', WEB_CONCURRENCY: 'x' })).toThrow(
      /FERRY_PROCESSES: must be at least 1\n.*WEB_CONCURRENCY: must be a whole number/,
    );
    expect(() => loadProcesses({ FERRY_PROCESSES: '1.5' })).toThrow(/must be a whole number/);
  });
});
