import { isUniqueViolation, type Db, type ErrorGroup } from '@ferry/db';
import { detailFrameLine, detailFrames, type OccurrenceDetail } from './detail.js';
import { findErrorGroup, latestOccurrences, type OccurrenceWithVisitor } from './errors.js';
import { withMappedDetail, type Symbolicator } from './symbolicate.js';
import {
  excerpt,
  fileFeedback,
  findFeedback,
  type FileFeedbackInput,
  type Ticket,
} from '../feedback/feedback.js';

/**
 * "Fix with agent" on an error group (issue 26): a feedback ticket filed from the group, so every
 * flow that starts at a ticket applies (the workspace's local agent receives it as it is filed;
 * hosted dispatch works from the ticket). One ticket per group: asking again returns the same one
 * (the unique index feedback_error_group_once settles two clicks at once).
 */

const ONE_TICKET_PER_GROUP = 'feedback_error_group_once';
const BACKTRACE_LINES = 30;
const CONTEXT_CHARS = 2_000;
const NOTE_MAX = 10_000;
/** Issue 41: what of the structured detail the agent gets. */
const AGENT_FRAMES = 8;
const AGENT_BREADCRUMBS = 20;
const FRAMES_CHARS = 5_000;
const BREADCRUMBS_CHARS = 2_500;
const CRUMB_DATA_CHARS = 200;

export type ErrorTicket = { ticket: Ticket; created: boolean };

/** The ticket filed from the group, if any (scoped to the workspace). */
export async function ticketForErrorGroup(
  db: Db,
  workspaceId: string,
  groupId: string,
): Promise<Ticket | undefined> {
  const row = await db
    .selectFrom('feedback')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('error_group_id', '=', groupId)
    .executeTakeFirst();
  return row ? findFeedback(db, workspaceId, row.id) : undefined;
}

/** Files (or finds) the group's ticket; undefined when the workspace has no such group. */
export async function fileTicketForErrorGroup(
  db: Db,
  workspaceId: string,
  groupId: string,
  /** Maps frames still minified (a map uploaded after the event), as the group page does. */
  options: { symbolicator?: Symbolicator } = {},
): Promise<ErrorTicket | undefined> {
  const group = await findErrorGroup(db, workspaceId, groupId);
  if (!group) return undefined;
  const existing = await ticketForErrorGroup(db, workspaceId, group.id);
  if (existing) return { ticket: existing, created: false };
  const found = await latestOccurrences(db, group, { limit: 1 });
  const [latest] = options.symbolicator
    ? await withMappedDetail(options.symbolicator, found)
    : found;
  try {
    const ticket = await fileFeedback(db, workspaceId, errorTicketInput(group, latest), {
      errorGroupId: group.id,
    });
    return { ticket, created: true };
  } catch (error) {
    if (!isUniqueViolation(error, ONE_TICKET_PER_GROUP)) throw error;
    // Another request filed it between our read and our insert: that one is the ticket.
    const raced = await ticketForErrorGroup(db, workspaceId, group.id);
    if (!raced) throw error;
    return { ticket: raced, created: false };
  }
}

/** The top backtrace frame: where the error was raised, as the list and alerts call it. */
export function culprit(backtrace: readonly string[]): string | null {
  return backtrace.find((line) => line.trim() !== '')?.trim() ?? null;
}

/** Text cut to `max` characters, saying so. */
function capped(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n… (cut)` : text;
}

/**
 * The app's frames with their code (issue 41): mapped through source maps already, innermost
 * first, each as a heading and its numbered lines with the failing one marked `>`.
 */
function framesMarkdown(detail: OccurrenceDetail): string[] {
  const frames = detailFrames(detail);
  const inApp = frames.some((frame) => frame.in_app) ? frames.filter((f) => f.in_app) : frames;
  const blocks = inApp.slice(0, AGENT_FRAMES).map((frame) => {
    const heading = `- \`${detailFrameLine(frame)}\``;
    if (frame.context_line === undefined || frame.line === undefined) return heading;
    const pre = frame.pre_context ?? [];
    const first = frame.line - pre.length;
    const code = [...pre, frame.context_line, ...(frame.post_context ?? [])].map(
      (line, at) =>
        `${first + at === frame.line ? '>' : ' '} ${String(first + at).padStart(4)} ${line}`,
    );
    return [heading, '  ```', ...code.map((line) => `  ${line}`), '  ```'].join('\n');
  });
  if (blocks.length === 0) return [];
  return [
    '',
    "The app's frames, innermost first, with their code:",
    capped(blocks.join('\n'), FRAMES_CHARS),
  ];
}

