import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import esbuild from 'esbuild';

/** The screenshot chunk: loaded by the widget only when a visitor asks for a screenshot. */
export interface CaptureChunk {
  code: string;
  etag: string;
  bytes: number;
  gzipBytes: number;
  /** Where v1.js loads it from, relative to its base: fixed path, `?v=` the content hash. */
  path: string;
}

export interface WidgetBuild {
  /** The minified bundle (an IIFE, ES2019, ASCII only). */
  code: string;
  /** A strong ETag over the code: `"` + base64url SHA-256 (first 27 characters) + `"`. */
  etag: string;
  /** Size of `code` in bytes. */
  bytes: number;
  /** Size of `code` gzipped (default level), for budgets and logs. */
  gzipBytes: number;
  /** The lazily loaded screenshot chunk, served beside the bundle. */
  capture: CaptureChunk;
}

/** The screenshot chunk's fixed path (v1.js adds `?v=<hash>`, so a new build is a new URL). */
export const CAPTURE_PATH = '/widget/v1-capture.js';

const ENTRY = fileURLToPath(new URL('../browser/main.ts', import.meta.url));
const CAPTURE_ENTRY = fileURLToPath(new URL('../browser/capture.ts', import.meta.url));
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
async function bundle(entry: string, define: Record<string, string>): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [entry],
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
    define,
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`esbuild produced no output for ${entry}.`);
  return file.text;
}

function sized(code: string): { code: string; etag: string; bytes: number; gzipBytes: number } {
  return {
    code,
    etag: widgetEtag(code),
    bytes: Buffer.byteLength(code, 'utf8'),
    gzipBytes: gzipSync(code).length,
  };
}

export async function buildWidget(): Promise<WidgetBuild> {
  const css = await esbuild.transform(await readFile(STYLES, 'utf8'), {
    loader: 'css',
    minify: true,
    legalComments: 'none',
    charset: 'ascii',
    logLevel: 'silent',
  });
  // The chunk first: v1.js names it by its content hash.
  const captureCode = await bundle(CAPTURE_ENTRY, {});
  const capture = sized(captureCode);
  const path = `${CAPTURE_PATH}?v=${capture.etag.slice(1, 13)}`;
  const code = await bundle(ENTRY, {
    __WIDGET_CSS__: JSON.stringify(css.code.trim()),
    __CAPTURE_PATH__: JSON.stringify(path),
  });
  return { ...sized(code), capture: { ...capture, path } };
}
