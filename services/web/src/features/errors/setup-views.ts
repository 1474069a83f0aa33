import { DEFAULT_SENSITIVE_KEYS, FILTERED } from '@ferry/core';
import type { Workspace, WorkspaceScrubbing } from '@ferry/db';
import {
  SCRUB_KEYS_MAX,
  SCRUB_KEY_MAX_CHARS,
  SCRUB_RULES_TTL_MS,
  ingestCurlExample,
  sentryDsn,
  sentrySnippets,
} from '@ferry/workspace';
import { COPY_SCRIPT, copyButton, copyableSnippet } from '../../shared/copy.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { fingerprintRulesCard, type FingerprintRulesCardData } from './fingerprint-rules-views.js';
import { csrfField, layout, workspaceBase, type PageContext } from '../../shared/layout.js';

/**
 * How to send error reports: the ingestion-off notice and the first-report help (also shown on
 * an empty Errors list), and the setup page (/settings/errors) with the public key, the workspace's
 * data scrubbing and the Sentry DSN.
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

/** The workspace's Sentry DSN with its Copy button (also the Dashboard checklist's). */
export function sentryDsnSnippet(
  publicUrl: string,
  workspace: Pick<Workspace, 'public_key'>,
): SafeHtml {
  return copyableSnippet({
    id: 'sentry-dsn',
    what: 'the DSN',
    text: sentryDsn(publicUrl, workspace.public_key),
    // The curl example's look: light, and wrapped rather than cut off on a phone.
    className: 'curl',
    testId: 'sentry-dsn',
  });
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
    ${sentryDsnSnippet(publicUrl, workspace)}
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

/** The scrubbing form's raw values, kept when a save is refused so nothing typed is lost. */
export interface ScrubbingFormValues {
  /** One key a line, as typed. */
  extra_keys: string;
  safe_fields: string;
  keep_ip: boolean;
}

export function scrubbingFormValuesOf(saved: WorkspaceScrubbing): ScrubbingFormValues {
  return {
    extra_keys: saved.extra_keys.join('\n'),
    safe_fields: saved.safe_fields.join('\n'),
    keep_ip: saved.keep_ip,
  };
}

export interface ScrubbingCardData {
  saved: WorkspaceScrubbing;
  values: ScrubbingFormValues;
  errors: Record<string, string>;
  /** `errors.configure`: the form; anyone else reads what is set. */
  canConfigure: boolean;
}

export const errorSettingsPath = (workspace: Pick<Workspace, 'id' | 'slug'>): string =>
  `${workspaceBase(workspace)}/settings/errors`;

/** A list of keys, one a line; its error replaces its hint (as `field` does for inputs). */
function keyListField(options: {
  name: 'extra_keys' | 'safe_fields';
  label: string;
  value: string;
  error: string | undefined;
  hint: SafeHtml;
}): SafeHtml {
  const id = `f-${options.name}`;
  return html`<div class="field ${options.error ? 'has-error' : ''}">
    <label for="${id}">${options.label}</label>
    <textarea
      id="${id}"
      name="${options.name}"
      rows="4"
      autocapitalize="off"
      autocomplete="off"
      spellcheck="false"
      ${options.error ? html`aria-invalid="true" aria-describedby="${id}-error"` : html`aria-describedby="${id}-hint"`}
    >
${options.value}</textarea>
    ${
      options.error
        ? html`<p class="error" id="${id}-error">${options.error}</p>`
        : html`<p class="hint" id="${id}-hint">${options.hint}</p>`
    }
  </div>`;
}

const codeList = (words: readonly string[]): SafeHtml =>
  html`<ul class="scrub-words">
    ${words.map((word) => html`<li><code>${word}</code></li>`)}
  </ul>`;

/** What is set, for a seat that may read the page but not change it. */
function scrubbingSummary(saved: WorkspaceScrubbing): SafeHtml {
  const list = (words: readonly string[]) =>
    words.length ? codeList(words) : html`<span class="muted">None</span>`;
  return html`<dl class="kv scrub-summary" data-testid="scrubbing-summary">
      <dt>Also scrubbed</dt>
      <dd>${list(saved.extra_keys)}</dd>
      <dt>Safe fields</dt>
      <dd>${list(saved.safe_fields)}</dd>
      <dt>User's IP address</dt>
      <dd>${saved.keep_ip ? 'Kept' : html`Filtered`}</dd>
    </dl>
    <p class="hint">Only admins can change these.</p>`;
}

/**
 * The workspace's own scrubbing rules (issue 41): what @ferry/core always filters, the keys it
 * adds, the fields it keeps and the IP choice. Applied on ingest within SCRUB_RULES_TTL_MS.
 */
function scrubbingCard(
  ctx: PageContext,
  workspace: Pick<Workspace, 'id' | 'slug'>,
  data: ScrubbingCardData,
): SafeHtml {
  const { values, errors } = data;
  const seconds = Math.round(SCRUB_RULES_TTL_MS / 1000);
  return html`<section class="card" aria-labelledby="data-scrubbing" data-testid="scrubbing-card">
    <h2 id="data-scrubbing">Data scrubbing</h2>
    <p>
      Every report is cleaned before it is stored: what is removed reads <code>${FILTERED}</code>.
      Always filtered: card numbers, bearer tokens, the <code>Authorization</code> and
      <code>Cookie</code> headers, and the value of any field, header or URL parameter whose name
      contains one of these words (any case):
    </p>
    ${codeList(DEFAULT_SENSITIVE_KEYS)}
    ${
      data.canConfigure
        ? html`<form
            method="post"
            action="${errorSettingsPath(workspace)}/scrubbing"
            novalidate
            data-testid="scrubbing-form"
          >
            ${csrfField(ctx)}
            <div class="scrub-lists">
              ${keyListField({
                name: 'extra_keys',
                label: 'Also scrub these keys',
                value: values.extra_keys,
                error: errors.extra_keys,
                hint: html`One a line, matched like the words above: <code>iban</code> also catches
                  <code>customer_iban</code>. Up to ${SCRUB_KEYS_MAX}, each at most
                  ${SCRUB_KEY_MAX_CHARS} characters.`,
              })}
              ${keyListField({
                name: 'safe_fields',
                label: 'Safe fields (never scrubbed)',
                value: values.safe_fields,
                error: errors.safe_fields,
                hint: html`Exact names, one a line, kept even if they contain a word above (e.g.
                  <code>session_country</code>). Card numbers and bearer tokens in them are still
                  filtered.`,
              })}
            </div>
            <div class="field checkbox ${errors.keep_ip ? 'has-error' : ''}">
              <label>
                <input
                  type="checkbox"
                  name="keep_ip"
                  value="on"
                  aria-describedby="f-keep_ip-hint"
                  ${values.keep_ip ? html`checked` : ''}
                />
                Keep the user's IP address
              </label>
              ${errors.keep_ip ? html`<p class="error">${errors.keep_ip}</p>` : ''}
              <p class="hint" id="f-keep_ip-hint">
                Off (the default): the user's <code>ip_address</code> and the headers that carry it
                (<code class="nowrap">X-Forwarded-For</code>, <code class="nowrap">X-Real-Ip</code>,
                <code>Forwarded</code> and the like) read <code>${FILTERED}</code>. An IP address is
                personal data; keep it only if you need it.
              </p>
            </div>
            <button type="submit">Save scrubbing settings</button>
          </form>`
        : scrubbingSummary(data.saved)
    }
    <p class="hint after-buttons">
      Changes take effect within ${seconds} seconds of saving. Reports already stored are not
      changed.
    </p>
  </section>`;
}

/** /settings/errors: the public key and a ready report, the data scrubbing, Sentry's DSN. */
export function errorSettingsPage(
  ctx: PageContext,
  data: {
    workspace: Pick<Workspace, 'id' | 'slug' | 'public_key'>;
    publicUrl: string;
    ingestionEnabled: boolean;
    scrubbing: ScrubbingCardData;
    fingerprintRules: FingerprintRulesCardData;
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
      ${scrubbingCard(ctx, data.workspace, data.scrubbing)}
      ${fingerprintRulesCard(
        ctx,
        data.workspace,
        `${errorSettingsPath(data.workspace)}/fingerprint-rules`,
        data.fingerprintRules,
      )}
      ${sentrySection(data.publicUrl, data.workspace)}
    </div>`,
  });
}
