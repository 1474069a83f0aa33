import { html, type SafeHtml } from './html.js';
import { csrfField, field, type PageContext } from './layout.js';

/**
 * "Link a …" (issue 45): one text field that takes the other page's id or pasted link, and its
 * button beside it, as the ticket page and the group page both offer it.
 */
export function linkByIdForm(
  ctx: PageContext,
  action: string,
  input: { label: string; name: string; value: string; error?: string | undefined },
): SafeHtml {
  return html`<form method="post" action="${action}" class="link-form">
    ${csrfField(ctx)} ${field({ ...input, maxlength: 500 })}
    <button type="submit" class="secondary">Link</button>
  </form>`;
}
