import type { Workspace } from '@ferry/db';
import type { OnboardingStep, OnboardingSteps } from '@ferry/workspace';
import { firstReportHelp, sentryDsnSnippet } from '../errors/setup-views.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { csrfField, workspaceBase, type PageContext } from '../../shared/layout.js';

/**
 * The Dashboard's "Get started" checklist (issue 42). Each step links to where it is done; public/
 * onboarding.js ticks steps as `onboarding:state` says (features/dashboard/live.ts). Without
 * JavaScript the page still shows what was done when it loaded.
 */

export interface OnboardingCardData {
  workspace: Pick<Workspace, 'id' | 'slug' | 'public_key'>;
  /** The steps this viewer's role is shown, in order, each done or not. */
  steps: Partial<OnboardingSteps>;
  /** The oldest channel the viewer is in: where to say hello and make a webhook key. */
  room: { id: string; name: string } | undefined;
  /** Owner and admins may hide the checklist for the workspace. */
  canDismiss: boolean;
  publicUrl: string;
  ingestionEnabled: boolean;
}

interface StepView {
  title: string;
  href: string;
  hint: SafeHtml | string;
  /** More than a line: shown folded under the hint. */
  more?: { summary: string; body: SafeHtml };
}

function stepView(step: OnboardingStep, data: OnboardingCardData): StepView {
  const base = workspaceBase(data.workspace);
  const room = data.room;
  switch (step) {
    case 'post':
      return {
        title: 'Post in a room',
        href: room ? `${base}/rooms/${room.id}` : `${base}/rooms`,
        hint: room ? html`Say hello in #${room.name}.` : 'Say hello in any room.',
      };
    case 'invite':
      return {
        title: 'Invite someone',
        href: `${base}/members#invites`,
        hint: 'Make an invite link on the Members page and send it to a teammate.',
      };
    case 'error':
      return {
        title: 'Send a first error',
        href: `${base}/settings/errors`,
        hint: 'Give a Sentry SDK your DSN, or post a report with curl.',
        more: {
          summary: 'Show the DSN and a curl command',
          body: html`${sentryDsnSnippet(data.publicUrl, data.workspace)}
          ${firstReportHelp(data.publicUrl, data.workspace, data.ingestionEnabled)}`,
        },
      };
    case 'webhook':
      return {
        title: 'Make an incoming webhook',
        href: room ? `${base}/rooms/${room.id}/settings/webhooks` : `${base}/rooms`,
        hint: room
          ? html`A URL your other tools post to, and the messages appear in #${room.name}.`
          : 'A URL your other tools post to; its messages appear in a room.',
      };
    case 'agent':
      return {
        title: 'Connect a local agent',
        href: `${base}/agents`,
        hint: 'Run the agent beside your code with a dispatch token; feedback reaches it at once.',
      };
  }
}

function stepItem(step: OnboardingStep, done: boolean, data: OnboardingCardData): SafeHtml {
  const view = stepView(step, data);
  return html`<li class="onboarding-step" data-step="${step}" data-done="${String(done)}">
    <span class="step-mark" aria-hidden="true"></span>
    <div class="step-body">
      <a class="step-title" href="${view.href}">${view.title}</a>
      <span class="step-state visually-hidden">${done ? 'Done' : 'Not done yet'}</span>
      <p class="step-hint muted">${view.hint}</p>
      ${
        view.more
          ? html`<details class="step-more">
              <summary>${view.more.summary}</summary>
              ${view.more.body}
            </details>`
          : ''
      }
    </div>
  </li>`;
}

export function onboardingCard(ctx: PageContext, data: OnboardingCardData): SafeHtml {
  const steps = Object.entries(data.steps) as [OnboardingStep, boolean][];
  const doneCount = steps.filter(([, done]) => done).length;
  return html`<section
    class="card onboarding"
    aria-labelledby="onboarding-card"
    data-workspace-id="${data.workspace.id}"
    data-connected="false"
    data-complete="${String(doneCount === steps.length)}"
  >
    <div class="onboarding-head">
      <h2 id="onboarding-card">Get started</h2>
      <p class="onboarding-count muted" aria-live="polite">
        <span data-done-count>${doneCount}</span> of ${steps.length} done
      </p>
    </div>
    <p class="onboarding-complete" hidden>
      All set: every step is done.${data.canDismiss ? ' You can hide this checklist now.' : ''}
    </p>
    <ol class="onboarding-steps">
      ${steps.map(([step, done]) => stepItem(step, done, data))}
    </ol>
    ${
      data.canDismiss
        ? html`<form
            method="post"
            action="${workspaceBase(data.workspace)}/onboarding/dismiss"
            class="onboarding-dismiss"
          >
            ${csrfField(ctx)}
            <button type="submit" class="secondary small">Hide this checklist</button>
            <span class="muted">For everyone in the workspace.</span>
          </form>`
        : ''
    }
  </section>`;
}
