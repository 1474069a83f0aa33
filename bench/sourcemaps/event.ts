import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import vm from 'node:vm';
import type { BenchApp } from './app.js';

/**
 * What @sentry/browser 11 sends when the shop's pay button throws from one build of the app: the
 * build's bundle (as sentry-cli injected it) is run in a fresh V8 context under its URL, the same
 * engine as Chrome, and the thrown error's stack read, so every frame's line and column is the
 * real throw location of that build. Frames oldest first (Sentry's order), each with filename and
 * abs_path, function, lineno, colno, in_app; the oldest is the page's inline `pay('abc')` call.
 */

export const SCRIPT_URL = 'http://shop.test/assets/app.min.js';
const PAGE_URL = 'http://shop.test/checkout';
const SDK_VERSION = '11.12.0';

export interface SentryFrame {
  filename: string;
  abs_path: string;
  function: string;
  lineno: number;
  colno: number;
  in_app: boolean;
}

/** The frames of the error `pay('abc')` throws in this build, oldest first. */
export async function throwFrames(app: BenchApp): Promise<SentryFrame[]> {
  const code = await readFile(join(app.dist, 'app.min.js'), 'utf8');
  const context = vm.createContext({});
  new vm.Script(code, { filename: SCRIPT_URL }).runInContext(context);
  let stack = '';
  try {
    new vm.Script("pay('abc');", { filename: PAGE_URL }).runInContext(context);
  } catch (error) {
    stack = String((error as Error).stack);
  }
  const frames = stack
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      const match = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
      if (!match) return [];
      const [, fn, file, lineno, colno] = match;
      return [
        {
          filename: file!,
          abs_path: file!,
          function: fn ?? '?',
          lineno: Number(lineno),
          colno: Number(colno),
          in_app: true,
        },
      ];
    });
  if (!frames.some((f) => f.filename === SCRIPT_URL))
    throw new Error(`no bundle frame in ${stack}`);
  return frames.reverse();
}

/** The debug ID sentry-cli injected into the bundle (its `//# debugId=` comment). */
export async function injectedDebugId(app: BenchApp): Promise<string> {
  const code = await readFile(join(app.dist, 'app.min.js'), 'utf8');
  const match = /\/\/# debugId=([0-9a-f-]{36})/i.exec(code);
  if (!match) throw new Error('sentry-cli injected no debug ID');
  return match[1]!.toLowerCase();
}

/**
 * One envelope (header, item header, event) of that error, `__EVENT_ID__` for the load
 * generator to fill in: the SDK's own fields (sdk with its integrations and package, platform,
 * request with the user agent, a trace context, breadcrumbs of a page session) and the build's
 * debug_meta image, about 4 KB as the SDK sends it.
 */
export function browserEnvelope(
  frames: readonly SentryFrame[],
  debugId: string,
  release: string,
): string {
  const now = Date.now() / 1000;
  const event = {
    exception: {
      values: [
        {
          type: 'TypeError',
          value: 'price is not a number: abc',
          stacktrace: { frames },
          mechanism: { type: 'generic', handled: true },
        },
      ],
    },
    level: 'error',
    event_id: '__EVENT_ID__',
    platform: 'javascript',
    request: {
      url: PAGE_URL,
      headers: {
        'User-Agent':
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36',
      },
    },
    timestamp: now,
    environment: 'production',
    release,
    sdk: {
      integrations: [
        'InboundFilters',
        'FunctionToString',
        'BrowserApiErrors',
        'Breadcrumbs',
        'GlobalHandlers',
        'LinkedErrors',
        'Dedupe',
        'HttpContext',
        'BrowserSession',
      ],
      name: 'sentry.javascript.browser',
      version: SDK_VERSION,
      packages: [{ name: 'npm:@sentry/browser', version: SDK_VERSION }],
    },
    contexts: {
      trace: { trace_id: 'a1'.repeat(16), span_id: 'b2'.repeat(8) },
    },
    breadcrumbs: [
      { timestamp: now - 30, category: 'navigation', data: { from: '/', to: '/cart' } },
      {
        timestamp: now - 20,
        category: 'fetch',
        type: 'http',
        data: { method: 'GET', url: 'http://shop.test/api/cart', status_code: 200 },
      },
      { timestamp: now - 12, category: 'navigation', data: { from: '/cart', to: '/checkout' } },
      {
        timestamp: now - 8,
        category: 'console',
        level: 'log',
        message: 'checkout ready',
        data: { arguments: ['checkout ready'], logger: 'console' },
      },
      { timestamp: now - 1, category: 'ui.click', message: 'body > main > form > button#pay' },
    ],
    debug_meta: { images: [{ type: 'sourcemap', code_file: SCRIPT_URL, debug_id: debugId }] },
  };
  return [
    JSON.stringify({
      event_id: '__EVENT_ID__',
      sent_at: new Date().toISOString(),
      sdk: { name: 'sentry.javascript.browser', version: SDK_VERSION },
      trace: {
        environment: 'production',
        release,
        public_key: '__KEY__',
        trace_id: 'a1'.repeat(16),
      },
    }),
    JSON.stringify({ type: 'event' }),
    JSON.stringify(event),
  ].join('\n');
}
