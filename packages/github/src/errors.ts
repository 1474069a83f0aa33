/**
 * What went wrong talking to GitHub, and what to do about it:
 * - `transient`: outage, 5xx, timeout, connection error. Try again later.
 * - `rate_limited`: 403/429 with a rate-limit signal. Try again after `retryAfterMs`.
 * - `unauthorized`: 401. A user token: refresh once, then ask the member to re-authorize.
 * - `refused`: GitHub understood and said no (403/404/422, GraphQL errors). Not worth repeating.
 * - `invalid`: an answer we could not read.
 */
export type GitHubErrorKind = 'transient' | 'rate_limited' | 'unauthorized' | 'refused' | 'invalid';

export class GitHubError extends Error {
  constructor(
    readonly kind: GitHubErrorKind,
    readonly status: number,
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'GitHubError';
  }

  get retryable(): boolean {
    return this.kind === 'transient' || this.kind === 'rate_limited';
  }

  static fromResponse(
    status: number,
    headers: Record<string, string | number | undefined>,
    data: unknown,
    what: string,
  ): GitHubError {
    const said =
      data && typeof data === 'object' && 'message' in data && typeof data.message === 'string'
        ? data.message
        : null;
    const detail = said ? `: ${said.slice(0, 300)}` : '';
    const retryAfterMs = rateLimitWait(headers);
    if (status === 429 || (status === 403 && retryAfterMs !== null)) {
      return new GitHubError(
        'rate_limited',
        status,
        `GitHub rate-limited ${what} (HTTP ${status})${detail}.`,
        retryAfterMs ?? 60_000,
      );
    }
    if (status === 401) {
      return new GitHubError('unauthorized', status, `GitHub refused the credentials for ${what}.`);
    }
    if (status >= 500 || status === 0) {
      return new GitHubError(
        'transient',
        status,
        `GitHub failed ${what} (HTTP ${status})${detail}.`,
      );
    }
    return new GitHubError('refused', status, `GitHub refused ${what} (HTTP ${status})${detail}.`);
  }
}

/**
 * GitHub's rate-limit answers: `retry-after` seconds (secondary limits), or
 * `x-ratelimit-remaining: 0` with `x-ratelimit-reset` epoch seconds (primary). Null: not a limit.
 */
export function rateLimitWait(
  headers: Record<string, string | number | undefined>,
  now = Date.now(),
): number | null {
  const retryAfter = Number(headers['retry-after']);
  if (Number.isFinite(retryAfter) && retryAfter >= 0) return Math.ceil(retryAfter * 1000);
  if (String(headers['x-ratelimit-remaining']) === '0') {
    const reset = Number(headers['x-ratelimit-reset']);
    if (Number.isFinite(reset)) return Math.max(1_000, reset * 1000 - now);
    return 60_000;
  }
  return null;
}
