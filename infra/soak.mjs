#!/usr/bin/env node
// `pnpm test:soak [--runs N] [--busy K]`: the whole suite N times in a row (default 5), the last
// K of them (default 2) with one core kept busy by another process, as on CI's loaded host. Then
// every test that failed at least once, with its first error, and each run's time. A flake found
// here costs minutes; found by CI it costs a whole run. Extra arguments go to `infra/test.mjs`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
function option(name, fallback) {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  args.splice(at, 2);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`${name} takes a whole number`);
    process.exit(2);
  }
  return value;
}
const runs = option('--runs', 5);
const busy = Math.min(option('--busy', 2), runs);

/** One core at 100% until stopped: a child process, so it competes like another program would. */
function busyCore() {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  return () => child.kill('SIGKILL');
}

function runSuite(report) {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(
      process.execPath,
      [path.join(root, 'infra/test.mjs'), ...args, `--outputFile=${report}`],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk) => {
        output += chunk.toString();
      });
    }
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const failures = new Map(); // test name -> { runs: [n], error }
let recorded = 0; // failures recorded so far, over all runs
const summary = [];
for (let n = 1; n <= runs; n++) {
  const loaded = n > runs - busy;
  const report = path.join(root, '.data', `soak-${n}.json`);
  fs.rmSync(report, { force: true });
  const stopBusy = loaded ? busyCore() : () => undefined;
  const load = os.loadavg()[0].toFixed(2);
  const started = Date.now();
  process.stdout.write(`run ${n}/${runs}${loaded ? ' (one core busy)' : ''}, load ${load} … `);
  const { code, output } = await runSuite(report);
  stopBusy();
  const seconds = (Date.now() - started) / 1000;
  const closing = output.trim().split('\n').pop() ?? '';
  console.log(`${closing} in ${seconds.toFixed(0)} s`);
  summary.push({ n, loaded, seconds, closing, code });
  // Every run's whole output is kept: a run can fail outside any test (an unhandled error after
  // its file ended, a runner that exits non-zero), and then the output is all that says why.
  const log = path.join(root, '.data', `soak-${n}.log`);
  fs.writeFileSync(log, output);
  const recordedBefore = recorded;
  try {
    const results = JSON.parse(fs.readFileSync(report, 'utf8'));
    for (const file of results.testResults ?? []) {
      const rel = path.relative(root, file.name);
      if (file.status === 'failed' && !file.assertionResults?.some((t) => t.status === 'failed')) {
        record(`${rel} (the file did not run)`, n, file.message);
      }
      for (const test of file.assertionResults ?? []) {
        if (test.status === 'failed')
          record(`${rel} › ${test.fullName}`, n, test.failureMessages?.[0]);
      }
    }
  } catch {
    record('the suite wrote no report', n, output.slice(-2000));
  }
  for (const line of output.split('\n')) {
    const python = /^(FAIL|ERROR): (\S+) \((.+)\)/.exec(line);
    if (python) record(`packages/agent › ${python[3]}.${python[2]}`, n, line);
  }
  if (code !== 0 && recorded === recordedBefore) {
    record(`run ${n} exited ${code} with no failed test (whole output: ${log})`, n, tail(output));
  }
}

/** The end of a run's output, where the runners print errors that belong to no test. */
function tail(output) {
  // Vitest prints errors that belong to no test under an "Unhandled Error(s)" banner.
  const unhandled = output.search(/Unhandled (Errors?|Rejection)/);
  if (unhandled >= 0) return output.slice(unhandled, unhandled + 3000);
  return output.trim().split('\n').slice(-60).join('\n');
}

function record(name, run, error) {
  recorded += 1;
  const seen = failures.get(name) ?? { runs: [], error: String(error ?? '').slice(0, 3000) };
  seen.runs.push(run);
  failures.set(name, seen);
}

console.log('');
if (!failures.size) {
  console.log(`no test failed in ${runs} runs (${busy} with one core busy)`);
} else {
  console.log(`${failures.size} test(s) failed at least once:`);
  for (const [name, { runs: where, error }] of failures) {
    console.log(
      `\n✕ ${name}\n  failed in run(s) ${where.join(', ')}\n${error.replace(/^/gm, '    ')}`,
    );
  }
}
process.exit(failures.size || summary.some((s) => s.code !== 0) ? 1 : 0);
