import { html, type SafeHtml } from './html.js';
import { csrfField, layout, type PageContext } from './layout.js';

/**
 * Destructive actions (delete a key or a hook, leave a room, remove a member) ask first, on a page
 * of their own: its link is a GET that only asks; the POST that acts is this page's button. No
 * script is involved (the pages' CSP allows no inline script, and the question must work without
 * JavaScript), and the POST route itself stays as it was, for forms and tests that post directly.
 */

export interface ConfirmOptions {
  /** The question, as the page's title and heading: "Delete the hook to https://…?". */
  question: string;
  /** Which nav entry is current. */
  section?: string;
  /** What doing it means, in a sentence or two. */
  consequences: SafeHtml | string;
  /** Where the confirming POST goes. */
  action: string;
  /** The confirming button: the verb again ("Delete hook"). */
  confirmLabel: string;
  /** Where Cancel leads (the page the person came from). */
  cancelHref: string;
  /** Above the card: the page's crumbs. */
  crumbs?: SafeHtml | undefined;
}

export function confirmPage(ctx: PageContext, options: ConfirmOptions): SafeHtml {
  return layout(ctx, {
    title: options.question,
    section: options.section,
    body: html`${options.crumbs ?? ''}
      <div class="card confirm">
        <h1>${options.question}</h1>
        <p>${options.consequences}</p>
        <form method="post" action="${options.action}" class="button-row">
          ${csrfField(ctx)}
          <button type="submit" class="danger">${options.confirmLabel}</button>
          <a class="button secondary" href="${options.cancelHref}">Cancel</a>
        </form>
      </div>`,
  });
}

/**
 * The link that leads to a confirmation page, styled as the button it replaces. `hiddenLabel` is
 * read after the visible one by screen readers ("Leave" + " #general").
 */
export function confirmLink(
  href: string,
  label: string,
  options: { cls?: string; hiddenLabel?: string } = {},
): SafeHtml {
  return html`<a class="button ${options.cls ?? 'danger'}" href="${href}"
    >${label}${options.hiddenLabel ? html`<span class="visually-hidden"> ${options.hiddenLabel}</span>` : ''}</a
  >`;
}
