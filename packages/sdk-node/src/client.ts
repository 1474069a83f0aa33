import { DEFAULTS, intOption, type InitOptions, type Settings } from './options.js';
import { buildReport, errorClassOf, type ErrorReport, type RequestFields } from './report.js';
import { Throttle } from './throttle.js';
import { ingestUrl, sendBatch, type SendResult } from './transport.js';

export interface ClientStats {
  /** Reports queued for sending. */
  captured: number;
  /** Reports in requests the server answered 2xx. */
  sent: number;
  /** What the server said it kept (`accepted`; lower when its own rate limit cut a batch). */
  accepted: number;
  /** Suppressed by errorIgnore. */
  ignored: number;
  /** Over maxPerMinute. */
  throttled: number;
  /** Dropped because maxQueue reports were already waiting. */
  overflowed: number;
  /** In requests that failed (connection error, timeout, non-2xx other than 429): not retried. */
  failed: number;
}

/** Between checks while flush() waits; short because flush is only awaited at shutdown. */
const FLUSH_POLL_MS = 20;
const DEFAULT_FLUSH_TIMEOUT_MS = 2_000;

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/**
 * Queue + timer: captureException only builds a report and pushes it, so the host app never waits
 * on the network. One request is in flight at a time, which keeps ordering and makes a 429 pause
 * everything at once.
 */
export class Client {
  readonly stats: ClientStats = {
    captured: 0,
    sent: 0,
    accepted: 0,
    ignored: 0,
    throttled: 0,
    overflowed: 0,
    failed: 0,
  };
  private readonly settings: Settings | undefined;
  private readonly onError: ((error: unknown) => void) | undefined;
  private readonly throttle: Throttle;
  private readonly queue: ErrorReport[] = [];
  private readonly timer: NodeJS.Timeout | undefined;
  private resumeTimer: NodeJS.Timeout | undefined;
  private inFlight = false;
  private pausedUntil = 0;
  private flushing = 0;
  private closed = false;
  private readonly teardown: (() => void)[] = [];

  constructor(options: InitOptions) {
    this.onError = typeof options?.onError === 'function' ? options.onError : undefined;
    this.settings = this.resolve(options);
    this.throttle = new Throttle(this.settings?.maxPerMinute ?? DEFAULTS.maxPerMinute);
    if (!this.settings) return;
    // unref: a reporting timer must never be what keeps the host process alive.
    this.timer = setInterval(() => this.kick(true), this.settings.flushIntervalMs).unref();
  }

  /** Settings, or undefined (a disabled client) when publicKey or endpoint is missing. */
  private resolve(options: InitOptions): Settings | undefined {
    const publicKey: unknown = options?.publicKey;
    const endpoint: unknown = options?.endpoint;
    if (typeof publicKey !== 'string' || publicKey === '') {
      this.report(new Error('@ferry/sdk-node: no publicKey given; error reporting is off'));
      return undefined;
    }
    if (typeof endpoint !== 'string' || !/^https?:\/\//i.test(endpoint)) {
      this.report(new Error('@ferry/sdk-node: endpoint must be an http(s) URL; reporting is off'));
      return undefined;
    }
    return {
      publicKey,
      url: ingestUrl(endpoint),
      environment: options.environment,
      appVersion: options.appVersion,
      errorIgnore: new Set(Array.isArray(options.errorIgnore) ? options.errorIgnore : []),
      maxPerMinute: intOption(options.maxPerMinute, DEFAULTS.maxPerMinute, 0, 10_000),
      batchSize: intOption(options.batchSize, DEFAULTS.batchSize, 1, 10),
      flushIntervalMs: intOption(options.flushIntervalMs, DEFAULTS.flushIntervalMs, 10, 3_600_000),
      timeoutMs: intOption(options.timeoutMs, DEFAULTS.timeoutMs, 1, 600_000),
      maxQueue: intOption(options.maxQueue, DEFAULTS.maxQueue, 1, 100_000),
    };
  }

