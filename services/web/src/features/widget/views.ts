import { WIDGET_SNIPPET } from '@ferry/widget';
import type { Workspace } from '@ferry/db';
import type { WidgetSettings } from '@ferry/workspace';
import { COPY_SCRIPT, copyButton } from '../../shared/copy.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, layout, workspaceBase, type PageContext } from '../../shared/layout.js';

/**
 * Settings > Widget: the snippet a workspace pastes into its site, and a preview page that loads
 * the real widget on a demo page (partial comments, a controller#action meta tag) so an admin can
 * file a ticket the way a customer's visitor would.
 */

export function widgetSettingsPath(workspace: Pick<Workspace, 'id' | 'slug'>): string {
  return `${workspaceBase(workspace)}/settings/widget`;
}

export function widgetSettingsPage(
  ctx: PageContext,
  data: { workspace: Workspace; publicUrl: string; settings: WidgetSettings },
): SafeHtml {
  const snippet = WIDGET_SNIPPET(data.publicUrl, data.workspace.public_key);
  const path = widgetSettingsPath(data.workspace);
  return layout(ctx, {
    title: 'Widget',
    section: 'widget',
    scripts: [COPY_SCRIPT],
    body: html`<div class="page-head">
        <h1>Install the widget</h1>
      </div>
      <p class="muted lead">
        The widget puts a Feedback button on your site. Visitors describe what went wrong and can
        point at the element they mean; each report becomes a ticket here with the page, the
        rendered partials and the picked element. Errors thrown inside the widget itself are
        reported to the Errors page.
      </p>
      <section class="card" aria-labelledby="widget-snippet">
        <h2 id="widget-snippet">Snippet</h2>
        <p>Paste this before <code>&lt;/body&gt;</code> on every page that should show it.</p>
        <div class="copy-row">
          <pre class="snippet"><code id="snippet-code">${snippet}</code></pre>
          <div class="button-row">
            <button type="button" data-copy="#snippet-code">Copy snippet</button>
            <a class="button secondary" href="${path}/preview" target="_blank" rel="noopener"
              >Open the live preview</a
            >
          </div>
        </div>
        <p class="hint">
          Calls made before the script loads are kept:
          <code>service('identify', {label, role, email})</code> names the reporter,
          <code>service('reportError', error, context)</code> reports an error,
          <code>service('open')</code> opens the panel. If your site sends a
          Content-Security-Policy, allow <code>${data.publicUrl}</code> in
          <code>script-src</code> and <code>connect-src</code>.
        </p>
      </section>
      <section class="card" aria-labelledby="widget-capture">
        <h2 id="widget-capture">Activity with feedback</h2>
        <form method="post" action="${path}/capture" class="stack">
          ${csrfField(ctx)}
          <label class="check">
            <input type="checkbox" name="capture" ${data.settings.capture ? html`checked` : ''} />
            Attach console and network activity to feedback
          </label>
          <p class="hint">
            The widget keeps the page's last 50 console lines, last 50 requests (method, address
            with query values masked, status, time and size; never a body or a header), its uncaught
            errors of the last 10 minutes and its route changes. The visitor sees what will be
            attached and can remove it before sending. Values are scrubbed like error reports, in
            the browser and again here; a ticket keeps at most 64 KB. The page's errors go with the
            ticket only, never to the Errors page. A snippet copied before December 2026 lacks
            <code>crossorigin="anonymous"</code>: copy it again, so that while capture is on the
            page's own unhandled fetch failures still reach its listeners.
          </p>
          <div class="button-row"><button type="submit">Save</button></div>
        </form>
      </section>
      <section class="card" aria-labelledby="widget-key">
        <h2 id="widget-key">Public key</h2>
        <p>
          <code id="widget-public-key">${data.workspace.public_key}</code>
          ${copyButton('widget-public-key', 'the public key')}
        </p>
        <p>
          It only says which workspace reports go to, so it is safe in page source. Reports are
          rate-limited per key and per visitor.
        </p>
      </section>`,
  });
}

/**
 * A stand-in customer page: Rails-style partial comments and a controller#action meta tag, the
 * widget loaded from this server with the workspace's key (no inline stub: our pages allow no
 * inline script).
 */
export function widgetPreviewPage(data: { workspace: Workspace }): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="service-controller-action" content="checkouts#show" />
        <title>Widget preview · ${data.workspace.name}</title>
        <link rel="stylesheet" href="/assets/app.css" />
      </head>
      <body class="plain preview-page">
        <!-- BEGIN app/views/layouts/_header.html.erb -->
        <header class="topbar"><span class="brand">Demo Shop</span></header>
        <!-- END app/views/layouts/_header.html.erb -->
        <main class="preview-main">
          <!-- BEGIN app/views/checkouts/show.html.erb -->
          <h1>Checkout</h1>
          <p class="muted">
            A demo page for ${data.workspace.name}: use the Feedback button at the bottom right,
            pick an element, and the ticket appears under Feedback.
          </p>
          <!-- BEGIN app/views/checkouts/_summary.html.erb -->
          <section class="card">
            <h2>Order summary</h2>
            <p>Blue mug × 2 — $24.00</p>
            <p>Shipping — $5.00</p>
            <button type="button" id="pay">Pay $29.00</button>
          </section>
          <!-- END app/views/checkouts/_summary.html.erb -->
          <!-- END app/views/checkouts/show.html.erb -->
        </main>
        <script
          src="/widget/v1.js"
          data-key="${data.workspace.public_key}"
          crossorigin="anonymous"
          async
        ></script>
      </body>
    </html>`;
}
