import { excerpt, type TicketContext } from '@ferry/workspace';

/**
 * The issue opened for a dispatch (SPEC.md "Issue body sent to the code-hosting platform"): the
 * note; the reporter's label, role and email; page URL, path and controller#action; viewport;
 * rendered partials in order (the context already holds at most 40); the picked element's
 * selector, tag, text and first 400 characters of outer HTML; the conversation's title. No
 * screenshots. One line is added to SPEC's body, last before the marker: a link to the ticket's
 * page in Ferry (issue 45), where its conversation and evidence are. A hidden marker names the
 * dispatch, so a re-run can find an issue it opened.
 */

export function dispatchMarker(dispatchId: string): string {
  return `<!-- ferry-dispatch: ${dispatchId} -->`;
}

export function issueTitle(context: TicketContext): string {
  return `Feedback: ${excerpt(context.title ?? context.note, 120)}`;
}

/** A code fence longer than any run of backticks inside, so reporter text cannot close it. */
function fenced(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Inline text on one line, in backticks that its own backticks cannot close. */
function inline(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks} ${flat} ${ticks}`;
}

const dash = (value: string | null | number | undefined) =>
  value === null || value === undefined || value === '' ? '—' : String(value);

export function issueBody(context: TicketContext, dispatchId: string, ticketUrl: string): string {
  const { reporter, page, element } = context;
  const viewport =
    page.viewport.width !== null && page.viewport.height !== null
      ? `${page.viewport.width} × ${page.viewport.height}`
      : null;
  const lines = [
    `Feedback filed in Ferry, conversation **${context.conversation_title.replace(/[*_`[\]<>]/g, '')}**.`,
    '',
    '### Note',
    '',
    // Quoted, so the reporter's text reads as theirs; Markdown inside stays as they wrote it.
    ...context.note.split('\n').map((line) => `> ${line}`),
    '',
    '### Reporter',
    '',
    `- Label: ${dash(reporter.label)}`,
    `- Role: ${dash(reporter.role)}`,
    `- Email: ${dash(reporter.email)}`,
    '',
    '### Page',
    '',
    `- URL: ${page.url ? inline(page.url) : '—'}`,
    `- Path: ${page.path ? inline(page.path) : '—'}`,
    `- Controller#action: ${page.controller_action ? inline(page.controller_action) : '—'}`,
    `- Viewport: ${dash(viewport)}`,
    '',
    `### Rendered partials (${page.partials.length}, in page order)`,
    '',
    ...(page.partials.length
      ? page.partials.map((partial, i) => `${i + 1}. ${inline(partial)}`)
      : ['—']),
    '',
    '### Picked element',
    '',
    `- Selector: ${element.selector ? inline(element.selector) : '—'}`,
    `- Tag: ${element.tag ? inline(element.tag) : '—'}`,
    `- Text: ${element.text ? inline(excerpt(element.text, 500)) : '—'}`,
    '',
    ...(element.outer_html
      ? ['Outer HTML (first 400 characters):', '', fenced(element.outer_html, 'html'), '']
      : []),
    `Ticket in Ferry: ${ticketUrl}`,
    dispatchMarker(dispatchId),
  ];
  return lines.join('\n');
}

/** What the coding agent is asked: the issue, and a pull request against the base branch. */
export function agentPrompt(
  context: TicketContext,
  issue: { url: string; number: number },
  dispatchId: string,
  ticketUrl: string,
): string {
  return [
    `Fix the problem reported in issue #${issue.number} (${issue.url}) and open a pull request.`,
    '',
    issueBody(context, dispatchId, ticketUrl),
  ].join('\n');
}
