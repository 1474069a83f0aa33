import { inspect } from 'node:util';
import type { Client } from './client.js';

/** How long an uncaught exception waits for its report before the process exits. */
const UNCAUGHT_FLUSH_MS = 2_000;

export interface HookOptions {
  uncaught: boolean;
  rejections: boolean;
}

/**
 * Opt-in process hooks; returns the function that removes them.
 *
 * uncaughtException: any listener stops Node's own "print and exit(1)", so when ours is the only
 * one we do that ourselves after the report is flushed. When the app has its own listener, it has
 * chosen what happens next and we only report.
 *
 * unhandledRejection: capture only. Note Node's rule: while any listener exists, an unhandled
 * rejection no longer crashes the process (README says so).
 */
export function installProcessHooks(client: Client, options: HookOptions): () => void {
  const onUncaught = (error: unknown, origin: string): void => {
    client.captureException(error, { mechanism: origin, handled: false });
    if (process.listenerCount('uncaughtException') > 1) return;
    void client.flush(UNCAUGHT_FLUSH_MS).finally(() => {
      process.stderr.write(`${inspect(error)}\n`);
      process.exit(1);
    });
  };
  const onRejection = (reason: unknown): void => {
    client.captureException(reason, { mechanism: 'unhandledRejection', handled: false });
  };
  if (options.uncaught) process.on('uncaughtException', onUncaught);
  if (options.rejections) process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onRejection);
  };
}
