import { sql } from 'kysely';
import { newId } from '@ferry/core';
import type { Db, ErrorAlertTrigger, ErrorStatus } from '@ferry/db';
import { writeEvents, type OutboxEvent } from '@ferry/queues';
import {
  ERROR_ALERT_SENDER,
  errorAlertMessage,
  errorAlertPayload,
  ALERT_EVENT,
  type ErrorAlert,
} from './error-alerts.js';
import { postMessages } from '../messages/messages.js';
import { occurrencesMatching, type AlertFacets } from './alert-filters.js';
import type { OwedEvent } from '../event-webhooks/index.js';

/**
 * Raising error alerts inside the error writer's transaction (services/ingest-errors
 * write-errors.ts): the writer hands over what its upsert returned for each group of the batch
 * (inserted, regressed, status) and how many occurrences were really new once replays were taken
 * back out. Everything here commits with the occurrences or not at all; nothing polls.
 *
 * A workspace may have several rules (issue 43): each is decided on its own, with its own filters,
 * cooldowns and cap.
 *
 * Caps, both atomic under concurrent writers, both per rule:
 * - one alert per group per rule and trigger per hour: an upsert on error_alert_state that only moves
 *   `last_alert_at` when the last one is an hour old (the group's row lock, taken by the writer's
 *   upsert, already serialises writers of one group);
 * - 30 room messages per rule per clock hour: an upsert on error_alert_windows counts them;
 *   what is over is held, and the first hold of an hour writes an `error_alerts_held` event whose
 *   job, delayed to the hour's end, posts one "N more alerts held" line.
 */

export const ALERT_COOLDOWN_MS = 3_600_000;
export const ROOM_ALERTS_PER_HOUR = 30;
const HOUR_MS = 3_600_000;

/** One group of the batch as the writer left it. */
export interface AlertCandidate {
  workspaceId: string;
  groupId: string;
  /** The upsert inserted the group: its first occurrence. */
  created: boolean;
  /** The upsert moved it from resolved to unresolved. */
  regressed: boolean;
  status: ErrorStatus;
  /** Occurrences of this batch really stored (replays already counted are not). */
  newOccurrences: number;
  /** Those occurrences per environment named (reports without one are in no environment). */
  environments: ReadonlyMap<string, number>;
  /**
   * The group's environments after this write, as the upsert returned its row (the earlier ones
   * and this batch's, sorted, capped): what events show as `group.environments`.
   */
  groupEnvironments: readonly string[];
  /** What the rules' filters look at, one per new occurrence of the batch. */
  facets: readonly AlertFacets[];
  /**
   * The group's occurrences within its workspace's spike window after this batch (replays taken
   * out), as the writer's upsert counted them; null without a spike rule.
   */
  recent: number | null;
  group: ErrorAlert['group'];
}

export interface RaiseOptions {
  /** PUBLIC_URL, for the links to the group page and the Errors page. */
  publicUrl: string;
  /**
   * What the batch's events already owe event endpoints (issue 44, emitWorkspaceEvents): an
   * alert whose rule URL is such an endpoint's, for the same group and trigger, is not owed a
   * second time. The endpoint's delivery carries it.
   */
  endpointDeliveries?: readonly OwedEvent[];
}

/** An alert rule as the error writer reads it: readAlertRules. */
export interface AlertRule {
  id: string;
  workspace_id: string;
  slug: string;
  room_id: string | null;
  new_group: boolean;
  regression: boolean;
  frequency_count: number | null;
  frequency_minutes: number | null;
  hook_id: string | null;
  hook_state: 'enabled' | 'disabled' | null;
  /** The rule's URL (its hook's target), to send nothing twice with an event endpoint. */
  hook_url: string | null;
  environments: string[] | null;
  sources: string[] | null;
  levels: string[] | null;
  releases: string[] | null;
  tags: string[] | null;
  notify_member_ids: string[] | null;
  hand_to_agent: boolean;
}

/** What the batch raised: the alerts, and the groups to hand to the agent once committed. */
export interface RaisedAlerts {
  alerts: ErrorAlert[];
  handoffs: { workspaceId: string; groupId: string }[];
}

/**
 * Decides and raises the batch's alerts, given the rules of its workspaces (readAlertRules, read
 * once by the writer before its upsert: the spike counts need them there too). With no rule
 * (alerts off) it does nothing more. A rule alerts for a group when one of the batch's new
 * occurrences of it passes the rule's filters (a spike also needs the group's recent count).
 */
