import type { Feedback, FeedbackStatus } from '@ferry/db';
import { excerpt } from '@ferry/workspace';
import { html, type SafeHtml } from '../../shared/html.js';

/** What the feedback inbox and a ticket's page both show: the status label and badge, the title. */

const STATUS_TONE: Record<FeedbackStatus, string> = {
  new: 'warn',
  triaged: 'ok',
  closed: 'closed',
};
export const STATUS_LABEL: Record<FeedbackStatus, string> = {
  new: 'New',
  triaged: 'Triaged',
  closed: 'Closed',
};

export function statusBadge(status: FeedbackStatus): SafeHtml {
  return html`<span class="badge ${STATUS_TONE[status]}" data-status="${status}">${status}</span>`;
}

export function ticketTitle(f: Pick<Feedback, 'title' | 'note'>): string {
  return f.title ?? excerpt(f.note, 80);
}
