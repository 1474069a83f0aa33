import type { ErrorGroup, ErrorSource, ErrorStatus } from '@ferry/db';
import { html, type SafeHtml } from '../../shared/html.js';

/**
 * What the Errors list and an error group's page both show: the source badge and the status
 * labels and badges (regression, resolved, ignored).
 */

export function sourceBadge(source: ErrorSource): SafeHtml {
  return html`<span class="badge source source-${source}">${source}</span>`;
}

export const STATUS_LABEL: Record<ErrorStatus, string> = {
  unresolved: 'Unresolved',
  resolved: 'Resolved',
  ignored: 'Ignored',
};

/** Regression and the triaged states stand out; plain unresolved is the default and says nothing. */
export function statusBadges(g: Pick<ErrorGroup, 'status' | 'regressed_at'>): SafeHtml {
  return html`${
    g.regressed_at && g.status === 'unresolved'
      ? html`<span class="badge danger" title="Resolved, then seen again">Regression</span>`
      : ''
  }
  ${g.status === 'resolved' ? html`<span class="badge ok">Resolved</span>` : ''}
  ${g.status === 'ignored' ? html`<span class="badge ignored">Ignored</span>` : ''}`;
}
