import { isObject, type Api } from './api';
import type { WidgetConfig } from './config';

/** SPEC.md: at most 5 reports per page load, explicit calls included. */
export const MAX_REPORTS = 5;
const MAX_FRAMES = 100;

let state: { cfg: WidgetConfig; api: Api; sent: number } | null = null;

export function initErrors(cfg: WidgetConfig, api: Api): void {
  state = { cfg, api, sent: 0 };
  window.addEventListener('error', onError);
  window.addEventListener('unhandledrejection', onRejection);
}

/** `service('reportError', error, context)`: the caller's choice, so always eligible (capped). */
export function reportError(value: unknown, context?: unknown): void {
  try {
    send(value, context);
  } catch {
    // Reporting must never fail loudly.
  }
}

/** An error the widget caught in its own code: sent only when its top frame is the bundle. */
export function reportCaught(value: unknown): void {
  try {
    if (isOwn(value, '')) send(value, undefined);
  } catch {
    // Reporting must never fail loudly.
  }
}

/**
 * Wraps a listener or command handler: whatever it throws stays inside the widget (and is
 * reported when the widget itself failed), so nothing reaches the host page.
 */
export function safe<A extends unknown[]>(fn: (...args: A) => unknown): (...args: A) => void {
  return function (this: unknown, ...args: A): void {
    try {
      const result = fn.apply(this, args);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(undefined, reportCaught);
      }
    } catch (error) {
      reportCaught(error);
    }
  };
}

function onError(event: Event): void {
  try {
    if (!state || typeof ErrorEvent === 'undefined' || !(event instanceof ErrorEvent)) return;
    const error: unknown = event.error;
    if (!isOwn(error, event.filename)) return;
    if (isObject(error)) send(error, undefined);
    else
      send(
        {
          name: 'Error',
          message: event.message || String(error),
          stack: `${event.message}\n    at ${event.filename}:${event.lineno}:${event.colno}`,
        },
        undefined,
      );
  } catch {
    // Never let the widget's listener throw into the host page.
  }
}

function onRejection(event: PromiseRejectionEvent): void {
  try {
    if (state && isOwn(event.reason, '')) send(event.reason, undefined);
  } catch {
    // Never let the widget's listener throw into the host page.
  }
}

/** The failing script is the bundle: ErrorEvent.filename is its URL, or the top frame names it. */
export function isOwn(error: unknown, filename: string | undefined): boolean {
  if (!state) return false;
  const url = state.cfg.scriptUrl;
  if (filename && filename === url) return true;
  const stack = isObject(error) ? error.stack : null;
  if (typeof stack !== 'string') return false;
  const frame = topFrame(stack);
  return frame !== null && frame.indexOf(url) >= 0;
}

const V8_FRAME = /^\s*at\s/;
const LOCATED = /:\d+:\d+\)?\s*$/;

/** The first stack frame with a script location (V8 `at f (url:1:2)`, Gecko/WebKit `f@url:1:2`). */
export function topFrame(stack: string): string | null {
  const lines = stack.split('\n');
  const v8 = lines.some((line) => V8_FRAME.test(line));
  for (const line of lines) {
    if (v8 ? !V8_FRAME.test(line) : line.indexOf('@') < 0) continue;
    if (LOCATED.test(line)) return line;
  }
  return null;
}

/**
 * The stack's frames without V8's header (`Name: message`, one or more lines): the server
 * fingerprints class + top line, so with the header on top every message would be its own group
 * (five `reportError(new Error('x ' + i))` from one line, five groups). The header ends where the
 * first `at …` frame starts, as in packages/sdk-node. Gecko and WebKit stacks have no header.
 */
export function frameLines(stack: string): string[] {
  const lines = stack
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .filter((line) => line.trim() !== '');
  const firstFrame = lines.findIndex((line) => V8_FRAME.test(line));
  return (firstFrame > 0 ? lines.slice(firstFrame) : lines).slice(0, MAX_FRAMES);
}

function send(value: unknown, context: unknown): void {
  if (!state || state.sent >= MAX_REPORTS) return;
  state.sent += 1;
  const report = {
    ...describe(value),
    url: location.href,
    environment: 'browser',
    context: plainContext(context),
    occurred_at: new Date().toISOString(),
  };
  state.api.sendErrors({ source: 'js', errors: [report] });
}

function describe(value: unknown): { error_class: string; message: string; backtrace: string[] } {
  if (isErrorLike(value)) {
    const stack = typeof value.stack === 'string' ? value.stack : '';
    return {
      error_class: text(value.name) || 'Error',
      message: text(value.message),
      backtrace: frameLines(stack),
    };
  }
  return { error_class: 'Error', message: text(value), backtrace: [] };
}

function isErrorLike(
  value: unknown,
): value is { name?: unknown; message?: unknown; stack?: unknown } {
  if (typeof Error === 'function' && value instanceof Error) return true;
  // An Error from another frame fails instanceof; its shape still says what it is.
  return isObject(value) && typeof value.message === 'string' && 'stack' in value;
}

function text(value: unknown): string {
  try {
    return String(value);
  } catch {
    // Objects without a prototype cannot be converted; say what they are instead.
    return Object.prototype.toString.call(value);
  }
}

/** The caller's context when it is a plain JSON-able object; anything else becomes {}. */
function plainContext(context: unknown): Record<string, unknown> {
  if (!isObject(context) || Array.isArray(context)) return {};
  try {
    const copy: unknown = JSON.parse(JSON.stringify(context));
    return isObject(copy) && !Array.isArray(copy) ? copy : {};
  } catch {
    return {};
  }
}
