#!/usr/bin/env node
// `pnpm build`: each entry a container or `pnpm start` runs, bundled into one ES module under
// .build/ at the same path (services/web/src/main.ts -> .build/services/web/src/main.mjs), with a
// source map, so stack traces still name our .ts files (`node --enable-source-maps`).
//
// Why bundle: Node loading our ~300 TypeScript modules through tsx's loader costs about 2 s of CPU
// per process start on this machine; the bundle loads in about 0.4 s. That is every container
// start, every cluster worker, and every service a test starts as a child.
//
// Only our own code (@ferry/* and relative imports) goes into a bundle. Each third-party import
// stays an import, of the very file Node would load (esbuild resolves it from the importing file,
// then it is kept as that absolute path), so packages that read their own files at run time
// (BullMQ's Lua scripts, emoji data) work as they do unbundled. `import.meta.url` in our modules
// keeps meaning the source file, so paths made from it (web's public/, the widget's sources) hold.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// esbuild is the widget's build dependency (and tsx's); resolve it from there.
const esbuild = createRequire(path.join(root, 'packages/widget/package.json'))('esbuild');

/**
 * Every entry that runs in production: each service's main, the migration one-shot, and the
 * error writer's thread of `pnpm start` (services/all writer.ts loads it from beside its main).
 */
export const ENTRIES = [
  ...fs
    .readdirSync(path.join(root, 'services'))
    .map((name) => `services/${name}/src/main.ts`)
    .filter((entry) => fs.existsSync(path.join(root, entry))),
  'services/all/src/writer-thread.ts',
  'packages/db/src/cli/migrate.ts',
];

/** Where an entry's bundle is written, relative to the repository root. */
export function bundleOf(entry) {
  return path.join('.build', entry.replace(/\.ts$/, '.mjs'));
}

const ownCode = {
  name: 'ferry-own-code',
  setup(build) {
    // A bare import that is not ours: resolve it where Node would, and keep it external.
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@ferry/') || args.path.startsWith('node:')) return undefined;
      if (args.pluginData === 'resolving') return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'resolving',
      });
      if (resolved.errors.length) return { errors: resolved.errors };
      // A Node builtin imported without `node:` (esbuild marks those external itself).
      if (resolved.external) return { path: args.path, external: true };
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
    // Our TypeScript: `import.meta.url` stays the source file's URL.
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await fs.promises.readFile(args.path, 'utf8');
      return {
        contents: source.replaceAll(
          'import.meta.url',
          JSON.stringify(pathToFileURL(args.path).href),
        ),
        loader: 'ts',
      };
    });
  },
};

/** Bundles every entry (or the given ones); resolves once all are written. */
export async function buildEntries(entries = ENTRIES) {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(
      entries.map((entry) => [
        bundleOf(entry)
          .replace(/^\.build\//, '')
          .replace(/\.mjs$/, ''),
        entry,
      ]),
    ),
    outdir: '.build',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Node's own rules for third-party packages: no "module" field or condition.
    mainFields: ['main'],
    conditions: [],
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [ownCode],
    write: false,
  });
  // Each file written whole, then renamed into place: a process starting while `pnpm start` or a
  // test run rebuilds (a second terminal, say) reads the old bundle or the new one, never half.
  for (const file of result.outputFiles) {
    await fs.promises.mkdir(path.dirname(file.path), { recursive: true });
    const partial = `${file.path}.${process.pid}.partial`;
    await fs.promises.writeFile(partial, file.contents);
    await fs.promises.rename(partial, file.path);
  }
}

/**
 * Scripts the tests run as child processes to kill them mid-work (packages/testing's
 * spawnScript): every `*-process.ts` under a package's or service's test directory.
 */
export function testProcessEntries() {
  const found = [];
  for (const group of ['packages', 'services']) {
    for (const name of fs.readdirSync(path.join(root, group))) {
      const tests = path.join(root, group, name, 'test');
      if (!fs.existsSync(tests)) continue;
      for (const file of fs.readdirSync(tests, { recursive: true })) {
        if (String(file).endsWith('-process.ts')) found.push(`${group}/${name}/test/${file}`);
      }
    }
  }
  return found;
}

/**
 * Vitest's globalSetup (vitest.config.mjs): the services and scripts a test starts as children run
 * today's code, bundled as containers run it.
 */
export async function setup() {
  await buildEntries([...ENTRIES, ...testProcessEntries()]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const started = Date.now();
  await buildEntries();
  // `npm start` builds quietly (its banner is the first thing a person should read).
  if (!process.argv.includes('--quiet')) {
    console.error(`built ${ENTRIES.length} entries into .build/ in ${Date.now() - started} ms`);
  }
}
