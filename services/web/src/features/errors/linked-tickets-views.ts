import type { ErrorGroup } from '@ferry/db';
import { excerpt, type GroupTickets } from '@ferry/workspace';
import { number, plural, timeAgo } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, type PageContext } from '../../shared/layout.js';
import { linkByIdForm } from '../../shared/link-form.js';
import { statusBadge } from '../feedback/shared-views.js';

/**
 * The group page's "Reported by people" (issue 45): the feedback tickets linked to this error,
 * by their reporter's own occurrences or by hand, with how many different people that is, Unlink
 * on each, and a form that links one more ticket. The ticket page shows the other way.
 */

export interface LinkedTicketsPanel extends GroupTickets {
  /** Undefined for a viewer who may not change links. */
  form?: { value: string; error?: string | undefined } | undefined;
}

/** "3 people reported this": the count a triager weighs an error by. */
export function peopleReported(people: number): string {
  return people === 1 ? '1 person reported this' : `${number(people)} people reported this`;
}

export function linkedTicketsCard(
  ctx: PageContext,
  base: string,
  group: Pick<ErrorGroup, 'id'>,
  panel: LinkedTicketsPanel,
): SafeHtml {
  const action = `${base}/errors/${group.id}/tickets`;
  const more = panel.total - panel.tickets.length;
  return html`<section class="card linked-card" id="reported" aria-labelledby="reported-heading">
    <h2 id="reported-heading">Feedback</h2>
    ${
      panel.tickets.length
        ? html`<p data-testid="people-reported">
              <strong>${peopleReported(panel.people)}</strong>
              ${panel.total !== panel.people ? html`<span class="muted">(${plural(panel.total, 'ticket')})</span>` : ''}
            </p>
            <ul class="linked-list">
              ${panel.tickets.map(
                (t) =>
                  html`<li data-testid="linked-ticket">
                    <div class="linked-main">
                      <a href="${base}/feedback/${t.feedback_id}"
                        >${t.title ?? excerpt(t.note, 80)}</a
                      >
                      ${statusBadge(t.status)}
                      <div class="hint">
                        ${t.reporter_label ?? 'A visitor'} · filed ${timeAgo(t.created_at)} ·
                        ${t.visitor_occurrences > 0 ? `hit it ${plural(t.visitor_occurrences, 'time')} around the report` : 'linked by hand'}
                      </div>
                    </div>
                    ${
                      panel.form
                        ? html`<form method="post" action="${action}/${t.feedback_id}/unlink">
                            ${csrfField(ctx)}
                            <button type="submit" class="secondary">
                              Unlink<span class="visually-hidden">
                                ${t.title ?? excerpt(t.note, 40)}</span
                              >
                            </button>
                          </form>`
                        : ''
                    }
                  </li>`,
              )}
            </ul>
            ${more > 0 ? html`<p class="muted">And ${plural(more, 'older ticket')}.</p>` : ''}`
        : html`<p class="muted">
            No feedback linked. A ticket links here when its reporter’s browser sent this error
            around the report, or when someone links it.
          </p>`
    }
    ${
      panel.form
        ? linkByIdForm(ctx, action, {
            label: 'Link a feedback ticket (its id or its page’s link)',
            name: 'ticket',
            value: panel.form.value,
            error: panel.form.error,
          })
        : ''
    }
  </section>`;
}