export async function raiseErrorAlerts(
  tx: Db,
  candidates: readonly AlertCandidate[],
  rules: ReadonlyMap<string, readonly AlertRule[]>,
  options: RaiseOptions,
): Promise<RaisedAlerts> {
  const none: RaisedAlerts = { alerts: [], handoffs: [] };
  if (!rules.size) return none;
  const live = candidates.filter((c) => c.newOccurrences > 0 && c.status !== 'ignored');
  if (!live.length) return none;

  const wanted: { candidate: AlertCandidate; trigger: ErrorAlertTrigger; rule: AlertRule }[] = [];
  for (const candidate of live) {
    for (const rule of rules.get(candidate.workspaceId) ?? []) {
      if (rule.room_id === null && rule.hook_id === null && !rule.hand_to_agent) continue;
      if (occurrencesMatching(rule, candidate.facets) === 0) continue;
      if (rule.new_group && candidate.created) {
        wanted.push({ candidate, trigger: 'created', rule });
      }
      if (rule.regression && candidate.regressed) {
        wanted.push({ candidate, trigger: 'regressed', rule });
      }
      const { recent } = candidate;
      if (rule.frequency_count !== null && recent !== null && recent >= rule.frequency_count) {
        wanted.push({ candidate, trigger: 'spiking', rule });
      }
    }
  }
  if (!wanted.length) return none;

  const claimed = await claimCooldowns(
    tx,
    wanted.map(({ candidate, trigger, rule }) => ({
      groupId: candidate.groupId,
      ruleId: rule.id,
      trigger,
    })),
  );
  const raised = wanted.filter(({ candidate, trigger, rule }) =>
    claimed.has(cooldownKey(candidate.groupId, rule.id, trigger)),
  );
  if (!raised.length) return none;

  const alerts = raised.map(({ candidate, trigger, rule }) => ({
    rule,
    alert: {
      workspaceId: candidate.workspaceId,
      trigger,
      group: candidate.group,
      url: `${options.publicUrl}/w/${rule.workspace_id}/${rule.slug}/errors/${candidate.groupId}`,
      frequency:
        rule.frequency_count !== null && rule.frequency_minutes !== null
          ? { count: rule.frequency_count, minutes: rule.frequency_minutes }
          : null,
    } satisfies ErrorAlert,
  }));

  const events: OutboxEvent[] = [];
  await postToRooms(tx, alerts, options, events);
  await oweDeliveries(tx, alerts, events, options.endpointDeliveries ?? []);
  const handoffs = await claimHandoffs(tx, alerts);
  for (const handoff of handoffs) {
    events.push({ type: 'error_handoff_requested', payload: handoff });
  }
  await writeEvents(tx, events);
  return { alerts: alerts.map(({ alert }) => alert), handoffs };
}

/**
 * The groups of the raised alerts whose rule hands them to the agent, and which no rule handed
 * before: marked now, in the writer's transaction, so each group is handed at most once. Each
 * gets an `error_handoff_requested` event in the same transaction: its job files the ticket
 * (fileTicketForErrorGroup: its own transaction and events), so a crash right after the commit
 * loses no hand-off.
 */
async function claimHandoffs(tx: Db, alerts: readonly Raised[]): Promise<RaisedAlerts['handoffs']> {
  const byGroup = new Map<string, Raised>();
  for (const raised of alerts) {
    if (raised.rule.hand_to_agent && !byGroup.has(raised.alert.group.id)) {
      byGroup.set(raised.alert.group.id, raised);
    }
  }
  if (!byGroup.size) return [];
  const rows = await tx
    .insertInto('error_alert_handoffs')
    .values(
      [...byGroup.values()]
        .sort((a, b) => (a.alert.group.id < b.alert.group.id ? -1 : 1))
        .map(({ rule, alert }) => ({ group_id: alert.group.id, rule_id: rule.id })),
    )
    .onConflict((oc) => oc.column('group_id').doNothing())
    .returning('group_id')
    .execute();
  return rows.map((row) => ({
    workspaceId: byGroup.get(row.group_id)!.rule.workspace_id,
    groupId: row.group_id,
  }));
}

