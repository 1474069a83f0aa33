import { AppError, isId } from '@ferry/core';
import type { Db, ErrorStatus, FeedbackStatus } from '@ferry/db';
import { sql } from 'kysely';
import { z } from 'zod';
import { postMessage } from '../messages/messages.js';
import type { TriageActor } from './feedback-triage.js';
import type { LinkedErrorJson } from './api-schemas.js';

/**
 * Tickets and error groups linked both ways (issue 45, part 3). A widget ticket is linked to the
 * groups its visitor had occurrences of in the 10 minutes around the report, whichever arrived
 * first: filing the ticket looks back at stored occurrences (linkTicketToVisitorErrors), and the
 * error writer looks for tickets when it stores a visitor's occurrence (linkOccurrencesToTickets).
 * A member can link by hand and unlink; an unlinked row stays, marked, so the visitor's next
 * occurrence does not link it again.
 */

/** How far either side of a report a visitor's occurrence still counts as "around" it. */
export const LINK_WINDOW_MINUTES = 10;

/** At filing, in its transaction: the visitor's occurrences around the report, per group. */
export async function linkTicketToVisitorErrors(
  trx: Db,
  ticket: { id: string; workspace_id: string; visitor_id: string | null; created_at: Date },
): Promise<void> {
  if (!ticket.visitor_id) return;
  await sql`
    insert into feedback_error_links (feedback_id, group_id, workspace_id, origin, occurrences)
    select ${ticket.id}, o.group_id, ${ticket.workspace_id}, 'visitor', count(*)
    from error_occurrences o
    where o.visitor_id = ${ticket.visitor_id} and o.workspace_id = ${ticket.workspace_id}
      and o.occurred_at between ${ticket.created_at}::timestamptz - ${window()}
                            and ${ticket.created_at}::timestamptz + ${window()}
    group by o.group_id
    on conflict (feedback_id, group_id) do nothing`.execute(trx);
}

/** One stored occurrence, as the error writer knows it. */
export interface VisitorOccurrence {
  workspaceId: string;
  groupId: string;
  visitorId: string | null;
  /** ISO 8601, as reports carry it. */
  occurredAt: string;
}

/**
 * In the error writer's transaction: each stored occurrence of a visitor links its group to that
 * visitor's tickets filed within the window, adding to the count of a link that exists. Nothing
 * is read when no occurrence has a visitor (SDK traffic), so the writer's usual batch pays nothing.
 * Rows are written in (ticket, group) order, so two batches never wait on each other crosswise.
 */
export async function linkOccurrencesToTickets(
  trx: Db,
  occurrences: readonly VisitorOccurrence[],
): Promise<void> {
  const withVisitor = occurrences.filter((one) => one.visitorId !== null);
  if (!withVisitor.length) return;
  await sql`
    insert into feedback_error_links (feedback_id, group_id, workspace_id, origin, occurrences)
    select f.id, o.group_id, f.workspace_id, 'visitor', count(*)
    from unnest(
      ${withVisitor.map((one) => one.workspaceId)}::text[],
      ${withVisitor.map((one) => one.groupId)}::text[],
      ${withVisitor.map((one) => one.visitorId)}::text[],
      ${withVisitor.map((one) => one.occurredAt)}::timestamptz[]
    ) as o (workspace_id, group_id, visitor_id, occurred_at)
    join feedback f on f.visitor_id = o.visitor_id and f.workspace_id = o.workspace_id
      and f.created_at between o.occurred_at - ${window()} and o.occurred_at + ${window()}
    group by f.id, o.group_id, f.workspace_id
    order by f.id, o.group_id
    on conflict (feedback_id, group_id)
      do update set occurrences = feedback_error_links.occurrences + excluded.occurrences`.execute(
    trx,
  );
}

/**
 * A merge (issue 43) moves the merged groups' links to the target: one row per ticket, counts
 * added, "by hand" if any was, unlinked only if every one was. The merged groups' own rows go
 * with them (on delete cascade).
 */
export async function moveErrorLinks(
  trx: Db,
  mergedIds: readonly string[],
  targetId: string,
): Promise<void> {
  await sql`
    insert into feedback_error_links
      (feedback_id, group_id, workspace_id, origin, occurrences, unlinked_at, created_at)
    select feedback_id, ${targetId}, workspace_id,
      case when bool_or(origin = 'hand') then 'hand' else 'visitor' end,
      sum(occurrences),
      case when bool_and(unlinked_at is not null) then max(unlinked_at) end,
      min(created_at)
    from feedback_error_links where group_id = any(${[...mergedIds]}::text[])
    group by feedback_id, workspace_id
    order by feedback_id
    on conflict (feedback_id, group_id) do update set
      occurrences = feedback_error_links.occurrences + excluded.occurrences,
      origin = case when excluded.origin = 'hand' then 'hand' else feedback_error_links.origin end,
      unlinked_at = case when excluded.unlinked_at is null then null
        else feedback_error_links.unlinked_at end`.execute(trx);
}

const window = () => sql`make_interval(mins => ${LINK_WINDOW_MINUTES})`;

