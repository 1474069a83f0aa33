import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKOUT_TS, MONEY_TS } from '@ferry/testing';
import { ROOT } from '../lib/children.js';

/**
 * One build of the bench's shop app: @ferry/testing's money.ts and checkout.ts (parsePrice throws
 * at THROW_LINE), called from a click handler through a small UI library in node_modules (the
 * frames between the page and the app are the library's, as a framework's are), plus the
 * library's other helpers, so the bundle and its map have a real app's size (about
 * `helpers` x 0.2 KB of map). Bundled and minified by esbuild with a source map, as
 * packages/testing's buildMinifiedApp does; `variant` changes the minified output (a banner,
 * constants of the same width, esbuild's keepNames on odd variants) but no source line, so the
 * mapped frames of every build are the same.
 */

/** esbuild through @ferry/testing's own dependency (the bench declares none of its own). */
const { build } = createRequire(join(ROOT, 'packages/testing/package.json'))('esbuild') as {
  build(this: void, options: Record<string, unknown>): Promise<unknown>;
};

/** The library's call chain from the click to the app's handler, top of its file. */
const CHAIN = ['emit', 'dispatchEvent', 'runListeners', 'invokeListener', 'withErrorBoundary'];

function uiLibrary(variant: number, helpers: number): string {
  const chain = CHAIN.map((name, i) =>
    i < CHAIN.length - 1
      ? `export function ${name}(handler, event) {\n  return ${CHAIN[i + 1]}(handler, event);\n}\n`
      : `export function ${name}(handler, event) {\n  return handler(event);\n}\n`,
  ).join('');
  // Same lines in every build; the constants differ (two digits each, so every width holds).
  const k = String(10 + (variant % 90));
  const rest = Array.from(
    { length: helpers },
    (_, i) =>
      `export function helper${i}(items, options) {\n` +
      `  const seen = new Map();\n` +
      `  for (const item of items) {\n` +
      `    const key = String(item.id ?? item) + ':${k}:' + (options?.prefix ?? 'h${i}');\n` +
      `    seen.set(key, (seen.get(key) ?? 0) + ${k});\n` +
      `  }\n` +
      `  return [...seen.entries()].filter(([, n]) => n > ${i % 7}).map(([key]) => key);\n` +
      `}\n`,
  ).join('');
  const registry = `export const helpers = [${Array.from({ length: helpers }, (_, i) => `helper${i}`).join(', ')}];\n`;
  return chain + rest + registry;
}

const MAIN_TS = `import { emit, helpers } from 'shop-ui';
import './checkout';

export function onPay(event: { raw: string }): number {
  const checkout = (globalThis as { checkout?: (raw: string) => number }).checkout!;
  return checkout(event.raw);
}

(globalThis as Record<string, unknown>).pay = (raw: string) => emit(onPay, { raw });
(globalThis as Record<string, unknown>).shopHelpers = helpers;
`;

export interface BenchApp {
  root: string;
  dist: string;
}

export async function buildBenchApp(variant: number, helpers: number): Promise<BenchApp> {
  const root = await mkdtemp(join(tmpdir(), 'ferry-bench-sourcemaps-app-'));
  await mkdir(join(root, 'src'));
  await mkdir(join(root, 'node_modules', 'shop-ui'), { recursive: true });
  await writeFile(join(root, 'src', 'money.ts'), MONEY_TS);
  await writeFile(join(root, 'src', 'checkout.ts'), CHECKOUT_TS);
  await writeFile(join(root, 'src', 'main.ts'), MAIN_TS);
  await writeFile(
    join(root, 'node_modules', 'shop-ui', 'package.json'),
    JSON.stringify({ name: 'shop-ui', version: '1.0.0', main: 'index.js' }),
  );
  await writeFile(join(root, 'node_modules', 'shop-ui', 'index.js'), uiLibrary(variant, helpers));
  const dist = join(root, 'dist');
  await build({
    entryPoints: [join(root, 'src', 'main.ts')],
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'iife',
    target: 'es2020',
    outfile: join(dist, 'app.min.js'),
    banner: { js: `/* build ${variant} */` },
    keepNames: variant % 2 === 1,
    logLevel: 'silent',
  });
  return { root, dist };
}
