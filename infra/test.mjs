#!/usr/bin/env node
// `pnpm test`: vitest over every package and service, then the rolling-upgrade test alone, and the
// local agent's Python tests (unittest, standard library only), then one closing line counting all:
//   tests: N passed, N failed, N skipped
// Arguments go to vitest (a path or -t pattern runs part of the suite; the Python tests then run
// only when no argument narrows the run, or with --python).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const forcePython = args.includes('--python');
// --record-durations: after the run, keep each file's duration in infra/test-durations.json, which
// vitest.config.mjs's sequencer reads to start the longest files first (commit it after a quiet
// run).
const recordDurations = args.includes('--record-durations');
const ownFlags = new Set(['--python', '--record-durations']);
const vitestArgs = args.filter((arg) => !ownFlags.has(arg));
const narrowed = vitestArgs.some((arg) => !arg.startsWith('--') || arg === '-t');

function run(command, commandArgs, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { cwd: root, ...options });
    let captured = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk) => {
        captured += chunk.toString();
        if (!options.quiet)
          (stream === child.stdout ? process.stdout : process.stderr).write(chunk);
      });
    }
    child.on('error', (error) => resolve({ code: 127, captured: String(error) }));
    // 'close', not 'exit': a captured stream may still hold output when the process exits.
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), captured }));
  });
}

const counts = { passed: 0, failed: 0, skipped: 0 };
/** Left out of the first vitest run by vitest.config.mjs unless FERRY_UPGRADE_TEST is set. */
const UPGRADE_TEST = 'services/all/test/rolling-upgrade.test.ts';

// The local agent's Python tests run beside vitest (they are mostly waiting on git and pipes);
// their output is printed after vitest's, so the two never interleave.
const started = Date.now();
const agentDir = path.join(root, 'packages', 'agent');
const runPython = (!narrowed || forcePython) && fs.existsSync(path.join(agentDir, 'tests'));
const python = runPython
  ? run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], {
      cwd: agentDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      quiet: true,
    }).then((result) => ({ ...result, seconds: (Date.now() - started) / 1000 }))
  : undefined;

// vitest: its own JSON report gives exact counts.
fs.mkdirSync(path.join(root, '.data'), { recursive: true });
// Each file's CPU in its vitest worker (infra/test-file-cpu.mjs), for printMostCpu.
const cpuFile = path.join(root, '.data', 'test-file-cpu.jsonl');
fs.rmSync(cpuFile, { force: true });
// infra/soak.mjs names its own report (`--outputFile=F`).
const reportArg = vitestArgs.find((arg) => arg.startsWith('--outputFile='));
const report = reportArg?.split('=')[1] ?? path.join(root, '.data', 'test-results.json');
fs.rmSync(path.resolve(root, report), { force: true });
const vitest = await run(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    ...vitestArgs.filter((arg) => arg !== reportArg),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ],
  {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, FERRY_TEST_CPU_FILE: cpuFile },
  },
);
const vitestSeconds = (Date.now() - started) / 1000;
const files = countReport(report);
if (files) {
  printSlowest(files);
  printMostCpu();
  if (recordDurations) writeDurations(files);
}

