// Vitest setup file (vitest.config.mjs setupFiles): when infra/test.mjs names a file in
// FERRY_TEST_CPU_FILE, appends one line per test file with the CPU its vitest worker spent on it
// (process.cpuUsage from this file's start to its afterAll: the test code and the servers it runs
// in process; child processes and the shared Chromium are not counted), and how much of that came
// before its first hook: loading its modules (a worker keeps those it loaded for an earlier file).
// On 2 cores the suite is CPU-bound, so a file's wall time mostly says whom it shared the cores
// with; its CPU says what it costs the suite.
import fs from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';

const target = process.env.FERRY_TEST_CPU_FILE;
if (target) {
  const start = process.cpuUsage();
  const seconds = (used) => (used.user + used.system) / 1e6;
  let load;
  // Registered here, before the test file is imported, so it runs ahead of the file's own hooks.
  beforeAll(() => {
    load = seconds(process.cpuUsage(start));
  });
  afterAll(() => {
    const line = { file: expect.getState().testPath, cpu: seconds(process.cpuUsage(start)), load };
    fs.appendFileSync(target, `${JSON.stringify(line)}\n`);
  });
}
