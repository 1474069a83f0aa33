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

/** One entry of the composer's @-autocomplete: what to insert, and whom it names. */
export interface MentionSuggestion {
  /** Inserted after the `@`; resolves to this person or agent (mentionHandles, agents' names). */
  handle: string;
  name: string;
  kind: 'member' | 'agent';
}

const WHOLE_HANDLE = new RegExp(`^${MENTION.source.slice(MENTION.source.indexOf('@') + 1)}$`, 'u');

/** True when `@handle` would be read back as exactly this handle by MENTION. */
export function isMentionHandle(handle: string): boolean {
  return WHOLE_HANDLE.test(handle);
}

/**
 * The handle the autocomplete inserts for each of `people`: the first name when no one else among
 * them shares it (`@ada`), else the whole name without spaces (`@adalovelace`); an agent by its
 * name, which is how routing finds it. Anyone whose name makes no readable handle (`@o'brien`
 * would stop at the apostrophe) is left out rather than offered a mention that names nobody.
 */
export function mentionSuggestions(
  people: readonly { name: string; kind: MentionSuggestion['kind'] }[],
): MentionSuggestion[] {
  const firstNames = new Map<string, number>();
  for (const person of people) {
    if (person.kind !== 'member') continue;
    const first = person.name.trim().toLowerCase().split(/\s+/)[0] ?? '';
    firstNames.set(first, (firstNames.get(first) ?? 0) + 1);
  }
  const seen = new Set<string>();
  const suggestions: MentionSuggestion[] = [];
  for (const person of people) {
    const trimmed = person.name.trim();
    const lower = trimmed.toLowerCase();
    const first = lower.split(/\s+/)[0] ?? '';
    const handle =
      person.kind === 'agent'
        ? lower
        : firstNames.get(first) === 1
          ? first
          : lower.replace(/\s+/g, '');
    if (!isMentionHandle(handle) || seen.has(`${person.kind}:${handle}`)) continue;
    seen.add(`${person.kind}:${handle}`);
    suggestions.push({ handle, name: trimmed, kind: person.kind });
  }
  return suggestions;
}
