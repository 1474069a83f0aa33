// One vitest run over every package and service. Each test file isolates itself (its own database
// cloned from a template, its own Redis prefix), so files run in parallel, four at a time: on two
// cores a file waits on Postgres, Redis, child processes and Chromium as much as it runs itself.
// Measured here (whole suite, quiet): 3 workers 265-268 s, 4 workers 249 s, 5 workers 269 s.
import fs from 'node:fs';
import process from 'node:process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer } from 'vitest/node';

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * Longest files first, so the run does not end with one worker alone on a slow file. Durations
 * come from infra/test-durations.json (`node infra/test.mjs --record-durations` after a quiet full
 * run), so a fresh clone (CI) orders the same way; a file not in it goes after the timed ones of a
 * second or more: an unknown file is probably not tiny.
 */
class LongestFirst extends BaseSequencer {
  recorded = readDurations();

  sort(specs) {
    const seconds = (spec) => this.recorded[path.relative(root, spec.moduleId)];
    const known = specs.filter((spec) => typeof seconds(spec) === 'number');
    const unknown = specs.filter((spec) => typeof seconds(spec) !== 'number');
    known.sort((a, b) => seconds(b) - seconds(a));
    const long = known.filter((spec) => seconds(spec) >= 1);
    const short = known.filter((spec) => seconds(spec) < 1);
    return Promise.resolve([...long, ...unknown, ...short]);
  }
}

function readDurations() {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, 'infra', 'test-durations.json'), 'utf8'));
  } catch {
    return {};
  }
}

export default defineConfig({
  test: {
    include: ['{packages,services,bench}/*/test/**/*.test.ts'],
    exclude: [
      '**/node_modules/**',
      '**/.tsbuild/**',
      // The rolling upgrade builds the previous release and runs alone, after the rest of a whole
      // `pnpm test` (infra/test.mjs) or by `pnpm test:upgrade`: both set FERRY_UPGRADE_TEST.
      ...(process.env.FERRY_UPGRADE_TEST ? [] : ['services/all/test/rolling-upgrade.test.ts']),
    ],
    // Child processes, not threads: tests start servers, send signals and spawn programs.
    pool: 'forks',
    poolOptions: {
      // A worker keeps the modules it loaded for the next file instead of loading them all anew:
      // that was over a third of the suite's CPU. Files share no state beyond modules: each makes
      // its own database, Redis prefix and servers, and closes them in its afterAll.
      forks: {
        // A larger young generation: the in-process servers allocate fast (the fuzz files post
        // thousands of forms), and fewer scavenges cost measurably less CPU (about 5% there).
        execArgv: ['--max-semi-space-size=32'],
        isolate: false,
      },
    },
    maxWorkers: 4,
    minWorkers: 4,
    // Bounds for a hang, not claims of speed: a test waits for the events that matter, each wait
    // says what it waited for. On a host where syscalls cost several times more (a PVM guest with
    // page-table isolation: 1.3 us per syscall here on 2026-11-27) browser tests took 25-100 s
    // quiet, and a CI run on such a host stretched one file 2.4 times (113 -> 244 s): five
    // minutes leaves every test three times its quiet duration there.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Every entry bundled (services a test starts as children run what containers run), then the
    // stores, the migrated template and the suite's one Chromium, once for all workers.
    globalSetup: ['infra/build.mjs', 'packages/testing/src/global-setup.ts'],
    // Each file's CPU, for infra/test.mjs's report (does nothing unless it asks).
    setupFiles: ['infra/test-file-cpu.mjs'],
    sequence: { sequencer: LongestFirst },
  },
});
