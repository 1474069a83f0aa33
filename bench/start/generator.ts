import { spawn } from 'node:child_process';
import { ROOT } from '../lib/children.js';
import type { LoadOutcome, LoadSpec } from './spec.js';

/** One load run in its own process (bench/start/load.ts); its one JSON line is the outcome. */
export function generate(spec: LoadSpec): Promise<LoadOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/start/load.ts', JSON.stringify(spec)],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) {
        reject(new Error(`load generator exited with ${code}: ${out.slice(-500)}`));
        return;
      }
      resolve(JSON.parse(line) as LoadOutcome);
    });
  });
}
