import diagnosticsChannel from 'node:diagnostics_channel';
import { Agent, type DiagnosticsChannel, type Dispatcher } from 'undici';
import { guardedLookup, refusedLiteralHost, type SsrfSettings } from '@ferry/core';

/**
 * Outbound POSTs to addresses users chose (webhook targets, agents' wake URLs), SSRF-checked at
 * connect time. How much of an answer is kept for a log:
 */
export const EXCERPT_BYTES = 1024;

export interface SendResult {
  /** 2xx. Anything else, a timeout or a connection error is a failure (DESIGN.md). */
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  /** First 1 KB of the answer, as text. */
  excerpt: string | null;
  error: string | null;
  timedOut: boolean;
  retryAfter: string | undefined;
}

export interface PostOptions {
  timeoutMs: number;
  ssrf: SsrfSettings;
}

/**
 * Keep-alive pools (undici), one per SSRF policy and timeout: a pooled socket is only ever reused
 * by requests under the policy that checked its address when it connected, and its connect is cut
 * at the sender's own timeout (undici's default would cut it at 10 s, before a longer
 * WEBHOOK_TIMEOUT_MS). A process has a few: its webhook and wake timeouts are settings. undici
 * rather than node:http because a delivery is mostly this exchange: undici costs half node:http's
 * CPU per POST (issue 48: 0.05 against 0.11 ms, measured on this host kind), and it closes idle
 * sockets before the receiver's announced keep-alive timeout runs out, so fewer sends meet a
 * socket being closed.
 */
const dispatchers = new Map<string, Agent>();

function dispatcherFor({ ssrf, timeoutMs }: PostOptions): Agent {
  const key = `${ssrf.allowPrivateTargets}:${timeoutMs}`;
  let found = dispatchers.get(key);
  if (!found) {
    found = new Agent({ connect: { lookup: guardedLookup(ssrf), timeout: timeoutMs } });
    dispatchers.set(key, found);
  }
  return found;
}

/**
 * Which sends went on a socket that had carried an earlier one (the stale-socket retry below needs
 * to know). undici calls a send's `onConnect` and, in the same synchronous step, publishes the
 * socket it writes the request on (`undici:client:sendHeaders`, its documented diagnostics
 * channel): the send announced there is the one that just connected.
 */
const sendsPerSocket = new WeakMap<object, number>();
let writing: { reused: boolean } | undefined;
diagnosticsChannel.subscribe('undici:client:sendHeaders', (message) => {
  const connection = writing;
  writing = undefined;
  if (!connection) return; // another undici copy's request (a vendor client in the same process)
  const { socket } = message as DiagnosticsChannel.ClientSendHeadersMessage;
  const earlier = sendsPerSocket.get(socket) ?? 0;
  connection.reused = earlier > 0;
  sendsPerSocket.set(socket, earlier + 1);
});

/** Sends again on another connection after a reused one turned out closed (see OutboundSend). */
const STALE_RETRIES = 2;

/** A reset (RST), a broken pipe, or undici's "other side closed" (the receiver's FIN). */
function isStaleSocketError(err: Error): boolean {
  const { code } = err as NodeJS.ErrnoException;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

/** The first value of a header in undici's raw list (name, value, name, value, ...). */
function rawHeader(raw: Buffer[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toString('latin1').toLowerCase() === name) return raw[i + 1]!.toString('latin1');
  }
  return undefined;
}

