export interface InitOptions {
  /** The workspace public key (sent as X-Service-Tenant; it is not a secret). */
  publicKey: string;
  /** Base URL of the Ferry deployment; reports go to `${endpoint}/ingest/errors`. */
  endpoint: string;
  environment?: string;
  appVersion?: string;
  /** Error class names never sent (`error.name` or the constructor name). */
  errorIgnore?: string[];
  /** Report uncaught exceptions, then print and exit(1) as Node would. Off unless set. */
  captureUncaught?: boolean;
  /** Report unhandled promise rejections (capture only). Off unless set. */
  captureUnhandledRejections?: boolean;
  /** Reports per sliding minute for this process; the rest are dropped. Default 60 (SPEC.md). */
  maxPerMinute?: number;
  /** Reports per request, 1 to 10 (the server ignores extras). Default 10. */
  batchSize?: number;
  /** How often queued reports are sent. Default 1000 ms. */
  flushIntervalMs?: number;
  /** Per request. Default 5000 ms. */
  timeoutMs?: number;
  /** Reports held while the server is pausing us (429) or slow; newer ones are dropped. Default 100. */
  maxQueue?: number;
  /** Told about the SDK's own failures (a send that failed, a bad option). Never about yours. */
  onError?: (error: unknown) => void;
}

export interface Settings {
  publicKey: string;
  url: string;
  environment: string | undefined;
  appVersion: string | undefined;
  errorIgnore: ReadonlySet<string>;
  maxPerMinute: number;
  batchSize: number;
  flushIntervalMs: number;
  timeoutMs: number;
  maxQueue: number;
}

export const DEFAULTS = {
  maxPerMinute: 60,
  batchSize: 10,
  flushIntervalMs: 1_000,
  timeoutMs: 5_000,
  maxQueue: 100,
} as const;

/** A finite integer within [min, max], else the default: a typo must not turn the SDK off. */
export function intOption(value: unknown, fallback: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}
