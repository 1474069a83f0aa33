import type { Workspace } from '@ferry/db';
import { excerpt, type ErrorsAtAGlance } from '@ferry/workspace';
import { noun, number, plural } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { layout, workspaceBase, type PageContext } from '../../shared/layout.js';
import { COPY_SCRIPT } from '../../shared/copy.js';
import { onboardingCard, type OnboardingCardData } from './onboarding-views.js';

/**
 * The workspace home: a new workspace's checklist (onboarding-views.ts), counts with links, then
 * the cards other features add (deps.cards).
 */

export interface DashboardData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
  /** Channels the viewer has joined. */
  rooms: number;
  /** New tickets waiting for triage; undefined when the viewer may not read feedback. */
  newFeedback: number | undefined;
  /** The Errors card's figures; undefined when the viewer may not read errors. */
  errors: ErrorsAtAGlance | undefined;
  /** Plug-in cards, already rendered. */
  cards: SafeHtml[];
  /** The "Get started" checklist; undefined once hidden (dismissed, or nothing left for them). */
  onboarding: OnboardingCardData | undefined;
}

function errorsCard(base: string, errors: ErrorsAtAGlance): SafeHtml {
  return html`<section class="card errors-card" aria-labelledby="errors-card">
    <h2 id="errors-card">Errors</h2>
    <p>
      <a href="${base}/errors?status=all"><strong>${number(errors.newToday)}</strong> new today</a>
      ·
      <a href="${base}/errors"
        ><strong>${number(errors.regressions)}</strong> ${noun(errors.regressions, 'regression')}</a
      >
    </p>
    ${
      errors.busiest.length
        ? html`<ol class="busiest">
            ${errors.busiest.map(
              (g) =>
                html`<li>
                  <a href="${base}/errors/${g.id}" class="error-class">${g.error_class}</a>
                  <span class="busiest-count">${plural(g.count, 'occurrence')} in 24 h</span>
                  <span class="busiest-message">${excerpt(g.latest_message, 80)}</span>
                </li>`,
            )}
          </ol>`
        : html`<p class="muted">Nothing reported in the last 24 hours.</p>`
    }
    <a href="${base}/errors">Open Errors →</a>
  </section>`;
}

/** Ticks the checklist's steps live. */
const ONBOARDING_SCRIPT = '/assets/onboarding.js';

export function dashboardPage(ctx: PageContext, data: DashboardData): SafeHtml {
  const { workspace, rooms, newFeedback } = data;
  const base = workspaceBase(workspace);
  return layout(ctx, {
    title: 'Dashboard',
    section: 'dashboard',
    scripts: data.onboarding ? [COPY_SCRIPT, ONBOARDING_SCRIPT] : [],
    body: html`<h1 class="one-line" title="${workspace.name}">${workspace.name}</h1>
      ${data.onboarding ? onboardingCard(ctx, data.onboarding) : ''}
      <div class="cards">
        <section class="card" aria-labelledby="rooms-card">
          <h2 id="rooms-card">Rooms</h2>
          <p>You are in <strong>${number(rooms)}</strong> ${noun(rooms, 'room')}.</p>
          <a href="${base}/rooms">Open rooms →</a>
        </section>
        ${
          newFeedback === undefined
            ? ''
            : html`<section class="card" aria-labelledby="feedback-card">
                <h2 id="feedback-card">Feedback</h2>
                <p>
                  <strong>${number(newFeedback)}</strong> new ${noun(newFeedback, 'ticket')} waiting
                  for triage.
                </p>
                <a href="${base}/feedback">Open the inbox →</a>
              </section>`
        }
        ${data.errors ? errorsCard(base, data.errors) : ''} ${data.cards}
      </div>`,
  });
}