/** What node:http did with credentials in a URL (`https://user:pass@host/`): Basic auth. */
function withUrlCredentials(url: URL, headers: Record<string, string>): Record<string, string> {
  if (!url.username && !url.password) return headers;
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { ...headers, authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/**
 * One POST's exchange, as undici's dispatch handler. A pooled connection the receiver closed as it
 * went idle (servers drop keep-alive sockets after a few seconds) fails the request written on it at
 * that moment, before any answer: the receiver never saw it. Sent again on another connection (as
 * node's docs advise), it is not counted as the receiver's failure (which retries minutes later and
 * counts toward disabling the hook). Only a reused socket, only before an answer.
 */
class OutboundSend implements Dispatcher.DispatchHandlers {
  /** The socket this send is written on, as the channel above saw it. */
  private readonly connection = { reused: false };
  private answered = false;
  private settled = false;
  private staleRetries = 0;
  private abortExchange: ((err?: Error) => void) | undefined;
  private statusCode = 0;
  private retryAfter: string | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly dispatcher: Agent,
    private readonly request: Dispatcher.DispatchOptions,
    timeoutMs: number,
    private readonly resolve: (result: SendResult) => void,
  ) {
    this.timer = setTimeout(() => {
      this.finish(failure(`timed out after ${timeoutMs} ms`, this.elapsed(), true));
      this.abortExchange?.();
    }, timeoutMs);
  }

  send(): void {
    this.answered = false;
    this.abortExchange = undefined;
    try {
      this.dispatcher.dispatch(this.request, this);
    } catch (err) {
      // undici refuses some requests before sending (a header value with a line break, say).
      this.finish(failure((err as Error).message, this.elapsed()));
    }
  }

  onConnect(abort: (err?: Error) => void): void {
    // Timed out while it waited for a socket: stop here rather than send it late.
    if (this.settled) return abort();
    this.abortExchange = abort;
    writing = this.connection;
  }

  onHeaders(statusCode: number, headers: Buffer[]): boolean {
    if (statusCode < 200) return true; // an interim answer (100 Continue); the real one follows
    this.answered = true;
    this.statusCode = statusCode;
    this.retryAfter = rawHeader(headers, 'retry-after');
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.size += chunk.length;
    // The log keeps 1 KB: stop reading a large answer rather than buffer all of it.
    if (this.size >= EXCERPT_BYTES) {
      this.answer();
      this.abortExchange?.();
      return false;
    }
    return true;
  }

  onComplete(): void {
    this.answer();
  }

  onError(err: Error): void {
    if (this.settled) return;
    if (
      this.connection.reused &&
      !this.answered &&
      isStaleSocketError(err) &&
      this.staleRetries < STALE_RETRIES
    ) {
      this.staleRetries += 1;
      this.connection.reused = false;
      this.send();
      return;
    }
    // An answer whose body broke off still says how the receiver answered.
    if (this.answered) return this.answer();
    this.finish(failure(err.message, this.elapsed()));
  }

  private answer(): void {
    const ok = this.statusCode >= 200 && this.statusCode < 300;
    this.finish({
      ok,
      statusCode: this.statusCode,
      durationMs: this.elapsed(),
      excerpt: Buffer.concat(this.chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
      error: ok ? null : `HTTP ${this.statusCode}`,
      timedOut: false,
      retryAfter: this.retryAfter,
    });
  }

  private finish(result: SendResult): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(result);
  }

  private elapsed(): number {
    return Math.round(performance.now() - this.started);
  }
}

function failure(error: string, durationMs: number, timedOut = false): SendResult {
  return {
    ok: false,
    statusCode: null,
    durationMs,
    excerpt: null,
    error,
    timedOut,
    retryAfter: undefined,
  };
}

/**
 * One POST to a hook's URL: redirects are never followed (a 3xx is a failure like any non-2xx),
 * the whole exchange is cut at `timeoutMs`, and the connection only dials an address
 * `guardedLookup` accepted, so a hostname re-pointed at a private address after it was saved (DNS
 * rebinding) is refused here too. IP-literal hosts skip lookup, so they are checked before dialling.
 */
export function postOutbound(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<SendResult> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.resolve(failure('invalid target URL', 0));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.resolve(failure(`unsupported protocol ${url.protocol}`, 0));
  }
  const refused = refusedLiteralHost(url, options.ssrf);
  if (refused) return Promise.resolve(failure(refused.message, 0));

  const request: Dispatcher.DispatchOptions = {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: withUrlCredentials(url, headers),
    body: Buffer.from(body, 'utf8'),
  };
  return new Promise<SendResult>((resolve) => {
    new OutboundSend(dispatcherFor(options), request, options.timeoutMs, resolve).send();
  });
}
