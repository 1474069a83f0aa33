import type { Workspace } from '@ferry/db';
import { ingestCurlExample, sentryDsn, sentrySnippets } from '@ferry/workspace';
import { COPY_SCRIPT, copyButton, copyableSnippet } from '../../shared/copy.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { layout, workspaceBase, type PageContext } from '../../shared/layout.js';

/**
 * How to send error reports: the ingestion-off notice and the first-report help (also shown on
 * an empty Errors list), and the setup page (/settings/errors) with the public key and Sentry DSN.
 */

/** ERROR_INGESTION_ENABLED=false: said wherever the pages show how to send a report. */
export function ingestionOffNotice(): SafeHtml {
  return html`<div class="flash error ingestion-off" role="status" data-testid="ingestion-off">
    <strong>Error ingestion is turned off on this server</strong>
    (<code>ERROR_INGESTION_ENABLED=false</code>): reports are refused with 503 and nothing new
    appears here until it is turned back on.
  </div>`;
}

export function firstReportHelp(
  publicUrl: string,
  workspace: Pick<Workspace, 'public_key'>,
  ingestionEnabled = true,
): SafeHtml {
  return html`${ingestionEnabled ? '' : ingestionOffNotice()}
    <p>
      Send reports to <code>${publicUrl}/ingest/errors</code> with your workspace public key in the
      <code>X-Service-Tenant</code> header. The key only lets a client post reports, so it is safe
      to ship inside an app.
    </p>
    ${copyableSnippet({
      id: 'ingest-curl-command',
      what: 'the curl command',
      text: ingestCurlExample(publicUrl, workspace.public_key),
      className: 'curl',
      testId: 'ingest-curl',
    })}`;
}

/**
 * Apps that already use a Sentry SDK change only their DSN: the envelope and store endpoints take
 * what those SDKs send.
 */
function sentrySection(publicUrl: string, workspace: Pick<Workspace, 'public_key'>): SafeHtml {
  const dsn = sentryDsn(publicUrl, workspace.public_key);
  const snippets = Object.entries(sentrySnippets(dsn));
  return html`<section class="card" aria-labelledby="sentry-sdks">
    <h2 id="sentry-sdks">Sentry SDKs</h2>
    <p>
      Already using a Sentry SDK (JavaScript, Node, Python, Ruby, PHP, mobile)? Give it this DSN;
      nothing else changes. Errors and messages are kept; performance data and sessions are dropped.
    </p>
    ${copyableSnippet({
      id: 'sentry-dsn',
      what: 'the DSN',
      text: dsn,
      // The curl example's look: light, and wrapped rather than cut off on a phone.
      className: 'curl',
      testId: 'sentry-dsn',
    })}
    ${snippets.map(
      ([name, snippet]) =>
        html`<h3>${snippet.label}</h3>
          ${copyableSnippet({
            id: `sentry-snippet-${name}`,
            what: `the ${snippet.label} set-up`,
            text: snippet.code,
            className: 'curl',
            testId: `sentry-snippet-${name}`,
          })}`,
    )}
  </section>`;
}

/** /settings/errors: the public key and a ready report. */
export function errorSettingsPage(
  ctx: PageContext,
  data: {
    workspace: Pick<Workspace, 'id' | 'slug' | 'public_key'>;
    publicUrl: string;
    ingestionEnabled: boolean;
  },
): SafeHtml {
  const base = workspaceBase(data.workspace);
  return layout(ctx, {
    title: 'Error reporting',
    section: 'errors-settings',
    scripts: [COPY_SCRIPT],
    body: html`<div class="errors-view">
      <div class="page-head"><h1>Error reporting</h1></div>
      <section class="card">
        <h2>Workspace public key</h2>
        <p>
          This key identifies the workspace to the error-ingestion endpoint. It is not a secret: it
          is visible in the embed snippet, and anyone holding it can post reports but cannot read,
          delete or reach anything else.
        </p>
        <p>
          <code class="public-key" id="public-key" data-testid="public-key"
            >${data.workspace.public_key}</code
          >
          ${copyButton('public-key', 'the public key')}
        </p>
        <h2>Send a first report</h2>
        ${firstReportHelp(data.publicUrl, data.workspace, data.ingestionEnabled)}
        <p>
          Reports then appear on the <a href="${base}/errors">Errors</a> page, grouped by class and
          top backtrace frame.
        </p>
      </section>
      ${sentrySection(data.publicUrl, data.workspace)}
    </div>`,
  });
}
