import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * Security headers for pages (helmet): a strict Content-Security-Policy (scripts, styles, fonts
 * and images from our own origin only: no inline script or style anywhere, so an injected
 * `<script>` or `onerror=` cannot run), no framing (`frame-ancestors 'none'` and
 * X-Frame-Options: DENY), nosniff, a same-origin referrer policy and HSTS on https deployments.
 * The widget bundle and its public endpoints, served to other origins, get their own headers.
 */
export function pageSecurityHeaders(options: {
  https: boolean;
  /**
   * Origins a form's redirect may lead to: Chrome applies `form-action` to the whole redirect
   * chain, so "Connect GitHub" and "Authorize GitHub" (POST, then 302 to GitHub) need GitHub's.
   */
  formRedirectOrigins?: readonly string[];
}): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        // The live connection: socket.io over WebSocket to this origin ('self' covers ws(s):).
        connectSrc: ["'self'"],
        formAction: ["'self'", ...(options.formRedirectOrigins ?? [])],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
        ...(options.https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: options.https,
    crossOriginEmbedderPolicy: false,
  });
}
