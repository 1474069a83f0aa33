/**
 * `@handle` mentions, parsed the same way wherever text is read: the web renderer highlights them,
 * and routing (an @-mentioned agent receives the message) reads them from the stored body.
 */

// A mention starts after a non-word character (so `bob@example` is not one) and ends on a letter,
// digit or underscore (so `@ada.` highlights `@ada`). Group 1 is what precedes the `@`, group 2 the
// handle. Global: reset `lastIndex` or use String.replace/matchAll.
export const MENTION = /(^|[^\p{L}\p{N}_])@([\p{L}\p{N}](?:[\p{L}\p{N}_.-]*[\p{L}\p{N}_])?)/gu;

/**
 * `@here`, `@channel`, `@everyone` (Slack's `<!here>`, `<!channel>`, `<!everyone>`, which incoming
 * webhooks write this way): a mention of every seat in the message's room, whoever is named so.
 */
export const BROADCAST_HANDLES: ReadonlySet<string> = new Set(['here', 'channel', 'everyone']);

/** Lower-cased `@handles` that resolve to a workspace member (see mentionHandles). */
export type MentionHandles = ReadonlySet<string>;

/**
 * The handles a member answers to: their first name and their whole name without spaces, lower
 * case ("Ada Lovelace" -> ada, adalovelace). Kept deliberately simple; two Adas share `@ada`.
 */
export function mentionHandles(names: Iterable<string>): MentionHandles {
  const handles = new Set<string>();
  for (const name of names) {
    const trimmed = name.trim().toLowerCase();
    const first = trimmed.split(/\s+/)[0];
    if (first) handles.add(first);
    const joined = trimmed.replace(/\s+/g, '');
    if (joined) handles.add(joined);
  }
  return handles;
}

/** The handles a text mentions, lower case, each once, in order of first mention. */
export function mentionedHandles(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    const handle = match[2];
    if (handle) found.add(handle.toLowerCase());
  }
  return [...found];
}
