import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadProcesses } from '../src/config.js';

/** How many processes `pnpm start` runs: FERRY_PROCESSES, else WEB_CONCURRENCY, else the cores. */
describe('FERRY_PROCESSES', () => {
  it('defaults to every core this process may use', () => {
    expect(loadProcesses({})).toBe(os.availableParallelism());
    expect(loadProcesses({ FERRY_PROCESSES: '' })).toBe(os.availableParallelism());
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
