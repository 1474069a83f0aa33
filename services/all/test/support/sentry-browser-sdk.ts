import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The real @sentry/browser from npm, bundled as a customer's build would bundle it, as one script
 * that sets `window.Sentry`: ready to inline in a test page's `<script>`.
 */
export async function sentryBrowserScript(): Promise<string> {
  const bundled = await build({
    stdin: {
      contents: "import * as Sentry from '@sentry/browser'; window.Sentry = Sentry;",
      resolveDir: here,
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]!.text.replaceAll('</script', '<\\/script');
}
