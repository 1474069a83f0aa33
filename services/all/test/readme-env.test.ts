import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * #28: README's Environment table lists every variable the code reads, and every command has its
 * npm equivalent beside the pnpm one (the quick start promises a machine without pnpm). This
 * scans the server's source (services, packages, the start scripts) the way a reader would look
 * for what to set: `process.env.NAME`, zod config shapes' keys, and a shell script's
 * `${NAME:-default}`.
 */

const ROOT = path.resolve(new URL('.', import.meta.url).pathname, '../../..');

/** Read by the code but not settings of Ferry's: the system's PATH, a variable in a code sample. */
const NOT_SETTINGS = new Set(['PATH', 'FERRY_WEBHOOK_SECRET']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === '.tsbuild' || name === 'test') continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) sourceFiles(full, out);
    else if (/\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Every environment variable the server-side code reads, with a file that reads it. */
function variablesRead(): Map<string, string> {
  const files = [
    ...readdirSync(path.join(ROOT, 'services')).flatMap((s) =>
      sourceFiles(path.join(ROOT, 'services', s, 'src')),
    ),
    ...readdirSync(path.join(ROOT, 'packages'))
      // The test harness (its own variables) and the Python agent (its README section) aside.
      .filter((p) => p !== 'testing' && p !== 'agent')
      .flatMap((p) => sourceFiles(path.join(ROOT, 'packages', p, 'src'))),
    path.join(ROOT, 'infra/bootstrap.mjs'),
  ];
  const found = new Map<string, string>();
  const add = (name: string | undefined, file: string) => {
    if (name && !NOT_SETTINGS.has(name) && !found.has(name)) {
      found.set(name, path.relative(ROOT, file));
    }
  };
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(
      /process\.env(?:\.([A-Z_][A-Z0-9_]*)|\[['"]([A-Z_][A-Z0-9_]*)['"]\])/g,
    )) {
      add(m[1] ?? m[2], file);
    }
    // Config shapes parsed with zod: `defineConfig({ NAME: z… })`, `…Shape = { NAME: z… }`.
    if (/defineConfig\(|Shape = \{/.test(text)) {
      for (const m of text.matchAll(/^\s+([A-Z][A-Z0-9_]{2,}):/gm)) add(m[1], file);
    }
  }
  const shell = path.join(ROOT, 'infra/ensure-stores.sh');
  for (const m of readFileSync(shell, 'utf8').matchAll(/\$\{([A-Z_][A-Z0-9_]*):?-/g)) {
    add(m[1], shell);
  }
  return found;
}

function readmeSection(title: string, next: string): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`## ${title}`);
  const end = readme.indexOf(`## ${next}`, start);
  expect(start).toBeGreaterThan(-1);
  return readme.slice(start, end);
}

describe('README and first run (#28)', () => {
  it('lists every variable the code reads in the Environment table', () => {
    const table = readmeSection('Environment', 'Using it');
    const read = variablesRead();
    // The scan itself works: it finds the ones everyone sets, from config shapes and scripts.
    expect([...read.keys()]).toEqual(
      expect.arrayContaining([
        'PORT',
        'DATABASE_URL',
        'WEBHOOK_TIMEOUT_MS',
        'ERROR_INGESTION_ENABLED',
      ]),
    );
    const missing = [...read].filter(([name]) => !table.includes(`\`${name}\``));
    expect(missing.map(([name, file]) => `${name} (read in ${file})`)).toEqual([]);
  });

  it('gives the npm equivalent beside every pnpm command', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    // Each line with a `pnpm …` command also names an `npm …` one (npm start, npm run …), but
    // for lines about pnpm itself (what pnpm users keep doing, why containers skip `pnpm exec`).
    const lines = readme
      .split('\n')
      .filter((line) => /`pnpm [^`]+`|^\s*pnpm |[(: ]pnpm start/.test(line))
      .filter((line) => !/`pnpm exec`|pnpm users keep/.test(line))
      .filter((line) => !/`npm |\bnpm (start|test|run) /.test(line));
    expect(lines).toEqual([]);
  });
});
