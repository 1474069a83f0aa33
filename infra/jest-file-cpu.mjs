// Jest setup file (jest.config.mjs setupFilesAfterEnv): when infra/test.mjs names a file in
// FERRY_TEST_CPU_FILE, appends one line per test file with the CPU its jest worker spent on it
// (process.cpuUsage from this file's start to its afterAll: the test code and the servers it runs
// in process; child processes and the shared Chromium are not counted). On 2 cores the suite is
// CPU-bound, so a file's wall time mostly says whom it shared the cores with; its CPU says what it
// costs the suite.
import fs from 'node:fs';
import { afterAll, expect } from '@jest/globals';

const target = process.env.FERRY_TEST_CPU_FILE;
if (target) {
  const start = process.cpuUsage();
  afterAll(() => {
    const used = process.cpuUsage(start);
    const line = { file: expect.getState().testPath, cpu: (used.user + used.system) / 1e6 };
    fs.appendFileSync(target, `${JSON.stringify(line)}\n`);
  });
}
