// The incoming-webhook key in its path (any case: a router that matched /WH/IN/ would still log
// it), and query values whose name says they are credentials (`code` and `state`: the OAuth
// authorization code and its state on /github/callback and /github/setup).
const SECRET_PATH = /^(\/wh\/in\/)[^/?#]+/i;
const SECRET_QUERY = /([?&](?:access_token|token|key|secret|password|api_key|code|state)=)[^&#]*/gi;

/** A URL fit for a log line: every secret segment and credential-like query value replaced. */
export function redactPath(url: string): string {
  return url.replace(SECRET_PATH, '$1[redacted]').replace(SECRET_QUERY, '$1[redacted]');
}
