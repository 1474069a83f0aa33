import type { ErrorReport } from './report.js';

export const INGEST_PATH = '/ingest/errors';
const USER_AGENT = 'ferry-sdk-node/0.1.0';

/** Without a usable Retry-After we wait what the server's limit would have said (DESIGN.md: 60). */
const DEFAULT_RETRY_AFTER_MS = 60_000;
/** A misconfigured proxy saying "come back tomorrow" should not silence an app for that long. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

export type SendResult =
  | { kind: 'sent'; accepted: number }
  | { kind: 'retry'; afterMs: number }
  | { kind: 'failed'; error: Error };

export interface TransportOptions {
  url: string;
  publicKey: string;
  timeoutMs: number;
}

export function ingestUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}${INGEST_PATH}`;
}

/** Retry-After in delta-seconds or as an HTTP date (RFC 9110), clamped to [0, 10 min]. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number {
  const value = header?.trim() ?? '';
  let ms = NaN;
  if (/^\d+(\.\d+)?$/.test(value)) ms = Number(value) * 1000;
  else if (value !== '') ms = Date.parse(value) - now;
  if (!Number.isFinite(ms)) return DEFAULT_RETRY_AFTER_MS;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/** One POST of up to 10 reports. Never rejects: every outcome is a SendResult. */
export async function sendBatch(
  options: TransportOptions,
  reports: ErrorReport[],
): Promise<SendResult> {
  try {
    const response = await fetch(options.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Service-Tenant': options.publicKey,
        'User-Agent': USER_AGENT,
      },
      body: JSON.stringify({ errors: reports, source: 'node' }),
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: 'error',
    });
    // Read the body either way: an unread body keeps its connection out of the pool.
    const text = await response.text();
    if (response.status === 429) {
      return { kind: 'retry', afterMs: retryAfterMs(response.headers.get('retry-after')) };
    }
    if (!response.ok) {
      return {
        kind: 'failed',
        error: new Error(`error ingest answered ${response.status}: ${text.slice(0, 200)}`),
      };
    }
    return { kind: 'sent', accepted: acceptedCount(text, reports.length) };
  } catch (error) {
    return { kind: 'failed', error: asError(error) };
  }
}

/** `{accepted}` from a 202; a 2xx without it (a proxy, an older server) counts as all sent. */
function acceptedCount(text: string, sent: number): number {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && 'accepted' in body) {
      const accepted = body.accepted;
      if (typeof accepted === 'number') return accepted;
    }
  } catch {
    // not JSON
  }
  return sent;
}
