import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * A small browser app of two TypeScript files, bundled and minified by esbuild with a source map,
 * as a user's build would make it: `dist/app.min.js` and `dist/app.min.js.map`. `checkout` throws
 * from `parsePrice` in money.ts. `variant` changes the minifier's output without changing the source,
 * as a second build of the same code (another bundler setting, another version) does.
 */

export const MONEY_TS = `export function parsePrice(raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value)) {
    throw new TypeError('price is not a number: ' + raw);
  }
  return Math.round(value * 100);
}
`;

export const CHECKOUT_TS = `import { parsePrice } from './money';

export function checkout(raw: string): number {
  const cents = parsePrice(raw);
  return cents * 2;
}

(globalThis as Record<string, unknown>).checkout = checkout;
`;

/** The 1-based line of money.ts that throws. */
export const THROW_LINE = 4;

export interface MinifiedApp {
  root: string;
  dist: string;
}

export async function buildMinifiedApp(variant = 0): Promise<MinifiedApp> {
  const root = await mkdtemp(join(tmpdir(), 'ferry-minified-app-'));
  await mkdir(join(root, 'src'));
  await writeFile(join(root, 'src', 'money.ts'), MONEY_TS);
  await writeFile(join(root, 'src', 'checkout.ts'), CHECKOUT_TS);
  const dist = join(root, 'dist');
  await build({
    entryPoints: [join(root, 'src', 'checkout.ts')],
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'iife',
    target: 'es2020',
    outfile: join(dist, 'app.min.js'),
    banner: { js: `/* build ${variant} */` },
    // An odd variant keeps function names (esbuild wraps each in __name(...)): every column after
    // the first function moves, so the minified frames differ between the builds.
    keepNames: variant % 2 === 1,
    logLevel: 'silent',
  });
  return { root, dist };
}