// The rolling upgrade (services/all/test/rolling-upgrade.test.ts, issue 47) runs after the rest,
// alone: it serves two releases under steady load for about a minute, and measures pauses that a
// suite running beside it would only add to. Part of every whole run (`pnpm test`, so `.ci/run`);
// `pnpm test:upgrade` runs it by itself.
let upgradeCode = 0;
if (!narrowed) {
  const upgradeStarted = Date.now();
  const upgradeReport = path.join(root, '.data', 'test-upgrade-results.json');
  fs.rmSync(upgradeReport, { force: true });
  const upgrade = await run(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      UPGRADE_TEST,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${upgradeReport}`,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, FERRY_UPGRADE_TEST: '1' } },
  );
  upgradeCode = upgrade.code;
  countReport(upgradeReport);
  console.log(
    `rolling upgrade: ${((Date.now() - upgradeStarted) / 1000).toFixed(0)} s (after vitest)`,
  );
}

/**
 * Adds a vitest JSON report's counts to `counts`; returns its files, or undefined (and one
 * failure) when vitest wrote none: it did not run.
 */
function countReport(file) {
  let results;
  try {
    results = JSON.parse(fs.readFileSync(path.resolve(root, file), 'utf8'));
  } catch {
    counts.failed += 1;
    return undefined;
  }
  counts.passed += results.numPassedTests;
  counts.failed += results.numFailedTests;
  counts.skipped += results.numPendingTests + results.numTodoTests;
  // A file that failed to load (or failed in a hook before any test) has no failed test to count.
  counts.failed += (results.testResults ?? []).filter(
    (entry) =>
      entry.status === 'failed' && !entry.assertionResults?.some((t) => t.status === 'failed'),
  ).length;
  return results.testResults ?? [];
}

// Python: `python3 -m unittest` prints "Ran N tests" and "OK" / "FAILED (failures=1, ...)".
let pythonCode = 0;
if (python) {
  const py = await python;
  process.stdout.write(py.captured);
  pythonCode = py.code;
  const ran = Number(/Ran (\d+) tests?/.exec(py.captured)?.[1] ?? 0);
  const number = (name) => Number(new RegExp(`${name}=(\\d+)`).exec(py.captured)?.[1] ?? 0);
  const failed = number('failures') + number('errors') + number('unexpected successes');
  const skipped = number('skipped') + number('expected failures');
  counts.passed += ran - failed - skipped;
  counts.failed += failed + (py.code !== 0 && failed === 0 ? 1 : 0);
  counts.skipped += skipped;
  console.log(`python: ${py.seconds.toFixed(0)} s (beside vitest)`);
}
console.log(
  `vitest: ${vitestSeconds.toFixed(0)} s; whole run: ${((Date.now() - started) / 1000).toFixed(0)} s`,
);

/** Merges this run's file durations into infra/test-durations.json; files since deleted drop out. */
function writeDurations(files) {
  const file = path.join(root, 'infra', 'test-durations.json');
  let durations = {};
  try {
    durations = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // first recording
  }
  for (const result of files) {
    const seconds = ((result.endTime ?? 0) - (result.startTime ?? 0)) / 1000;
    durations[path.relative(root, result.name)] = Math.round(seconds * 10) / 10;
  }
  const kept = Object.entries(durations)
    .filter(([name]) => fs.existsSync(path.join(root, name)))
    .sort(([a], [b]) => a.localeCompare(b));
  fs.writeFileSync(file, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`);
  console.log(`durations of ${files.length} files recorded in infra/test-durations.json`);
}

/** The 15 slowest test files, so the next engineer sees creep (`pnpm test` prints it last). */
function printSlowest(files) {
  const timed = files
    .map((file) => ({
      name: path.relative(root, file.name),
      seconds: ((file.endTime ?? 0) - (file.startTime ?? 0)) / 1000,
    }))
    .sort((a, b) => b.seconds - a.seconds);
  if (!timed.length) return;
  console.log('\nslowest test files:');
  for (const { name, seconds } of timed.slice(0, 15)) {
    console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${name}`);
  }
  const sum = timed.reduce((total, file) => total + file.seconds, 0);
  console.log(`  ${sum.toFixed(0).padStart(6)} s  all ${timed.length} files, added up\n`);
}

/**
 * The 15 test files that cost the most CPU in their vitest worker: on 2 cores the suite is
 * CPU-bound, so this, not the wall time above, is what a change to a file saves the whole run.
 */
function printMostCpu() {
  let lines = [];
  try {
    lines = fs.readFileSync(cpuFile, 'utf8').trim().split('\n').filter(Boolean).map(JSON.parse);
  } catch {
    return; // no file ran to its end
  }
  const sorted = lines.sort((a, b) => b.cpu - a.cpu);
  console.log('most CPU in the vitest worker (child processes and Chromium not counted):');
  for (const { file, cpu } of sorted.slice(0, 15)) {
    console.log(`  ${cpu.toFixed(1).padStart(6)} s  ${path.relative(root, file)}`);
  }
  const sum = sorted.reduce((total, line) => total + line.cpu, 0);
  const load = sorted.reduce((total, line) => total + (line.load ?? 0), 0);
  console.log(`  ${sum.toFixed(0).padStart(6)} s  all ${sorted.length} files, added up`);
  console.log(
    `  ${load.toFixed(0).padStart(6)} s  of it loading modules, before each file's first hook\n`,
  );
}

console.log(`tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(vitest.code !== 0 || upgradeCode !== 0 || pythonCode !== 0 || counts.failed ? 1 : 0);
