#!/usr/bin/env node
// `pnpm --filter @ferry/sdk-node build [outDir]`: the library as plain JavaScript (ES modules) with
// its type declarations, a package.json whose `exports` points at them, and the README, in
// packages/sdk-node/dist (or outDir). That folder is what an app installs
// (`npm install /path/to/dist`, or the tarball `npm pack` makes of it): Node cannot run the
// TypeScript sources that the monorepo itself uses.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, 'dist'));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

fs.rmSync(out, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [tsc, '-p', path.join(here, 'tsconfig.build.json'), '--outDir', out],
  {
    stdio: 'inherit',
  },
);

const source = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
const published = {
  name: source.name,
  version: source.version,
  description: 'Reports server errors to Ferry (POST /ingest/errors); Express error handler.',
  type: 'module',
  exports: { '.': { types: './index.d.ts', default: './index.js' } },
  types: './index.d.ts',
  engines: source.engines,
};
fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
fs.copyFileSync(path.join(here, 'README.md'), path.join(out, 'README.md'));
console.log(`@ferry/sdk-node ${source.version} built in ${out}`);
