import { Client } from './client.js';
import { expressErrorHandler as handlerFor } from './express.js';
import { installProcessHooks } from './hooks.js';
import type { InitOptions } from './options.js';
import type { RequestFields } from './report.js';

export { Client, type ClientStats } from './client.js';
export type { ExpressLikeNext, ExpressLikeRequest } from './express.js';
export type { InitOptions } from './options.js';
export { NON_ERROR_CLASS, type ErrorReport, type RequestFields } from './report.js';

/** The client init() made last: what the module-level functions use. */
let current: Client | undefined;

/**
 * Start reporting. Returns the client; the module-level functions below use it too. A second call
 * replaces the first client (which is closed: its hooks removed, its queue flushed in the
 * background).
 */
export function init(options: InitOptions): Client {
  const previous = current;
  const client = new Client(options);
  if (options?.captureUncaught || options?.captureUnhandledRejections) {
    client.onClose(
      installProcessHooks(client, {
        uncaught: options.captureUncaught === true,
        rejections: options.captureUnhandledRejections === true,
      }),
    );
  }
  current = client;
  if (previous) void previous.close();
  return client;
}

/** The current client, or undefined before init(). */
export function getClient(): Client | undefined {
  return current;
}

/** Report `error` through the client from init(); does nothing before init. Never throws. */
export function captureException(
  error: unknown,
  context?: Record<string, unknown>,
  extra?: RequestFields,
): void {
  current?.captureException(error, context, extra);
}

/** Send what is queued; true when all went out within `timeoutMs`. */
export function flush(timeoutMs?: number): Promise<boolean> {
  return current ? current.flush(timeoutMs) : Promise.resolve(true);
}

/** Flush, stop the timer, remove process hooks, forget the client. */
export async function close(timeoutMs?: number): Promise<boolean> {
  const client = current;
  current = undefined;
  return client ? client.close(timeoutMs) : true;
}

/**
 * Express error-handling middleware; mount it after your routes and before your own error handler.
 * Without an argument it uses the client from init() at the time of the error.
 */
export function expressErrorHandler(client?: Client): ReturnType<typeof handlerFor> {
  return handlerFor(client ?? (() => current));
}
