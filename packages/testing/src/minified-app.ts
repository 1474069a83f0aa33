import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { newId } from '@ferry/core';
import type { Db } from '@ferry/db';

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

/** Where the page loads the bundle from in these tests: sentry-cli stores it as `~/assets/…`. */
export const MINIFIED_APP_URL = 'https://shop.example.test/assets/app.min.js';

/**
 * The app's bundle and map as an upload stores them (artifact_bundles, artifact_files: the rows
 * sentry-cli's upload ends in), for tests that need a workspace's source maps without the upload.
 */
export async function storeMinifiedApp(
  db: Db,
  workspaceId: string,
  app: MinifiedApp,
  release = 'shop@1.0.0',
): Promise<void> {
  const minified = await readFile(join(app.dist, 'app.min.js'));
  const map = await readFile(join(app.dist, 'app.min.js.map'));
  const bundleId = newId('artifactBundle');
  await db
    .insertInto('artifact_bundles')
    .values({
      id: bundleId,
      workspace_id: workspaceId,
      checksum: `${bundleId}-checksum`,
      release,
      dist: null,
      size_bytes: minified.length + map.length,
      file_count: 2,
    })
    .execute();
  const file = (kind: 'minified_source' | 'source_map', url: string, content: Buffer) => ({
    bundle_id: bundleId,
    workspace_id: workspaceId,
    path: url.replace('~/', 'files/'),
    kind,
    url,
    debug_id: null,
    sourcemap: kind === 'minified_source' ? 'app.min.js.map' : null,
    content,
  });
  await db
    .insertInto('artifact_files')
    .values([
      file('minified_source', '~/assets/app.min.js', minified),
      file('source_map', '~/assets/app.min.js.map', map),
    ])
    .execute();
}

/**
 * The stack a browser writes when the page's `checkout(raw)` throws (V8's format): the bundle run
 * under MINIFIED_APP_URL, so its frames name it as a page's would.
 */
export async function minifiedAppStack(app: MinifiedApp, raw = 'abc'): Promise<string> {
  const code = await readFile(join(app.dist, 'app.min.js'), 'utf8');
  const sandbox: Record<string, unknown> = {};
  runInNewContext(code, sandbox, { filename: MINIFIED_APP_URL });
  try {
    (sandbox.checkout as (raw: string) => number)(raw);
  } catch (error) {
    return String((error as Error).stack);
  }
  throw new Error('checkout did not throw');
}
