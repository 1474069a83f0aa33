#!/usr/bin/env node
// `pnpm test`: jest over every package and service, then the local agent's Python tests
// (unittest, standard library only), then one closing line counting both:
//   tests: N passed, N failed, N skipped
// Arguments go to jest (a path or -t pattern runs part of the suite; the Python tests then run
// only when no argument narrows the run, or with --python).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const forcePython = args.includes('--python');
const jestArgs = args.filter((arg) => arg !== '--python');
const narrowed = jestArgs.some((arg) => !arg.startsWith('--') || arg === '-t');

function run(command, commandArgs, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { cwd: root, ...options });
    let captured = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk) => {
        captured += chunk.toString();
        (stream === child.stdout ? process.stdout : process.stderr).write(chunk);
      });
    }
    child.on('error', (error) => resolve({ code: 127, captured: String(error) }));
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), captured }));
  });
}

const counts = { passed: 0, failed: 0, skipped: 0 };

// jest: its own JSON report gives exact counts.
fs.mkdirSync(path.join(root, '.data'), { recursive: true });
const ownReport = !jestArgs.some((arg) => arg.startsWith('--outputFile'));
const report = ownReport
  ? path.join(root, '.data', 'jest-results.json')
  : jestArgs.find((arg) => arg.startsWith('--outputFile'))?.split('=')[1];
const jest = await run(
  process.execPath,
  [
    '--experimental-vm-modules',
    'node_modules/jest/bin/jest.js',
    ...jestArgs,
    ...(ownReport ? ['--json', `--outputFile=${report}`] : []),
  ],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
try {
  const results = JSON.parse(fs.readFileSync(path.resolve(root, report ?? ''), 'utf8'));
  counts.passed += results.numPassedTests;
  counts.failed += results.numFailedTests;
  counts.skipped += results.numPendingTests + results.numTodoTests;
  if (results.numRuntimeErrorTestSuites) counts.failed += results.numRuntimeErrorTestSuites;
} catch {
  counts.failed += 1; // jest wrote no report: it did not run
}

// Python: `python3 -m unittest` prints "Ran N tests" and "OK" / "FAILED (failures=1, ...)".
let pythonCode = 0;
const agentDir = path.join(root, 'packages', 'agent');
if ((!narrowed || forcePython) && fs.existsSync(path.join(agentDir, 'tests'))) {
  const py = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], {
    cwd: agentDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pythonCode = py.code;
  const ran = Number(/Ran (\d+) tests?/.exec(py.captured)?.[1] ?? 0);
  const number = (name) => Number(new RegExp(`${name}=(\\d+)`).exec(py.captured)?.[1] ?? 0);
  const failed = number('failures') + number('errors') + number('unexpected successes');
  const skipped = number('skipped') + number('expected failures');
  counts.passed += ran - failed - skipped;
  counts.failed += failed + (py.code !== 0 && failed === 0 ? 1 : 0);
  counts.skipped += skipped;
}

console.log(`tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(jest.code !== 0 || pythonCode !== 0 || counts.failed ? 1 : 0);