  /** Queue a report of `error`. Never throws, never waits. */
  captureException(error: unknown, context?: Record<string, unknown>, extra?: RequestFields): void {
    try {
      const settings = this.settings;
      if (!settings || this.closed) return;
      // Ignore before the throttle: an ignored class must not use up the minute's allowance.
      if (settings.errorIgnore.has(errorClassOf(error))) {
        this.stats.ignored += 1;
        return;
      }
      if (!this.throttle.take()) {
        this.stats.throttled += 1;
        return;
      }
      if (this.queue.length >= settings.maxQueue) {
        // Newest dropped: the first errors of an incident usually name its cause; the rest echo it.
        this.stats.overflowed += 1;
        return;
      }
      this.queue.push(buildReport(error, settings, context, extra));
      this.stats.captured += 1;
      if (this.queue.length >= settings.batchSize) this.kick(false);
    } catch (failure) {
      this.report(failure);
    }
  }

  /**
   * Send everything queued. Resolves true once the queue is empty and nothing is in flight, false
   * when `timeoutMs` passes first (e.g. the server asked us to wait longer). Never rejects.
   */
  async flush(timeoutMs: number = DEFAULT_FLUSH_TIMEOUT_MS): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    this.flushing += 1;
    try {
      for (;;) {
        if (this.queue.length === 0 && !this.inFlight) return true;
        const left = deadline - Date.now();
        if (left <= 0) return false;
        this.kick(true);
        // A ref'd timer on purpose: at shutdown the caller wants this wait, and it is bounded.
        await sleep(Math.min(FLUSH_POLL_MS, left));
      }
    } catch (failure) {
      this.report(failure);
      return false;
    } finally {
      this.flushing -= 1;
    }
  }

  /** Flush (bounded by `timeoutMs`), then stop the timer and remove process hooks. */
  async close(timeoutMs: number = DEFAULT_FLUSH_TIMEOUT_MS): Promise<boolean> {
    const flushed = await this.flush(timeoutMs);
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.resumeTimer);
    for (const undo of this.teardown.splice(0)) {
      try {
        undo();
      } catch (failure) {
        this.report(failure);
      }
    }
    return flushed;
  }

  /** Run `undo` on close (process hooks register theirs here). */
  onClose(undo: () => void): void {
    this.teardown.push(undo);
  }

  /** Reports waiting to be sent. */
  get queued(): number {
    return this.queue.length;
  }

  private paused(): boolean {
    return Date.now() < this.pausedUntil;
  }

  private kick(drain: boolean): void {
    this.pump(drain).catch((failure: unknown) => this.report(failure));
  }

  /**
   * Sends batches one after another: all of them when draining (timer, flush), else only full ones
   * (so a burst goes out at once in batches of 10 while a trickle waits for the timer).
   */
  private async pump(drain: boolean): Promise<void> {
    const settings = this.settings;
    if (!settings || this.inFlight) return;
    this.inFlight = true;
    try {
      while (
        this.queue.length > 0 &&
        !this.paused() &&
        (drain || this.flushing > 0 || this.queue.length >= settings.batchSize)
      ) {
        const batch = this.queue.splice(0, settings.batchSize);
        this.settle(batch, await sendBatch(settings, batch), settings);
      }
    } finally {
      this.inFlight = false;
    }
  }

  private settle(batch: ErrorReport[], result: SendResult, settings: Settings): void {
    if (result.kind === 'sent') {
      this.stats.sent += batch.length;
      this.stats.accepted += result.accepted;
      return;
    }
    if (result.kind === 'failed') {
      // Not retried: a timeout may have been saved anyway (a duplicate is worse than a gap on an
      // error tracker), and a 4xx will not get better by itself.
      this.stats.failed += batch.length;
      this.report(result.error);
      return;
    }
    // 429: nothing of the batch was kept. Put it back in front and pause everything until the
    // server's Retry-After; the queue bound still holds, so the newest fall off its end.
    this.queue.unshift(...batch);
    const excess = this.queue.length - settings.maxQueue;
    if (excess > 0) {
      this.queue.splice(settings.maxQueue, excess);
      this.stats.overflowed += excess;
    }
    this.pausedUntil = Date.now() + result.afterMs;
    clearTimeout(this.resumeTimer);
    // A few ms late on purpose: a timer may fire a millisecond before Date.now() reaches the mark.
    this.resumeTimer = setTimeout(() => this.kick(true), result.afterMs + 5).unref();
  }

  private report(failure: unknown): void {
    if (!this.onError) return;
    try {
      this.onError(failure);
    } catch {
      // the host's onError threw: nothing sensible left to do with it
    }
  }
}