/** A group as the ticket page lists it. */
export interface LinkedErrorGroup {
  group_id: string;
  error_class: string;
  latest_message: string;
  status: ErrorStatus;
  /** All occurrences of the group (retained or counted). */
  count: number;
  last_seen_at: Date;
  origin: 'visitor' | 'hand';
  /** The ticket's visitor's occurrences around the report (0 for a link by hand alone). */
  visitor_occurrences: number;
}

/** The groups a ticket is linked to (not unlinked), most recently seen first. */
export async function ticketErrorGroups(
  db: Db,
  workspaceId: string,
  feedbackId: string,
): Promise<LinkedErrorGroup[]> {
  const rows = await db
    .selectFrom('feedback_error_links as l')
    .innerJoin('error_groups as g', 'g.id', 'l.group_id')
    .select([
      'g.id as group_id',
      'g.error_class',
      'g.latest_message',
      'g.status',
      'g.occurrence_count as count',
      'g.last_seen_at',
      'l.origin',
      'l.occurrences as visitor_occurrences',
    ])
    .where('l.workspace_id', '=', workspaceId)
    .where('l.feedback_id', '=', feedbackId)
    .where('l.unlinked_at', 'is', null)
    .orderBy('g.last_seen_at', 'desc')
    .limit(LINKS_SHOWN)
    .execute();
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}

/** A page shows at most this many links; past it, the count says how many more there are. */
export const LINKS_SHOWN = 50;

/** A ticket as a group page lists it. */
export interface LinkedTicket {
  feedback_id: string;
  title: string | null;
  note: string;
  status: FeedbackStatus;
  reporter_label: string | null;
  created_at: Date;
  origin: 'visitor' | 'hand';
  visitor_occurrences: number;
}

/** A group's tickets, and how many different people reported it. */
export interface GroupTickets {
  tickets: LinkedTicket[];
  /** All linked tickets (the list stops at LINKS_SHOWN). */
  total: number;
  /** Different reporters among them: a visitor, else an email, else the ticket itself. */
  people: number;
}

