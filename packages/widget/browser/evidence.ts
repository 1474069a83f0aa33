/**
 * Evidence capture (issue 45): ring buffers of what the host page did before someone clicked
 * "Feedback" (console lines, fetch/XHR requests, its uncaught errors, SPA route changes), sent
 * with the ticket when the workspace turned capture on and the person left it attached.
 *
 * The rule every wrapper follows: the page must not be able to tell. Arguments, `this`, return
 * values and thrown errors pass through untouched (the original is called with `apply(this,
 * arguments)` outside any try, and its result is returned as is; fetch's is followed by a derived
 * promise that settles the same way, as Sentry's wrapper does); the recording beside it sits in
 * try/catch and swallows its own failures. Objects are
 * read through property descriptors, so a logged object's getters never run. Text is scrubbed
 * when a snapshot is taken, not on every call.
 */
import { isOwn } from './errors';
import { FILTERED, isSensitiveKey, maskQuery, scrubText } from '@ferry/core/scrub';

const MAX = 50;
const TEXT_MAX = 500;
const ERROR_WINDOW_MS = 10 * 60 * 1000;
const LEVELS = ['log', 'info', 'warn', 'error', 'debug'] as const;
type Level = (typeof LEVELS)[number];

interface ConsoleEntry {
  t: number;
  level: Level;
  text: string;
}
interface NetworkEntry {
  t: number;
  kind: 'fetch' | 'xhr';
  method: string;
  url: string;
  status: number;
  ms: number;
  size: number | null;
}
interface ErrorEntry {
  t: number;
  kind: 'error' | 'rejection';
  name: string;
  message: string;
  stack: string;
}
interface NavEntry {
  t: number;
  kind: 'push' | 'replace' | 'pop' | 'hash';
  url: string;
}

export interface Evidence {
  captured_at: number;
  console: ConsoleEntry[];
  network: NetworkEntry[];
  errors: ErrorEntry[];
  navigation: NavEntry[];
  dropped: { console: number; network: number; errors: number; navigation: number };
}

/** A fixed-size ring: the newest MAX kept, the rest counted. */
class Ring<T> {
  items: T[] = [];
  at = 0;
  dropped = 0;
  push(item: T): void {
    if (this.items.length < MAX) this.items.push(item);
    else {
      this.items[this.at] = item;
      this.at = (this.at + 1) % MAX;
      this.dropped += 1;
    }
  }
  list(): T[] {
    return this.items.slice(this.at).concat(this.items.slice(0, this.at));
  }
}

type AnyFn = (...args: unknown[]) => unknown;
interface Patch {
  target: Record<string, unknown>;
  name: string;
  original: unknown;
  wrapper: AnyFn;
}

let state: {
  console: Ring<ConsoleEntry>;
  network: Ring<NetworkEntry>;
  errors: Ring<ErrorEntry>;
  navigation: Ring<NavEntry>;
  patches: Patch[];
  listeners: [string, EventListener][];
  /** The widget's own endpoints: its requests are not the page's. */
  own: string[];
} | null = null;

/** Recording is on while state is set; a wrapper left in place after stop() only passes through. */
function live(): boolean {
  return state !== null;
}

/**
 * Replaces target[name] with a wrapper that calls `before` (recording, swallowed) and then the
 * original exactly; `after` sees the result (swallowed too). Same `length` and `name` as the
 * original, for pages that look.
 */
function patch(
  target: Record<string, unknown>,
  name: string,
  make: (original: AnyFn) => AnyFn,
): void {
  const original = target[name];
  if (typeof original !== 'function') return;
  const wrapper = make(original as AnyFn);
  try {
    Object.defineProperty(wrapper, 'length', { value: (original as AnyFn).length });
    Object.defineProperty(wrapper, 'name', { value: (original as AnyFn).name });
  } catch {
    // Cosmetic only.
  }
  target[name] = wrapper;
  state!.patches.push({ target, name, original, wrapper });
}

function listen(type: string, fn: EventListener): void {
  window.addEventListener(type, fn);
  state!.listeners.push([type, fn]);
}

/**
 * The page's clock in milliseconds, with the fractions performance.now() gives: entries made in
 * the same millisecond still sort in the order they happened when the server merges the kinds.
 */
function now(): number {
  const p = typeof performance === 'object' ? performance : null;
  return p && p.timeOrigin ? p.timeOrigin + p.now() : new Date().getTime();
}

const clip = (text: string): string =>
  text.length > TEXT_MAX ? `${text.slice(0, TEXT_MAX - 1)}…` : text;

