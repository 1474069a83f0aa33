import type { Workspace } from '@ferry/db';
import { noun, number } from './format.js';
import { html, type SafeHtml } from './html.js';
import { layout, workspaceBase, type PageContext } from './layout.js';

/** The workspace home: counts with links, then the cards other features add (deps.cards). */

export interface DashboardData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'name'>;
  /** Channels the viewer has joined. */
  rooms: number;
  /** New tickets waiting for triage; undefined when the viewer may not read feedback. */
  newFeedback: number | undefined;
  /** Plug-in cards, already rendered. */
  cards: SafeHtml[];
}

export function dashboardPage(ctx: PageContext, data: DashboardData): SafeHtml {
  const { workspace, rooms, newFeedback } = data;
  const base = workspaceBase(workspace);
  return layout(ctx, {
    title: 'Dashboard',
    section: 'dashboard',
    body: html`<h1>${workspace.name}</h1>
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
        ${data.cards}
      </div>`,
  });
}
