import { isId, newId } from '@ferry/core';
import type { Db, Dispatch, Feedback, FeedbackStatus, Message } from '@ferry/db';
import { writeEvent } from '@ferry/queues';
import { sql } from 'kysely';
import { z } from 'zod';
import { postMessage } from '../messages/messages.js';
import { escapeLike } from '../common/like.js';
import { insertScreenshot, type CheckedScreenshot } from './screenshots.js';
import { emitWorkspaceEvents, ticketData, workspaceEvent } from '../event-webhooks/index.js';
import { insertEvidence, type PreparedEvidence } from './evidence.js';
import { linkTicketToVisitorErrors } from './error-links.js';
import type { DispatchJson, FeedbackJson } from './api-schemas.js';

/**
 * Feedback tickets: filed through the REST API (the widget posts there too), each with its own
 * conversation room. Filing writes the ticket, the room, the room's first message and the
 * `feedback_filed` outbox event in one transaction, so a connected agent hears about exactly the
 * tickets that exist.
 */

/** An optional text field: null, '' and blanks all mean "not given", so clients may send either. */
const optionalText = (max: number) =>
  z
    .string('Must be text.')
    .max(max, `At most ${max.toLocaleString('en-US')} characters.`)
    .nullish()
    .transform((value) => (value?.trim() ? value : null));

const OBJECT = 'Must be an object.';

const viewportSide = z
  .number('Must be a whole number of pixels.')
  .int('Must be a whole number of pixels.')
  .min(0, 'Must be between 0 and 100,000.')
  .max(100_000, 'Must be between 0 and 100,000.')
  .nullish()
  .transform((value) => value ?? null);

export const fileFeedbackSchema = z.object(
  {
    note: z
      .string('Write a note: it is the feedback itself.')
      .trim()
      .min(1, 'Write a note: it is the feedback itself.')
      .max(10_000, 'At most 10,000 characters.')
      .meta({ description: 'The feedback itself.', example: 'The total is wrong after a coupon.' }),
    title: optionalText(200).meta({
      description: 'Names the ticket and its room; the note’s first words when absent.',
    }),
    reporter: z
      .object(
        {
          label: optionalText(120),
          role: optionalText(120),
          email: z
            .string('Enter a valid email address.')
            .trim()
            .max(254, 'At most 254 characters.')
            .nullish()
            .transform((value) => (value ? value : null))
            .pipe(z.email('Enter a valid email address.').nullable()),
        },
        OBJECT,
      )
      .nullish()
      .meta({ description: 'Who reported it.' }),
    page: z
      .object(
        {
          url: optionalText(2_000),
          path: optionalText(1_000),
          controller_action: optionalText(200),
          viewport: z.object({ width: viewportSide, height: viewportSide }, OBJECT).nullish(),
          // Kept whole and in order; the dispatch issue body shows only the first 40.
          partials: z
            .array(
              z.string('Must be text.').max(500, 'At most 500 characters each.'),
              'Must be a list of strings.',
            )
            .max(200, 'At most 200 partials.')
            .nullish()
            .transform((value) => value ?? [])
            .meta({ description: 'The rendered templates, in order.' }),
        },
        OBJECT,
      )
      .nullish()
      .meta({ description: 'Where it was reported: the page and its viewport.' }),
    element: z
      .object(
        {
          selector: optionalText(1_000),
          tag: optionalText(40),
          text: optionalText(2_000),
          outer_html: optionalText(20_000),
        },
        OBJECT,
      )
      .nullish()
      .meta({ description: 'The element the reporter picked on the page.' }),
  },
  'Send a JSON object with at least a "note".',
);
export type FileFeedbackInput = z.infer<typeof fileFeedbackSchema>;

const ROOM_NAME_MAX = 60;

/** Cuts text at a word boundary near `max` characters, marking the cut with an ellipsis. */
export function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The conversation room is named after the ticket: its title, or the note's first words. */
export function conversationName(input: { title: string | null; note: string }): string {
  return excerpt(input.title ?? input.note, ROOM_NAME_MAX) || 'Feedback';
}

/** The room's first message: who reported what, where. Plain sentences; the note follows as is. */
export function summaryMessage(input: FileFeedbackInput): string {
  const who = [input.reporter?.label, input.reporter?.role ? `(${input.reporter.role})` : null]
    .filter(Boolean)
    .join(' ');
  const where = input.page?.path ?? input.page?.url;
  const head = `New feedback${who ? ` from ${who}` : ''}${where ? ` on ${where}` : ''}:`;
  return `${head}\n\n${excerpt(input.note, 1_000)}`;
}