/** The alert rules of the batch's workspaces, by workspace (oldest first): one indexed read. */
export async function readAlertRules(
  tx: Db,
  workspaceIds: readonly string[],
): Promise<Map<string, AlertRule[]>> {
  if (!workspaceIds.length) return new Map();
  const rows = await tx
    .selectFrom('error_alert_rules as r')
    .innerJoin('workspaces as w', 'w.id', 'r.workspace_id')
    .leftJoin('outgoing_webhooks as h', 'h.id', 'r.hook_id')
    .select([
      'r.id',
      'r.workspace_id',
      'w.slug',
      'r.room_id',
      'r.new_group',
      'r.regression',
      'r.frequency_count',
      'r.frequency_minutes',
      'r.hook_id',
      'h.state as hook_state',
      'h.target_url as hook_url',
      'r.environments',
      'r.sources',
      'r.levels',
      'r.releases',
      'r.tags',
      'r.notify_member_ids',
      'r.hand_to_agent',
    ])
    .where('r.workspace_id', 'in', workspaceIds)
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
  const byWorkspace = new Map<string, AlertRule[]>();
  for (const row of rows) {
    const list = byWorkspace.get(row.workspace_id) ?? [];
    list.push(row);
    byWorkspace.set(row.workspace_id, list);
  }
  return byWorkspace;
}

/** A workspace's spike rule as the error writer counts for it. */
export interface SpikeWindow {
  /** A sixth of the rule's window: the counters' slot (see migration 2026_11_27_0100). */
  slotSeconds: number;
  environments: string[] | null;
}

const SPIKE_SLOTS_PER_WINDOW = 6;

/**
 * The spike windows among the rules (those with a `frequency`), for the writer's upsert to count
 * each group's recent occurrences on the group's row (spikeCountsOnUpsert). A workspace's spike
 * rules share one window (validateErrorAlertRule); the count covers the environments any of them
 * names (every environment when one names none), and each rule's other filters then decide.
 */
export function spikeWindows(
  rules: ReadonlyMap<string, readonly AlertRule[]>,
): Map<string, SpikeWindow> {
  const windows = new Map<string, SpikeWindow>();
  for (const [workspaceId, list] of rules) {
    const spikes = list.filter(
      (rule) => rule.frequency_count !== null && rule.frequency_minutes !== null,
    );
    if (!spikes.length) continue;
    const environments = spikes.some((rule) => rule.environments === null)
      ? null
      : [...new Set(spikes.flatMap((rule) => rule.environments ?? []))].sort();
    windows.set(workspaceId, {
      slotSeconds: Math.ceil((spikes[0]!.frequency_minutes! * 60) / SPIKE_SLOTS_PER_WINDOW),
      environments,
    });
  }
  return windows;
}

/** Of a group's new occurrences (per environment named), those its workspace's rule counts. */
export function occurrencesCounted(
  environments: string[] | null,
  total: number,
  perEnvironment: ReadonlyMap<string, number>,
): number {
  if (!environments) return total;
  return environments.reduce((sum, name) => sum + (perEnvironment.get(name) ?? 0), 0);
}

/**
 * The spike columns of a group the error writer inserts: `counted` occurrences in the newest
 * slot, or nulls without a spike rule. Plain values, no SQL per row: the writer's upsert has a
 * row per group of the batch, and expressions in each made its statement dearer to parse than
 * the counting itself. The slot is the writer's clock's (a writer behind adds to the newest).
 */
export function spikeCountsOnInsert(
  window: SpikeWindow | undefined,
  counted: number,
  now: number = Date.now(),
) {
  if (!window) return { spike_slot_seconds: null, spike_latest_slot: null, spike_slots: null };
  return {
    spike_slot_seconds: window.slotSeconds,
    spike_latest_slot: String(Math.floor(now / 1000 / window.slotSeconds)),
    spike_slots: [counted, 0, 0, 0, 0, 0, 0],
  };
}

/**
 * The writer's ON CONFLICT update of the spike columns (every expression reads the row as it was;
 * `excluded` is spikeCountsOnInsert's): no rule, the columns stay; a new rule or window length, or
 * every slot older than the window, they start again; the same slot (or a writer whose clock is
 * behind), the newest slot grows; a later slot, the older ones shift along with empty ones for
 * the quiet slots between.
 */
export const spikeCountsOnUpsert = {
  spike_slot_seconds: sql<number | null>`coalesce(excluded.spike_slot_seconds,
    error_groups.spike_slot_seconds)`,
  spike_latest_slot: sql<string | null>`case
    when excluded.spike_slot_seconds is null then error_groups.spike_latest_slot
    when error_groups.spike_slots is null
      or error_groups.spike_slot_seconds is distinct from excluded.spike_slot_seconds
      then excluded.spike_latest_slot
    else greatest(error_groups.spike_latest_slot, excluded.spike_latest_slot) end`,
  spike_slots: sql<number[] | null>`case
    when excluded.spike_slot_seconds is null then error_groups.spike_slots
    when error_groups.spike_slots is null
      or error_groups.spike_slot_seconds is distinct from excluded.spike_slot_seconds
      or excluded.spike_latest_slot - error_groups.spike_latest_slot >= 7
      then excluded.spike_slots
    when excluded.spike_latest_slot <= error_groups.spike_latest_slot
      then array[error_groups.spike_slots[1] + excluded.spike_slots[1]]
        || error_groups.spike_slots[2:7]
    else array[excluded.spike_slots[1]]
      || array_fill(0, array[(excluded.spike_latest_slot - error_groups.spike_latest_slot - 1)::int])
      || error_groups.spike_slots[1:(7 - (excluded.spike_latest_slot
        - error_groups.spike_latest_slot))::int]
    end`,
};

