import { html, type SafeHtml } from './html.js';

/**
 * Copy buttons (public/copy.js): keys, tokens, URLs and commands people paste elsewhere. The
 * script copies the target element's text and says "Copied" on the button and to screen readers.
 * Without JavaScript the button does nothing and the text stays plain and selectable.
 */

/** Pages with a copy button load this script. */
export const COPY_SCRIPT = '/assets/copy.js';

/** "Copy", named for what it copies ("Copy the public key"), for the element `#targetId`. */
export function copyButton(targetId: string, what: string, visible = 'Copy'): SafeHtml {
  return html`<button
    type="button"
    class="secondary small copy"
    data-copy="#${targetId}"
    aria-label="${visible} ${what}"
  >
    ${visible}
  </button>`;
}

/**
 * A command or code sample, its Copy button above it on the right. The sample is focusable: on a
 * phone a long line scrolls sideways, and keyboard users must be able to scroll it too.
 */
export function copyableSnippet(options: {
  id: string;
  /** What it is, shown above it and in the button's name: "the curl command". */
  what: string;
  text: string;
  className?: string;
  testId?: string;
}): SafeHtml {
  return html`<div class="snippet-box">
    <div class="snippet-head">${copyButton(options.id, options.what)}</div>
    <pre
      tabindex="0"
      class="${options.className ?? ''}"
      ${options.testId ? html`data-testid="${options.testId}"` : ''}
    ><code id="${options.id}">${options.text}</code></pre>
  </div>`;
}
