import http from 'node:http';
import https from 'node:https';
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

/**
 * Keep-alive agents, one pair per SSRF policy: a pooled socket is only ever reused by requests
 * under the policy that checked its address when it connected.
 */
const agents = new Map<boolean, { http: http.Agent; https: https.Agent }>();

function agentsFor(ssrf: SsrfSettings): { http: http.Agent; https: https.Agent } {
  let found = agents.get(ssrf.allowPrivateTargets);
  if (!found) {
    const options = { keepAlive: true, lookup: guardedLookup(ssrf) };
    found = { http: new http.Agent(options), https: new https.Agent(options) };
    agents.set(ssrf.allowPrivateTargets, found);
  }
  return found;
}

export interface PostOptions {
  timeoutMs: number;
  ssrf: SsrfSettings;
}

/**
 * One POST to a hook's URL with node:http(s): redirects are never followed (node does not follow
 * them; a 3xx is a failure like any non-2xx), the whole exchange is cut at `timeoutMs`, and the
 * connection only dials an address `guardedLookup` accepted, so a hostname re-pointed at a private
 * address after it was saved (DNS rebinding) is refused here too. IP-literal hosts skip lookup in
 * node, so they are checked before dialling.
 */
export function postOutbound(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const failed = (error: string, timedOut = false): SendResult => ({
    ok: false,
    statusCode: null,
    durationMs: elapsed(),
    excerpt: null,
    error,
    timedOut,
    retryAfter: undefined,
  });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.resolve(failed('invalid target URL'));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.resolve(failed(`unsupported protocol ${url.protocol}`));
  }
  const refused = refusedLiteralHost(url, options.ssrf);
  if (refused) return Promise.resolve(failed(refused.message));

  const payload = Buffer.from(body, 'utf8');
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let request: http.ClientRequest | undefined;
    let staleRetries = 0;
    let answered = false;
    const finish = (result: SendResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      finish(failed(`timed out after ${options.timeoutMs} ms`, true));
      request?.destroy();
    }, options.timeoutMs);
    const pool = agentsFor(options.ssrf);
    const secure = url.protocol === 'https:';

    const send = (): void => {
      const sent = (secure ? https : http).request(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(payload.length) },
        agent: secure ? pool.https : pool.http,
        lookup: guardedLookup(options.ssrf),
      });
      request = sent;
      sent.on('error', (err: NodeJS.ErrnoException) => {
        // A pooled connection the receiver closed as it went idle (servers drop keep-alive sockets
        // after a few seconds) fails the request written on it at that moment with a reset, before
        // any answer: the receiver never saw it. Sent again on another connection, as node's docs
        // advise, it is not counted as the receiver's failure (which retries minutes later and
        // counts toward disabling the hook). Only a reused socket, only before an answer.
        if (
          sent.reusedSocket &&
          !answered &&
          isStaleSocketError(err) &&
          staleRetries < STALE_RETRIES
        ) {
          staleRetries += 1;
          if (!settled) send();
          return;
        }
        finish(failed(err.message));
      });
      sent.on('response', (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (): void => {
          const statusCode = response.statusCode ?? 0;
          const ok = statusCode >= 200 && statusCode < 300;
          const retryAfter: string | undefined = response.headers['retry-after'];
          finish({
            ok,
            statusCode,
            durationMs: elapsed(),
            excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
            error: ok ? null : `HTTP ${statusCode}`,
            timedOut: false,
            retryAfter,
          });
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          // The log keeps 1 KB: stop reading a large answer rather than buffer all of it.
          if (size >= EXCERPT_BYTES) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', done);
      });
      sent.end(payload);
    };
    send();
  });
}

/** Sends again on another connection after a reused one turned out closed (see postOutbound). */
const STALE_RETRIES = 2;

function isStaleSocketError(err: NodeJS.ErrnoException): boolean {
  return err.code === 'ECONNRESET' || err.code === 'EPIPE';
}