/** RETURNING's sum of the slots after the upsert: the group's occurrences in the window. */
export const spikeRecent = sql<
  number | null
>`(select sum(v) from unnest(spike_slots) as v)::int`.as('spike_recent');

const cooldownKey = (groupId: string, ruleId: string, trigger: ErrorAlertTrigger): string =>
  `${groupId}\n${ruleId}\n${trigger}`;

/** The (group, rule, trigger) triples whose hour of silence is over, now marked as alerted. */
async function claimCooldowns(
  tx: Db,
  triples: readonly { groupId: string; ruleId: string; trigger: ErrorAlertTrigger }[],
): Promise<Set<string>> {
  // Sorted: writers lock these rows in the same order.
  const keyOf = (t: (typeof triples)[number]) => cooldownKey(t.groupId, t.ruleId, t.trigger);
  const sorted = [...triples].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  const { rows } = await sql<{ group_id: string; rule_id: string; trigger: ErrorAlertTrigger }>`
    insert into error_alert_state (group_id, rule_id, trigger, last_alert_at)
    select g, r, t, now()
    from unnest(${sorted.map((p) => p.groupId)}::text[], ${sorted.map((p) => p.ruleId)}::text[],
      ${sorted.map((p) => p.trigger)}::text[]) as x(g, r, t)
    on conflict (group_id, rule_id, trigger) do update set last_alert_at = now()
      where error_alert_state.last_alert_at
        <= now() - ${ALERT_COOLDOWN_MS} * interval '1 millisecond'
    returning group_id, rule_id, trigger`.execute(tx);
  return new Set(rows.map((row) => cooldownKey(row.group_id, row.rule_id, row.trigger)));
}

type Raised = { rule: AlertRule; alert: ErrorAlert };

/** One URL's delivery of one group's event (the URL as WHATWG parses it: same target, same key). */
function sameTarget(url: string, groupId: string, eventType: string): string {
  const href = URL.canParse(url) ? new URL(url).href : url;
  return `${href}\n${groupId}\n${eventType}`;
}

