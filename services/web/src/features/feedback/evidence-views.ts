import type { EvidenceEntry, EvidenceKind, FeedbackEvidence } from '@ferry/db';
import { html, type SafeHtml } from '../../shared/html.js';

/**
 * The ticket's evidence (issue 45) as one timeline: console lines, requests, page errors and route
 * changes merged by time, each stamped with how long before the report it happened, failed
 * requests and errors marked (colour and a word, so it reads without colour too). A grid row per
 * entry that folds to two lines on a phone; long text wraps, stacks open on demand.
 */

const KIND_LABEL: Record<EvidenceKind, string> = {
  console: 'Console',
  network: 'Request',
  error: 'Error',
  navigation: 'Route',
};

/** "−4.2 s" before the report under a minute, "−2:05" (m:ss) past it; "+" if the clock ran on. */
export function beforeReport(t: number, capturedAt: number): string {
  const ms = capturedAt - t;
  const sign = ms >= -50 ? '−' : '+';
  const abs = Math.abs(ms) / 1000;
  if (abs < 59.95) return `${sign}${abs.toFixed(1)} s`;
  const seconds = Math.round(abs);
  return `${sign}${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

export function isFailedRequest(entry: EvidenceEntry): boolean {
  return entry.type === 'network' && (entry.status === 0 || entry.status >= 400);
}

function size(bytes: number | null): string {
  if (bytes === null) return '';
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** The reported page's own origin left out, so a timeline of one site reads as its paths. */
function shortUrl(url: string, origin: string | null): string {
  return origin && url.startsWith(`${origin}/`) ? url.slice(origin.length) : url;
}

function originOf(pageUrl: string | null): string | null {
  try {
    return pageUrl ? new URL(pageUrl).origin : null;
  } catch {
    return null;
  }
}

function entryBody(entry: EvidenceEntry, origin: string | null): SafeHtml {
  switch (entry.type) {
    case 'console':
      return html`<span class="tl-level tl-level-${entry.level}">${entry.level}</span>
        <code class="tl-text">${entry.text}</code>`;
    case 'network': {
      const status = entry.status === 0 ? 'no answer' : String(entry.status);
      const facts = [`${entry.ms} ms`, size(entry.size), entry.kind === 'xhr' ? 'XHR' : 'fetch']
        .filter(Boolean)
        .join(' · ');
      return html`<span class="tl-status">${status}</span>
        <code class="tl-text" title="${entry.url}"
          >${entry.method} ${shortUrl(entry.url, origin)}</code
        >
        <span class="tl-facts">${facts}</span>`;
    }
    case 'error': {
      // One string: the code element keeps white space, so the template's line breaks would show.
      const title = `${entry.name}: ${entry.message}${entry.kind === 'rejection' ? ' (unhandled rejection)' : ''}`;
      return html`<details class="tl-error">
        <summary><code class="tl-text">${title}</code></summary>
        ${entry.stack ? html`<pre class="tl-stack">${entry.stack}</pre>` : html`<p class="muted">No stack.</p>`}
      </details>`;
    }
    case 'navigation':
      return html`<code class="tl-text" title="${entry.url}">${shortUrl(entry.url, origin)}</code>
        <span class="tl-facts"
          >${
            {
              push: 'pushState',
              replace: 'replaceState',
              pop: 'back/forward',
              hash: 'hash change',
            }[entry.kind]
          }</span
        >`;
  }
}

function droppedNote(dropped: Partial<Record<EvidenceKind, number>>): SafeHtml | '' {
  const parts = (Object.keys(KIND_LABEL) as EvidenceKind[])
    .filter((kind) => (dropped[kind] ?? 0) > 0)
    .map((kind) => `${dropped[kind]} ${KIND_LABEL[kind].toLowerCase()}`);
  if (!parts.length) return '';
  return html`<p class="hint tl-dropped">
    Not kept (older than what fits in 64 KB, or past the widget's last 50): ${parts.join(', ')}.
  </p>`;
}

export function evidenceCard(evidence: FeedbackEvidence, pageUrl: string | null): SafeHtml {
  const origin = originOf(pageUrl);
  const captured = evidence.captured_at.getTime();
  const entries = evidence.entries;
  const failed = entries.filter(isFailedRequest).length;
  const errors = entries.filter((e) => e.type === 'error').length;
  const counts = [
    `${entries.length} entries`,
    failed ? `${failed} failed request${failed === 1 ? '' : 's'}` : '',
    errors ? `${errors} error${errors === 1 ? '' : 's'}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  return html`<section class="card evidence-card" aria-labelledby="evidence-heading">
    <h2 id="evidence-heading">Before the report</h2>
    <p class="hint">
      ${counts} · times are before the report was sent, by the reporter's clock · scrubbed like
      error reports
    </p>
    <ol class="timeline">
      ${entries.map((entry) => {
        const bad = entry.type === 'error' || isFailedRequest(entry);
        const when = new Date(entry.t).toISOString();
        return html`<li class="tl-item tl-${entry.type} ${bad ? 'tl-bad' : ''}">
          <time class="tl-time" datetime="${when}" title="${when}"
            >${beforeReport(entry.t, captured)}</time
          >
          <span class="tl-kind"
            >${bad ? (entry.type === 'error' ? 'Error' : 'Failed') : KIND_LABEL[entry.type]}</span
          >
          <div class="tl-body">${entryBody(entry, origin)}</div>
        </li>`;
      })}
    </ol>
    ${droppedNote(evidence.dropped)}
  </section>`;
}
