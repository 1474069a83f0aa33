import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import esbuild from 'esbuild';

export interface WidgetBuild {
  /** The minified bundle (an IIFE, ES2019, ASCII only). */
  code: string;
  /** A strong ETag over the code: `"` + base64url SHA-256 (first 27 characters) + `"`. */
  etag: string;
  /** Size of `code` in bytes. */
  bytes: number;
  /** Size of `code` gzipped (default level), for budgets and logs. */
  gzipBytes: number;
}

const ENTRY = fileURLToPath(new URL('../browser/main.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../browser/tsconfig.json', import.meta.url));
const STYLES = fileURLToPath(new URL('../browser/widget.css', import.meta.url));

/** The strong ETag for a bundle's code (a content hash: same code, same tag). */
export function widgetEtag(code: string): string {
  return `"${createHash('sha256').update(code, 'utf8').digest('base64url').slice(0, 27)}"`;
}

/**
 * Bundles browser/main.ts into the one file served at `/widget/v1.js`. Web calls this once at
 * startup and serves the result with its ETag; nothing is written to disk.
 */
export async function buildWidget(): Promise<WidgetBuild> {
  const css = await esbuild.transform(await readFile(STYLES, 'utf8'), {
    loader: 'css',
    minify: true,
    legalComments: 'none',
    charset: 'ascii',
    logLevel: 'silent',
  });
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    tsconfig: TSCONFIG,
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2019',
    legalComments: 'none',
    charset: 'ascii',
    write: false,
    logLevel: 'silent',
    define: { __WIDGET_CSS__: JSON.stringify(css.code.trim()) },
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output for the widget bundle.');
  const code = file.text;
  return {
    code,
    etag: widgetEtag(code),
    bytes: Buffer.byteLength(code, 'utf8'),
    gzipBytes: gzipSync(code).length,
  };
}