/** One message per alert into the rule's room, up to the rule's hourly cap; the rest held. */
async function postToRooms(
  tx: Db,
  alerts: readonly Raised[],
  options: RaiseOptions,
  events: OutboxEvent[],
): Promise<void> {
  const byRule = new Map<string, Raised[]>();
  for (const raised of alerts) {
    if (raised.rule.room_id === null) continue;
    const list = byRule.get(raised.rule.id) ?? [];
    list.push(raised);
    byRule.set(raised.rule.id, list);
  }
  const messages: Parameters<typeof postMessages>[1][number][] = [];
  /** Who each message notifies, in the order of `messages`. */
  const notify: (readonly string[])[] = [];
  for (const ruleId of [...byRule.keys()].sort()) {
    const list = byRule.get(ruleId)!;
    const rule = list[0]!.rule;
    const workspaceId = rule.workspace_id;
    const window = await sql<{ alerts: number; window_start: Date }>`
      insert into error_alert_windows (rule_id, workspace_id, window_start, alerts)
      values (${ruleId}, ${workspaceId}, date_trunc('hour', now()), ${list.length})
      on conflict (rule_id, window_start)
        do update set alerts = error_alert_windows.alerts + excluded.alerts
      returning alerts, window_start`.execute(tx);
    const { alerts: after, window_start: windowStart } = window.rows[0]!;
    const before = after - list.length;
    const slots = Math.max(0, Math.min(list.length, ROOM_ALERTS_PER_HOUR - before));
    for (const { alert } of list.slice(0, slots)) {
      messages.push({
        roomId: rule.room_id!,
        workspaceId,
        authorKind: 'system',
        authorRef: 'error-alerts',
        displayName: ERROR_ALERT_SENDER,
        body: errorAlertMessage(alert),
        metadata: { errorGroupId: alert.group.id, errorAlert: alert.trigger },
      });
      notify.push(rule.notify_member_ids ?? []);
    }
    // The first alert of the hour over the cap: the held line's job, due when the hour ends.
    if (slots < list.length && before <= ROOM_ALERTS_PER_HOUR) {
      events.push({
        type: 'error_alerts_held',
        payload: {
          workspaceId,
          ruleId,
          windowStart: windowStart.toISOString(),
          windowEnd: new Date(windowStart.getTime() + HOUR_MS).toISOString(),
          errorsUrl: `${options.publicUrl}/w/${workspaceId}/${rule.slug}/errors`,
        },
      });
    }
  }
  if (!messages.length) return;
  const posted = await postMessages(tx, messages);
  // The rule's members: a Mentions entry each for the alert's message (who may open the room is
  // decided when Mentions are read, as for every mention).
  const mentions = posted.flatMap((message, i) =>
    notify[i]!.map((memberId) => ({
      member_id: memberId,
      message_id: message.id,
      room_id: message.room_id,
      reason: 'mention' as const,
    })),
  );
  if (mentions.length) {
    await tx
      .insertInto('mentions')
      .values(mentions)
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/** One signed delivery per alert to the rule's URL, in the hook's stream; its drain woken. */
async function oweDeliveries(
  tx: Db,
  alerts: readonly Raised[],
  events: OutboxEvent[],
  endpointDeliveries: readonly OwedEvent[],
): Promise<void> {
  const sent = new Set(
    endpointDeliveries.flatMap(({ url, event }) => {
      const group = (event.data as { group?: { id?: unknown } }).group;
      return typeof group?.id === 'string' ? [sameTarget(url, group.id, event.type)] : [];
    }),
  );
  const rows = alerts.filter(
    ({ rule, alert }) =>
      rule.hook_id !== null &&
      rule.hook_state !== null &&
      !(
        rule.hook_url !== null &&
        alert.trigger !== 'spiking' &&
        sent.has(sameTarget(rule.hook_url, alert.group.id, `error.group.${alert.trigger}`))
      ),
  );
  if (!rows.length) return;
  await tx
    .insertInto('webhook_deliveries')
    .values(
      rows.map(({ rule, alert }) => {
        const enabled = rule.hook_state === 'enabled';
        return {
          id: newId('webhookDelivery'),
          hook_id: rule.hook_id!,
          message_id: null,
          event: ALERT_EVENT[alert.trigger],
          body: JSON.stringify(errorAlertPayload(alert)),
          // A disabled hook is still owed the alert: held until it is re-enabled.
          status: enabled ? ('pending' as const) : ('held' as const),
          next_attempt_at: enabled ? sql<Date>`now()` : null,
        };
      }),
    )
    .execute();
  const woken = new Set<string>();
  for (const { rule } of rows) {
    if (rule.hook_state !== 'enabled' || woken.has(rule.hook_id!)) continue;
    woken.add(rule.hook_id!);
    events.push({
      type: 'error_alert_owed',
      payload: { hookId: rule.hook_id!, workspaceId: rule.workspace_id },
    });
  }
}

/**
 * The `error-alerts-held` job, at the end of an hour that went over the cap: one line saying how
 * many alerts were held, in the rule's room (now), once (held_posted flips in the same commit).
 * Returns the number held, or 0 when there is nothing (more) to post.
 */
export async function postHeldAlertsLine(
  db: Db,
  /** A job queued before issue 43 names no rule: the workspace's first. */
  input: {
    workspaceId: string;
    ruleId?: string | undefined;
    windowStart: string;
    errorsUrl: string;
  },
  message: (held: number, errorsUrl: string) => string,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rule = await trx
      .selectFrom('error_alert_rules')
      .select(['id', 'room_id'])
      .where('workspace_id', '=', input.workspaceId)
      .$if(input.ruleId !== undefined, (qb) => qb.where('id', '=', input.ruleId!))
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst();
    if (!rule) return 0;
    const window = await trx
      .updateTable('error_alert_windows')
      .set({ held_posted: true })
      .where('rule_id', '=', rule.id)
      .where('window_start', '=', new Date(input.windowStart))
      .where('held_posted', '=', false)
      .where('alerts', '>', ROOM_ALERTS_PER_HOUR)
      .returning('alerts')
      .executeTakeFirst();
    if (!window) return 0;
    if (!rule.room_id) return 0;
    const held = window.alerts - ROOM_ALERTS_PER_HOUR;
    await postMessages(trx, [
      {
        roomId: rule.room_id,
        workspaceId: input.workspaceId,
        authorKind: 'system',
        authorRef: 'error-alerts',
        displayName: ERROR_ALERT_SENDER,
        body: message(held, input.errorsUrl),
        metadata: { errorAlertsHeld: held },
      },
    ]);
    return held;
  });
}