/**
 * Files a ticket: conversation room, ticket (status 'new'), the room's first message from Ferry,
 * and the `feedback_filed` outbox event, all or nothing.
 */
export async function fileFeedback(
  db: Db,
  workspaceId: string,
  input: FileFeedbackInput,
  options: {
    visitorId?: string | null;
    errorGroupId?: string;
    /** The widget's screenshot, already checked (parseScreenshotField); stored with the ticket. */
    screenshot?: CheckedScreenshot | undefined;
    /** The widget's console/network capture, already scrubbed and capped (prepareEvidence). */
    evidence?: PreparedEvidence | undefined;
  } = {},
): Promise<Ticket> {
  return db.transaction().execute(async (trx) => {
    const room = await trx
      .insertInto('rooms')
      .values({
        id: newId('room'),
        workspace_id: workspaceId,
        kind: 'conversation',
        name: conversationName({ title: input.title, note: input.note }),
        created_by: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const feedback = await trx
      .insertInto('feedback')
      .values({
        id: newId('feedback'),
        workspace_id: workspaceId,
        room_id: room.id,
        status: 'new',
        title: input.title,
        note: input.note,
        reporter_label: input.reporter?.label ?? null,
        reporter_role: input.reporter?.role ?? null,
        reporter_email: input.reporter?.email ?? null,
        page_url: input.page?.url ?? null,
        page_path: input.page?.path ?? null,
        controller_action: input.page?.controller_action ?? null,
        viewport_width: input.page?.viewport?.width ?? null,
        viewport_height: input.page?.viewport?.height ?? null,
        partials: JSON.stringify(input.page?.partials ?? []),
        element_selector: input.element?.selector ?? null,
        element_tag: input.element?.tag ?? null,
        element_text: input.element?.text ?? null,
        element_outer_html: input.element?.outer_html ?? null,
        visitor_id: options.visitorId ?? null,
        error_group_id: options.errorGroupId ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    // Through the one way in for messages, inside this transaction: the notice gets its own
    // message_created event like any other message, committed with the ticket or not at all.
    await postMessage(trx, {
      roomId: room.id,
      workspaceId,
      authorKind: 'system',
      displayName: 'Ferry',
      body: summaryMessage(input),
      metadata: { feedbackId: feedback.id },
    });
    if (options.screenshot) await insertScreenshot(trx, feedback, options.screenshot);
    if (options.evidence) await insertEvidence(trx, feedback, options.evidence);
    // Issue 45: the visitor's errors around the report (those still to come link at write time).
    await linkTicketToVisitorErrors(trx, feedback);
    await writeEvent(trx, 'feedback_filed', { feedbackId: feedback.id, workspaceId });
    await emitWorkspaceEvents(trx, [
      workspaceEvent({
        workspaceId,
        type: 'feedback.created',
        data: { ticket: ticketData(feedback) },
      }),
    ]);
    return { ...feedback, assignee_name: null };
  });
}

/** A ticket with its assignee's name (users.name), for pages and the API. */
export type Ticket = Feedback & { assignee_name: string | null };

/** Tickets joined to their assignee's name; callers narrow it to a workspace. */
function tickets(db: Db) {
  return db
    .selectFrom('feedback')
    .leftJoin('members as assignee', 'assignee.id', 'feedback.assignee_member_id')
    .leftJoin('users as assignee_user', 'assignee_user.id', 'assignee.user_id')
    .selectAll('feedback')
    .select('assignee_user.name as assignee_name');
}

/** A ticket of this workspace; junk ids and other workspaces' ids are both "not found". */
export async function findFeedback(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<Ticket | undefined> {
  if (!isId(id, 'feedback')) return undefined;
  return tickets(db)
    .where('feedback.id', '=', id)
    .where('feedback.workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export const FEEDBACK_PAGE_SIZE = 25;

export interface FeedbackPage {
  items: Ticket[];
  page: number;
  hasMore: boolean;
}

/**
 * The inbox's filters, all optional and combinable: one status, the assignee (a member id, or
 * `none` for nobody; pages turn "me" into the viewer's id) and a search over the note and the
 * reporter's label and email.
 */
export interface FeedbackFilter {
  status?: FeedbackStatus | undefined;
  assignee?: string | undefined;
  q?: string | undefined;
}

type TicketQuery = ReturnType<typeof tickets>;

function applyFilter(query: TicketQuery, workspaceId: string, filter: FeedbackFilter) {
  let q = query.where('feedback.workspace_id', '=', workspaceId);
  if (filter.status) q = q.where('feedback.status', '=', filter.status);
  if (filter.assignee === 'none') q = q.where('feedback.assignee_member_id', 'is', null);
  else if (filter.assignee) q = q.where('feedback.assignee_member_id', '=', filter.assignee);
  const search = filter.q?.trim();
  if (search) {
    const pattern = `%${escapeLike(search)}%`;
    q = q.where((eb) =>
      eb.or([
        eb('feedback.note', 'ilike', pattern),
        eb('feedback.reporter_label', 'ilike', pattern),
        eb('feedback.reporter_email', 'ilike', pattern),
      ]),
    );
  }
  return q;
}

/** Newest first, 25 a page; one extra row tells whether there is a next page without a count. */
export async function listFeedback(
  db: Db,
  workspaceId: string,
  options: FeedbackFilter & { page?: number } = {},
): Promise<FeedbackPage> {
  const page = Math.max(1, Math.floor(options.page ?? 1));
  const rows = await applyFilter(tickets(db), workspaceId, options)
    .orderBy('feedback.created_at', 'desc')
    .orderBy('feedback.id', 'desc')
    .limit(FEEDBACK_PAGE_SIZE + 1)
    .offset((page - 1) * FEEDBACK_PAGE_SIZE)
    .execute();
  return {
    items: rows.slice(0, FEEDBACK_PAGE_SIZE),
    page,
    hasMore: rows.length > FEEDBACK_PAGE_SIZE,
  };
}

/** Tickets per status among those matching the other filters (the inbox's tab counts). */
export async function countFeedbackByStatus(
  db: Db,
  workspaceId: string,
  filter: Omit<FeedbackFilter, 'status'> = {},
): Promise<Record<FeedbackStatus, number>> {
  const rows = await applyFilter(tickets(db), workspaceId, filter)
    .clearSelect()
    .select(['feedback.status', (eb) => eb.fn.countAll<string>().as('n')])
    .groupBy('feedback.status')
    .execute();
  const counts: Record<FeedbackStatus, number> = { new: 0, triaged: 0, closed: 0 };
  for (const row of rows) counts[row.status] = Number(row.n);
  return counts;
}

/** The conversation's latest messages, oldest first (the ticket page shows them read-only). */
export async function conversationMessages(
  db: Db,
  feedback: Pick<Feedback, 'room_id' | 'workspace_id'>,
  limit = 100,
): Promise<{ messages: Message[]; more: boolean }> {
  const rows = await db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', feedback.room_id)
    .where('workspace_id', '=', feedback.workspace_id)
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return { messages: rows.slice(0, limit).reverse(), more: rows.length > limit };
}

export function dispatchJson(d: Dispatch): DispatchJson {
  return {
    id: d.id,
    repo_id: d.repo_id,
    status: d.status,
    task_state: d.task_state,
    issue_url: d.issue_url,
    pr_url: d.pr_url,
    error: d.error,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}

/** The ticket's dispatches, oldest first: what API clients poll to watch progress. */
export async function listDispatches(
  db: Db,
  feedback: Pick<Feedback, 'id'>,
): Promise<DispatchJson[]> {
  const rows = await db
    .selectFrom('dispatches')
    .selectAll()
    .where('feedback_id', '=', feedback.id)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows.map(dispatchJson);
}

/** The API's ticket shape; mirrors the POST body so a client reads back what it sent. */
export function feedbackJson(f: Ticket): FeedbackJson {
  return {
    id: f.id,
    status: f.status,
    assignee: f.assignee_member_id
      ? { id: f.assignee_member_id, name: f.assignee_name ?? 'A former member' }
      : null,
    title: f.title,
    note: f.note,
    reporter: { label: f.reporter_label, role: f.reporter_role, email: f.reporter_email },
    page: {
      url: f.page_url,
      path: f.page_path,
      controller_action: f.controller_action,
      viewport: { width: f.viewport_width, height: f.viewport_height },
      partials: f.partials,
    },
    element: {
      selector: f.element_selector,
      tag: f.element_tag,
      text: f.element_text,
      outer_html: f.element_outer_html,
    },
    conversation: { room_id: f.room_id },
    visitor_id: f.visitor_id,
    error_group_id: f.error_group_id,
    created_at: f.created_at.toISOString(),
    updated_at: f.updated_at.toISOString(),
  };
}

/** The full ticket as `GET /api/v1/feedback/:id` answers it, dispatches included. */
export async function ticketJson(
  db: Db,
  f: Ticket,
): Promise<FeedbackJson & { dispatches: DispatchJson[] }> {
  return { ...feedbackJson(f), dispatches: await listDispatches(db, f) };
}

/** SPEC.md's issue body: partials at most 40, outer HTML's first 400 characters. */
export const CONTEXT_PARTIALS_MAX = 40;
export const CONTEXT_OUTER_HTML_MAX = 400;

/**
 * What a coding agent is told about a ticket (SPEC.md "Issue body"): the same fields whether a
 * local agent receives it or a hosted one gets it as an issue. Screenshots are never sent.
 */
export interface TicketContext extends Pick<
  FeedbackJson,
  'id' | 'title' | 'note' | 'reporter' | 'page' | 'element'
> {
  conversation_title: string;
}

export async function ticketContext(db: Db, f: Feedback): Promise<TicketContext> {
  const room = await db
    .selectFrom('rooms')
    .select('name')
    .where('id', '=', f.room_id)
    .executeTakeFirst();
  const json = feedbackJson({ ...f, assignee_name: null });
  return {
    id: f.id,
    title: f.title,
    note: f.note,
    reporter: json.reporter,
    page: { ...json.page, partials: json.page.partials.slice(0, CONTEXT_PARTIALS_MAX) },
    element: {
      ...json.element,
      outer_html: json.element.outer_html?.slice(0, CONTEXT_OUTER_HTML_MAX) ?? null,
    },
    conversation_title: room?.name ?? conversationName(f),
  };
}

/**
 * The ticket's page, absolute (PUBLIC_URL, without its trailing slash): the link a dispatch's
 * issue carries back to the ticket. The same path as the pages' own links (`/w/<id>/<slug>`).
 */
export async function ticketPageUrl(
  db: Db,
  publicUrl: string,
  ticket: Pick<Feedback, 'id' | 'workspace_id'>,
): Promise<string> {
  const workspace = await db
    .selectFrom('workspaces')
    .select('slug')
    .where('id', '=', ticket.workspace_id)
    .executeTakeFirstOrThrow();
  return `${publicUrl}/w/${ticket.workspace_id}/${workspace.slug}/feedback/${ticket.id}`;
}

/** Someone taking part in a ticket's conversation, as the room header lists them. */
export interface Participant {
  name: string;
  role: 'reporter' | 'member' | 'agent' | 'webhook' | 'assignee';
}

/**
 * Who takes part in a feedback conversation: the reporter, everyone who posted (members, agents,
 * webhooks; Ferry's own notices are not a person), and the assignee, each once, in order of first
 * appearance. Nobody joins a conversation room (members open it through the ticket), so its seat
 * count says nothing; this does. Undefined for a room that is no ticket's conversation.
 */
export async function conversationParticipants(
  db: Db,
  roomId: string,
): Promise<Participant[] | undefined> {
  const ticket = await tickets(db).where('feedback.room_id', '=', roomId).executeTakeFirst();
  if (!ticket) return undefined;
  const posters = await db
    .selectFrom('messages')
    .select((eb) => [
      'author_kind',
      eb.fn.max('display_name').as('name'),
      eb.fn.min('id').as('first_id'),
    ])
    .where('room_id', '=', roomId)
    .where('author_kind', '!=', 'system')
    .groupBy(['author_kind', sql`coalesce(author_member_id, author_ref, display_name)`])
    .orderBy('first_id')
    .limit(50)
    .execute();
  const people: Participant[] = [];
  const reporter = ticket.reporter_label ?? ticket.reporter_email;
  if (reporter) people.push({ name: reporter, role: 'reporter' });
  for (const p of posters) {
    if (p.author_kind === 'system') continue;
    people.push({ name: p.name, role: p.author_kind });
  }
  const assignee = ticket.assignee_name;
  if (assignee && !people.some((p) => p.role === 'member' && p.name === assignee)) {
    people.push({ name: assignee, role: 'assignee' });
  }
  return people;
}
