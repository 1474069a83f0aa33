import type { Feedback } from '@ferry/db';
import { LINK_WINDOW_MINUTES, excerpt, type LinkedErrorGroup } from '@ferry/workspace';
import { plural, timeAgo } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, type PageContext } from '../../shared/layout.js';
import { linkByIdForm } from '../../shared/link-form.js';
import { statusBadges } from '../errors/shared-views.js';

/**
 * The ticket page's "Linked errors" (issue 45): the groups the reporter's own errors fell in
 * around the report, and those a member linked by hand, each with Unlink; and the form that links
 * one more by its id or link. The group page shows the other way (linked-tickets-views.ts).
 */

export interface LinkedErrorsPanel {
  groups: LinkedErrorGroup[];
  /** Undefined for a viewer who may not change links: the list shows without its buttons. */
  form?: { value: string; error?: string | undefined } | undefined;
}

function why(group: LinkedErrorGroup): string {
  if (group.visitor_occurrences > 0) {
    return `the reporter hit it ${plural(group.visitor_occurrences, 'time')} within ${LINK_WINDOW_MINUTES} minutes of the report`;
  }
  return 'linked by hand';
}

export function linkedErrorsCard(
  ctx: PageContext,
  base: string,
  f: Pick<Feedback, 'id'>,
  panel: LinkedErrorsPanel,
): SafeHtml {
  const action = `${base}/feedback/${f.id}/errors`;
  return html`<section class="card linked-card" aria-labelledby="linked-errors-heading">
    <h2 id="linked-errors-heading">Linked errors</h2>
    ${
      panel.groups.length
        ? html`<ul class="linked-list">
            ${panel.groups.map(
              (g) =>
                html`<li data-testid="linked-error">
                  <div class="linked-main">
                    <a href="${base}/errors/${g.group_id}">${g.error_class}</a>
                    ${statusBadges({ status: g.status, regressed_at: null })}
                    ${g.latest_message ? html`<div class="linked-text">${excerpt(g.latest_message, 140)}</div>` : ''}
                    <div class="hint">
                      ${why(g)} · ${plural(g.count, 'occurrence')} in all · last
                      ${timeAgo(g.last_seen_at)}
                    </div>
                  </div>
                  ${
                    panel.form
                      ? html`<form method="post" action="${action}/${g.group_id}/unlink">
                          ${csrfField(ctx)}
                          <button type="submit" class="secondary">
                            Unlink<span class="visually-hidden"> ${g.error_class}</span>
                          </button>
                        </form>`
                      : ''
                  }
                </li>`,
            )}
          </ul>`
        : html`<p class="muted">
            No errors linked. Errors the reporter's browser sends in the ${LINK_WINDOW_MINUTES}
            minutes before or after the report link here by themselves.
          </p>`
    }
    ${
      panel.form
        ? linkByIdForm(ctx, action, {
            label: 'Link an error group (its id or its page’s link)',
            name: 'group',
            value: panel.form.value,
            error: panel.form.error,
          })
        : ''
    }
  </section>`;
}
