/** The paths the bundle uses, relative to the base URL it was loaded from. */
export const WIDGET_PATHS = {
  /** The bundle itself (web serves buildWidget().code here). */
  script: '/widget/v1.js',
  /** POST `{}` -> 201 `{"visitor": {"id", "token"}}`. */
  visitors: '/widget/v1/visitors',
  /** POST the feedback body -> 201. */
  feedback: '/widget/v1/feedback',
  /** POST `{"source": "js", "errors": [...]}` -> 202 (ingest-errors). */
  errors: '/ingest/errors',
} as const;

const ATTRIBUTE_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
};

/** Escapes text for a double-quoted HTML attribute (and for text content). */
export function escapeAttribute(value: string): string {
  return value.replace(/[&"'<>]/g, (char) => ATTRIBUTE_ESCAPES[char] ?? char);
}

/**
 * The install snippet shown to workspace admins: a queue stub, so `service('identify', …)` and
 * `service('reportError', …)` work before the bundle arrives, then the async bundle tag.
 * `baseUrl` is the service's public origin (a trailing slash is dropped).
 *
 * `crossorigin="anonymous"` (the bundle is served with `Access-Control-Allow-Origin: *`): a
 * cross-origin script loaded without it has "muted errors", and browsers then do not track the
 * promise rejections it causes. The capture's fetch wrapper (issue 45) hands the page a promise
 * that rejects when the page's fetch did; muted, that rejection would no longer reach the page's
 * own `unhandledrejection` listeners. It also lets the widget see its own errors' file and stack.
 */
export function WIDGET_SNIPPET(baseUrl: string, publicKey: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const stub =
    'window.service=window.service||function(){(window.service.q=window.service.q||[]).push(arguments)};';
  return (
    `<script>${stub}</script>\n` +
    `<script src="${escapeAttribute(base + WIDGET_PATHS.script)}" data-key="${escapeAttribute(publicKey)}" crossorigin="anonymous" async></script>`
  );
}