export async function groupTickets(
  db: Db,
  workspaceId: string,
  groupId: string,
): Promise<GroupTickets> {
  const linked = db
    .selectFrom('feedback_error_links as l')
    .innerJoin('feedback as f', 'f.id', 'l.feedback_id')
    .where('l.workspace_id', '=', workspaceId)
    .where('l.group_id', '=', groupId)
    .where('l.unlinked_at', 'is', null);
  const [tickets, counts] = await Promise.all([
    linked
      .select([
        'f.id as feedback_id',
        'f.title',
        'f.note',
        'f.status',
        'f.reporter_label',
        'f.created_at',
        'l.origin',
        'l.occurrences as visitor_occurrences',
      ])
      .orderBy('f.created_at', 'desc')
      .limit(LINKS_SHOWN)
      .execute(),
    linked
      .select([
        sql<string>`count(*)`.as('total'),
        sql<string>`count(distinct coalesce(f.visitor_id, lower(f.reporter_email), f.id))`.as(
          'people',
        ),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  return { tickets, total: Number(counts.total), people: Number(counts.people) };
}

/** `egr_…` or `fbk_…` in what a member typed: the bare id, or a page's link pasted whole. */
export function idIn(text: string, kind: 'errorGroup' | 'feedback'): string | undefined {
  const prefix = kind === 'errorGroup' ? 'egr' : 'fbk';
  const found = new RegExp(`\\b${prefix}_[0-9a-z]{26}\\b`).exec(text)?.[0];
  return found && isId(found, kind) ? found : undefined;
}

export interface LinkInput {
  workspaceId: string;
  feedbackId: string;
  groupId: string;
  actor: TriageActor & { kind: 'member'; memberId: string };
}

/**
 * A member links a ticket to a group by hand (the caller holds `feedback.triage`), and the
 * ticket's conversation says so. A group merged away links its holder. Linking what is already
 * linked changes nothing; linking what was unlinked links it again. Throws 404 naming `ticket`
 * or `group` for one not in the workspace.
 */
export async function linkTicketToGroup(
  db: Db,
  input: LinkInput,
): Promise<{ groupId: string; changed: boolean }> {
  return db.transaction().execute(async (trx) => {
    const ticket = await ticketRow(trx, input);
    const group = await groupRow(trx, input.workspaceId, input.groupId);
    const existing = await trx
      .selectFrom('feedback_error_links')
      .select(['unlinked_at'])
      .where('feedback_id', '=', ticket.id)
      .where('group_id', '=', group.id)
      .forUpdate()
      .executeTakeFirst();
    if (existing && existing.unlinked_at === null) return { groupId: group.id, changed: false };
    if (existing) {
      await trx
        .updateTable('feedback_error_links')
        .set({
          origin: 'hand',
          linked_by: input.actor.memberId,
          unlinked_at: null,
          unlinked_by: null,
        })
        .where('feedback_id', '=', ticket.id)
        .where('group_id', '=', group.id)
        .execute();
    } else {
      await trx
        .insertInto('feedback_error_links')
        .values({
          feedback_id: ticket.id,
          group_id: group.id,
          workspace_id: input.workspaceId,
          origin: 'hand',
          linked_by: input.actor.memberId,
        })
        .execute();
    }
    await notice(
      trx,
      input.workspaceId,
      ticket,
      `${input.actor.name} linked this ticket to the error ${label(group)}.`,
    );
    return { groupId: group.id, changed: true };
  });
}

/** Unlinks a ticket from a group (the caller holds `feedback.triage`); the conversation says so. */
export async function unlinkTicketFromGroup(db: Db, input: LinkInput): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const ticket = await ticketRow(trx, input);
    const group = await groupRow(trx, input.workspaceId, input.groupId);
    const unlinked = await trx
      .updateTable('feedback_error_links')
      .set({ unlinked_at: new Date(), unlinked_by: input.actor.memberId })
      .where('feedback_id', '=', ticket.id)
      .where('group_id', '=', group.id)
      .where('unlinked_at', 'is', null)
      .executeTakeFirst();
    if (!Number(unlinked.numUpdatedRows)) return false;
    await notice(
      trx,
      input.workspaceId,
      ticket,
      `${input.actor.name} unlinked this ticket from the error ${label(group)}.`,
    );
    return true;
  });
}

async function ticketRow(trx: Db, input: Pick<LinkInput, 'workspaceId' | 'feedbackId'>) {
  const ticket = isId(input.feedbackId, 'feedback')
    ? await trx
        .selectFrom('feedback')
        .select(['id', 'room_id'])
        .where('id', '=', input.feedbackId)
        .where('workspace_id', '=', input.workspaceId)
        .forUpdate()
        .executeTakeFirst()
    : undefined;
  if (!ticket) {
    throw new AppError('not_found', 'No such feedback ticket in this workspace.', {
      fields: { ticket: 'No such feedback ticket in this workspace.' },
    });
  }
  return ticket;
}

type GroupLabel = { id: string; error_class: string; latest_message: string };

/** The group, or the one it was merged into. */
async function groupRow(trx: Db, workspaceId: string, groupId: string): Promise<GroupLabel> {
  if (isId(groupId, 'errorGroup')) {
    const holder = await trx
      .selectFrom('error_group_fingerprints')
      .select('group_id')
      .where('workspace_id', '=', workspaceId)
      .where('merged_group_id', '=', groupId)
      .executeTakeFirst();
    const group = await trx
      .selectFrom('error_groups')
      .select(['id', 'error_class', 'latest_message'])
      .where('id', '=', holder?.group_id ?? groupId)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (group) return group;
  }
  throw new AppError('not_found', 'No such error group in this workspace.', {
    fields: { group: 'No such error group in this workspace.' },
  });
}

const label = (group: GroupLabel): string => {
  const message = group.latest_message.replace(/\s+/g, ' ').trim();
  return `${group.error_class}${message ? `: ${message.length > 80 ? `${message.slice(0, 79)}…` : message}` : ''}`;
};

async function notice(
  trx: Db,
  workspaceId: string,
  ticket: { id: string; room_id: string },
  body: string,
) {
  await postMessage(trx, {
    roomId: ticket.room_id,
    workspaceId,
    authorKind: 'system',
    displayName: 'Ferry',
    body,
    metadata: { feedbackId: ticket.id },
  });
}

/** A linked group in the API (GET /api/v1/feedback/:id's `linked_errors`). */
export function linkedErrorJson(group: LinkedErrorGroup): LinkedErrorJson {
  return {
    group_id: group.group_id,
    error_class: group.error_class,
    message: group.latest_message,
    status: group.status,
    count: group.count,
    last_seen_at: group.last_seen_at.toISOString(),
    linked_by: group.origin,
    visitor_occurrences: group.visitor_occurrences,
  };
}

/** A group's tickets in the API (GET /api/v1/errors/:id's `feedback`). */
export const groupTicketsJsonSchema = z.object({
  people: z.number().int().min(0).meta({
    description: 'Different people among the tickets’ reporters ("3 people reported this").',
  }),
  total: z.number().int().min(0).meta({ description: 'All linked tickets.' }),
  tickets: z
    .array(
      z.object({
        id: z.string(),
        title: z.string().nullable(),
        status: z.enum(['new', 'triaged', 'closed']),
        created_at: z.iso.datetime({ offset: true }),
        linked_by: z.enum(['visitor', 'hand']).meta({
          description:
            '"visitor": its reporter hit this error within 10 minutes of the report; "hand": a member linked it.',
        }),
        visitor_occurrences: z.number().int().min(0),
      }),
    )
    .meta({ description: `The newest ${LINKS_SHOWN}.` }),
});

export function groupTicketsJson(linked: GroupTickets): z.infer<typeof groupTicketsJsonSchema> {
  return {
    people: linked.people,
    total: linked.total,
    tickets: linked.tickets.map((ticket) => ({
      id: ticket.feedback_id,
      title: ticket.title,
      status: ticket.status,
      created_at: ticket.created_at.toISOString(),
      linked_by: ticket.origin,
      visitor_occurrences: ticket.visitor_occurrences,
    })),
  };
}