/** The last breadcrumbs before the error, oldest first, one line each. */
function breadcrumbsMarkdown(detail: OccurrenceDetail): string[] {
  const crumbs = (detail.breadcrumbs ?? []).slice(-AGENT_BREADCRUMBS);
  if (crumbs.length === 0) return [];
  const lines = crumbs.map((crumb) => {
    const data =
      crumb.data === undefined
        ? ''
        : ` ${capped(typeof crumb.data === 'string' ? crumb.data : JSON.stringify(crumb.data), CRUMB_DATA_CHARS)}`;
    const what = [crumb.category ?? crumb.type, crumb.level].filter(Boolean).join(' ');
    return `- ${crumb.timestamp ?? ''} ${what ? `[${what}] ` : ''}${crumb.message ?? ''}${data}`.trim();
  });
  return [
    '',
    `Breadcrumbs (the last ${crumbs.length}, oldest first):`,
    capped(lines.join('\n'), BREADCRUMBS_CHARS),
  ];
}

/**
 * What the agent (and whoever triages the ticket) needs to start: class, message and culprit in
 * the note's first lines, then the latest occurrence's backtrace, request, environment, release and
 * context, as Markdown; for a Sentry event also the app's frames with their code (mapped through
 * source maps) and the last breadcrumbs. Everything in it was scrubbed before it was stored.
 * Capped to the ticket's 10,000-character note.
 */
export function errorTicketInput(
  group: ErrorGroup,
  latest: OccurrenceWithVisitor | undefined,
): FileFeedbackInput {
  const top = latest ? culprit(latest.backtrace) : null;
  const count = Number(group.occurrence_count);
  const lines = [
    `Fix this error, reported ${count} ${count === 1 ? 'time' : 'times'} to the Errors page.`,
    '',
    `${group.error_class}: ${group.latest_message}`,
  ];
  if (top) lines.push(`Culprit: \`${top}\``);
  if (latest) {
    const facts = [
      latest.environment ? `environment ${latest.environment}` : null,
      latest.app_version ? `release ${latest.app_version}` : null,
      latest.url ? `${latest.request_method ?? 'at'} ${latest.url}` : null,
    ].filter(Boolean);
    lines.push(
      '',
      `Latest occurrence, ${latest.occurred_at.toISOString()}${facts.length ? `: ${facts.join(', ')}` : ''}.`,
    );
    if (latest.backtrace.length) {
      lines.push(
        '',
        'Backtrace (innermost first):',
        '```',
        ...latest.backtrace.slice(0, BACKTRACE_LINES),
        '```',
      );
    }
    if (latest.detail) {
      const detail = latest.detail as OccurrenceDetail;
      lines.push(...framesMarkdown(detail), ...breadcrumbsMarkdown(detail));
    }
    const context = JSON.stringify(latest.context ?? {}, null, 2);
    if (context !== '{}') {
      lines.push(
        '',
        'Context:',
        '```json',
        context.length > CONTEXT_CHARS ? `${context.slice(0, CONTEXT_CHARS)}\n… (cut)` : context,
        '```',
      );
    }
  }
  const note = lines.join('\n');
  return {
    title: excerpt(`${group.error_class}: ${group.latest_message}`, 200),
    note: note.length > NOTE_MAX ? `${note.slice(0, NOTE_MAX - 1)}…` : note,
    reporter: { label: 'Errors', role: null, email: null },
    page: latest?.url
      ? {
          url: latest.url.slice(0, 2_000),
          path: latest.request_path?.slice(0, 1_000) ?? null,
          controller_action: null,
          viewport: null,
          partials: [],
        }
      : null,
    element: null,
  };
}