/** A value as one short line: primitives as they print, objects one level deep, never a getter. */
function shallow(value: unknown, depth: number): string {
  if (typeof value === 'string') return depth ? JSON.stringify(value) : value;
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function') return `[Function ${(value as AnyFn).name || 'anonymous'}]`;
    if (typeof value === 'symbol') return value.toString();
    return String(value);
  }
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (depth) return Array.isArray(value) ? '[…]' : '{…}';
  const parts: string[] = [];
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length && i < 20; i++) {
    const key = keys[i] as string;
    const desc = Object.getOwnPropertyDescriptor(value, key);
    const shown = !desc
      ? '?'
      : !('value' in desc)
        ? '[Getter]'
        : isSensitiveKey(key)
          ? FILTERED
          : shallow(desc.value, 1);
    parts.push(Array.isArray(value) ? shown : `${key}: ${shown}`);
  }
  if (keys.length > 20) parts.push('…');
  return Array.isArray(value) ? `[${parts.join(', ')}]` : `{${parts.join(', ')}}`;
}

function formatArgs(args: unknown[]): string {
  let out = '';
  for (let i = 0; i < args.length && out.length < TEXT_MAX; i++) {
    let part: string;
    try {
      part = shallow(args[i], 0);
    } catch {
      part = '[unreadable]';
    }
    out += (i ? ' ' : '') + part;
  }
  return clip(out);
}

/** A URL the page passed, without calling anything of the page's (no custom toString). */
function urlOf(input: unknown): string {
  if (typeof input === 'string') return input;
  if (typeof URL === 'function' && input instanceof URL) return input.href;
  if (typeof Request === 'function' && input instanceof Request) return input.url;
  return '';
}

function absolute(url: string): string {
  try {
    return new URL(url, location.href).href;
  } catch {
    return url;
  }
}

function sizeOf(header: string | null): number | null {
  const n = header === null ? NaN : Number(header);
  return n >= 0 ? n : null;
}

function record(
  kind: 'fetch' | 'xhr',
  method: string,
  url: string,
  t: number,
  start: number,
  status: number,
  size: number | null,
): void {
  if (!state || state.own.some((prefix) => url.indexOf(prefix) === 0)) return;
  state.network.push({
    t,
    kind,
    method: method.toUpperCase().slice(0, 16),
    url,
    status,
    ms: Math.round(performance.now() - start),
    size,
  });
}

const xhrs = new WeakMap<XMLHttpRequest, { method: string; url: string; t: number; s: number }>();

function onXhrEnd(this: XMLHttpRequest): void {
  try {
    const m = xhrs.get(this);
    if (!m) return;
    record(
      'xhr',
      m.method,
      m.url,
      m.t,
      m.s,
      this.status,
      sizeOf(this.getResponseHeader('content-length')),
    );
  } catch {
    // Recording never fails loudly.
  }
}

function errorEntry(kind: 'error' | 'rejection', value: unknown, message: string): ErrorEntry {
  let name = 'Error';
  let stack = '';
  let text = message;
  if (value instanceof Error) {
    name = value.name;
    text = value.message;
    stack = typeof value.stack === 'string' ? value.stack : '';
  } else if (!text) text = formatArgs([value]);
  return {
    t: now(),
    kind,
    name: clip(name),
    message: text.slice(0, 2000),
    stack: stack.slice(0, 8000),
  };
}

function navigate(kind: NavEntry['kind']): void {
  try {
    if (state) state.navigation.push({ t: now(), kind, url: location.href });
  } catch {
    // Recording never fails loudly.
  }
}

/** Installs every wrapper and listener: called at load, before the config answer. */
export function startEvidence(base: string): void {
  if (state) return;
  state = {
    console: new Ring(),
    network: new Ring(),
    errors: new Ring(),
    navigation: new Ring(),
    patches: [],
    listeners: [],
    own: [`${base}/widget/`, `${base}/ingest/`],
  };
  const con = console as unknown as Record<string, unknown>;
  for (const level of LEVELS) {
    patch(
      con,
      level,
      (original) =>
        function (this: unknown, ...args: unknown[]): unknown {
          if (state) {
            try {
              state.console.push({ t: now(), level, text: formatArgs(args) });
            } catch {
              // Recording never fails loudly.
            }
          }
          return original.apply(this, args);
        },
    );
  }

  patch(
    window as unknown as Record<string, unknown>,
    'fetch',
    (original) =>
      function (this: unknown, ...args: unknown[]): unknown {
        const input = args[0];
        const init = args[1];
        let t = 0;
        let s = 0;
        let url = '';
        let method = 'GET';
        if (live()) {
          try {
            t = now();
            s = performance.now();
            url = absolute(urlOf(input));
            if (typeof Request === 'function' && input instanceof Request) method = input.method;
            const m =
              init && typeof init === 'object' ? (init as { method?: unknown }).method : null;
            if (typeof m === 'string') method = m;
          } catch {
            url = '';
          }
        }
        const result = original.apply(this, args);
        if (!url || !result || typeof (result as Promise<Response>).then !== 'function') {
          return result;
        }
        // The page gets the promise that settles as the original did, with the same Response or
        // the same error object. A handler on the original itself would mark it handled and take
        // away the page's own unhandledrejection; this derived one stays unhandled when the page
        // leaves it so.
        return (result as Promise<Response>).then(
          (r) => {
            try {
              record('fetch', method, url, t, s, r.status, sizeOf(r.headers.get('content-length')));
            } catch {
              // Recording never fails loudly.
            }
            return r;
          },
          (error: unknown) => {
            try {
              record('fetch', method, url, t, s, 0, null);
            } catch {
              // Recording never fails loudly.
            }
            throw error;
          },
        );
      },
  );

  if (typeof XMLHttpRequest === 'function') {
    const proto = XMLHttpRequest.prototype as unknown as Record<string, unknown>;
    patch(
      proto,
      'open',
      (original) =>
        function (this: XMLHttpRequest, ...args: unknown[]): unknown {
          try {
            if (live()) {
              const url = absolute(urlOf(args[1]));
              xhrs.set(this, {
                method: typeof args[0] === 'string' ? args[0] : '?',
                url,
                t: 0,
                s: 0,
              });
            }
          } catch {
            // Recording never fails loudly.
          }
          return original.apply(this, args);
        },
    );
    patch(
      proto,
      'send',
      (original) =>
        function (this: XMLHttpRequest, ...args: unknown[]): unknown {
          try {
            const m = xhrs.get(this);
            if (m && live()) {
              m.t = now();
              m.s = performance.now();
              this.addEventListener('loadend', onXhrEnd);
            }
          } catch {
            // Recording never fails loudly.
          }
          return original.apply(this, args);
        },
    );
  }

  const hist = history as unknown as Record<string, unknown>;
  for (const [name, kind] of [
    ['pushState', 'push'],
    ['replaceState', 'replace'],
  ] as const) {
    patch(
      hist,
      name,
      (original) =>
        function (this: unknown, ...args: unknown[]): unknown {
          const result = original.apply(this, args);
          navigate(kind);
          return result;
        },
    );
  }
  listen('popstate', () => navigate('pop'));
  listen('hashchange', () => navigate('hash'));

  listen('error', (event) => {
    try {
      if (!state || !(event instanceof ErrorEvent)) return;
      if (isOwn(event.error, event.filename)) return; // the widget's own: the Errors page's
      const entry = errorEntry('error', event.error, event.message);
      if (!entry.stack && event.filename) {
        entry.stack = `    at ${event.filename}:${event.lineno}:${event.colno}`;
      }
      state.errors.push(entry);
    } catch {
      // Recording never fails loudly.
    }
  });
  listen('unhandledrejection', (event) => {
    try {
      const reason = (event as PromiseRejectionEvent).reason as unknown;
      if (state && !isOwn(reason, '')) state.errors.push(errorEntry('rejection', reason, ''));
    } catch {
      // Recording never fails loudly.
    }
  });
}

/**
 * Capture is off for this workspace: every wrapper that is still the page's current one is put
 * back (one wrapped again by a later script stays, passing through), listeners go, buffers go.
 */
export function stopEvidence(): void {
  if (!state) return;
  for (const p of state.patches) {
    try {
      if (p.target[p.name] === p.wrapper) p.target[p.name] = p.original;
    } catch {
      // Left in place: it passes through once state is gone.
    }
  }
  for (const [type, fn] of state.listeners) window.removeEventListener(type, fn);
  state = null;
}

export function evidenceActive(): boolean {
  return state !== null;
}

/** What would be sent now, scrubbed; null when capture is off or nothing happened yet. */
export function evidenceSnapshot(): Evidence | null {
  if (!state) return null;
  const at = now();
  const url = (u: string) => maskQuery(scrubText(u)).slice(0, 2000);
  const evidence: Evidence = {
    captured_at: at,
    console: state.console.list().map((c) => ({ ...c, text: clip(scrubText(c.text)) })),
    network: state.network.list().map((n) => ({ ...n, url: url(n.url) })),
    errors: state.errors
      .list()
      .filter((e) => e.t >= at - ERROR_WINDOW_MS)
      .map((e) => ({
        ...e,
        name: scrubText(e.name).slice(0, 200),
        message: scrubText(e.message).slice(0, 2000),
        stack: scrubText(e.stack).slice(0, 8000),
      })),
    navigation: state.navigation.list().map((n) => ({ ...n, url: url(n.url) })),
    dropped: {
      console: state.console.dropped,
      network: state.network.dropped,
      errors: state.errors.dropped,
      navigation: state.navigation.dropped,
    },
  };
  const total =
    evidence.console.length +
    evidence.network.length +
    evidence.errors.length +
    evidence.navigation.length;
  return total ? evidence : null;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "12 console lines, 5 requests (3 failed), 1 page error will be attached" */
export function evidenceSummary(e: Evidence): string {
  const parts: string[] = [];
  if (e.console.length) parts.push(plural(e.console.length, 'console line', 'console lines'));
  if (e.network.length) {
    const failed = e.network.filter((n) => n.status === 0 || n.status >= 400).length;
    parts.push(
      plural(e.network.length, 'request', 'requests') + (failed ? ` (${failed} failed)` : ''),
    );
  }
  if (e.errors.length) parts.push(plural(e.errors.length, 'page error', 'page errors'));
  if (e.navigation.length) parts.push(plural(e.navigation.length, 'route change', 'route changes'));
  return `${parts.join(', ')} will be attached`;
}
