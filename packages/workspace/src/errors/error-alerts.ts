import { sql } from 'kysely';
import { AppError, fieldErrors, isId, newId, type SecretBox, type SsrfSettings } from '@ferry/core';
import {
  ERROR_GROUP_ENVIRONMENTS_MAX,
  ERROR_SOURCES,
  type Db,
  type ErrorAlertRule,
  type ErrorAlertTrigger,
  type OutgoingWebhook,
} from '@ferry/db';
import { z } from 'zod';
import {
  generateSigningSecret,
  revealSigningSecret,
  checkedTargetUrl,
  type ErrorAlertEvent,
} from '../hooks/outgoing-hooks.js';
import { OCCURRENCE_LIMITS } from './occurrence.js';
import { activeSeatNames } from '../members/members.js';
import type {
  ErrorAlertRuleJson,
  ErrorAlertRulesJson,
  errorAlertPayloadSchema,
} from './alert-schemas.js';

/**
 * Error alert rules (issue 26 part 1; several per workspace since issue 43): each row says which of the three triggers
 * alert (a new group, a regression, a frequency spike), into which room, for which environments,
 * and which URL gets a signed POST. The URL is an outgoing hook owned by the rule (owner
 * 'error_alerts', no room), so it is sent by the same delivery engine as room hooks. Detection is
 * in error-alert-raise.ts, called from the error writer's transaction.
 */

/** A rule names environments as occurrences store them. */
export const ENVIRONMENT_NAME_MAX = OCCURRENCE_LIMITS.environment;

const environmentSchema = z
  .string('Each environment must be a name.')
  .trim()
  .min(1, 'An environment name cannot be empty.')
  .max(ENVIRONMENT_NAME_MAX, `At most ${ENVIRONMENT_NAME_MAX} characters per environment.`);

/** PUT /api/v1/error-alerts and the Settings form: the whole rule (a missing field is off). */
export const errorAlertRulesSchema = z.object({
  room_id: z.string('Must be a room id or null.').trim().nullable().default(null),
  new_group: z.boolean('Must be true or false.').default(false),
  regression: z.boolean('Must be true or false.').default(false),
  frequency: z
    .object(
      {
        count: z
          .int('Must be a whole number of occurrences.')
          .min(2, 'Must be at least 2 occurrences.')
          .max(1_000_000, 'Must be at most 1,000,000 occurrences.'),
        minutes: z
          .int('Must be a whole number of minutes.')
          .min(1, 'Must be at least 1 minute.')
          .max(1_440, 'Must be at most 1,440 minutes (a day).'),
      },
      'Must be {"count": n, "minutes": m} or null.',
    )
    .nullable()
    .default(null),
  url: z.string('Must be a URL or null.').trim().nullable().default(null),
  environments: z
    .array(environmentSchema, 'Must be a list of environment names or null.')
    .min(1, 'List at least one environment, or send null for all of them.')
    .max(ERROR_GROUP_ENVIRONMENTS_MAX, `At most ${ERROR_GROUP_ENVIRONMENTS_MAX} environments.`)
    .nullable()
    .default(null),
});

export type ErrorAlertRulesInput = z.output<typeof errorAlertRulesSchema>;

const TAG_FILTER = /^[^=\s]{1,64}=.{1,200}$/s;

const nameList = (what: string, max: number) =>
  z
    .array(
      z
        .string(`Each ${what} must be text.`)
        .trim()
        .min(1, `A ${what} cannot be empty.`)
        .max(max, `At most ${max} characters per ${what}.`),
      `Must be a list of ${what}s or null.`,
    )
    .min(1, `List at least one ${what}, or send null for all of them.`)
    .max(50, `At most 50 ${what}s.`)
    .nullable()
    .default(null);

/**
 * One rule of several (issue 43): the single rule's fields (when, where, which environments),
 * with a name, more filters and the "hand to the agent" action. `/api/v1/error-alerts/rules`.
 */
export const errorAlertRuleSchema = errorAlertRulesSchema.extend({
  name: z
    .string('Must be a name.')
    .trim()
    .min(1, 'Give the rule a name.')
    .max(80, 'At most 80 characters.')
    .default('Error alerts'),
  sources: z
    .array(z.enum(ERROR_SOURCES, `Each source is one of ${ERROR_SOURCES.join(', ')}.`), {
      error: 'Must be a list of sources or null.',
    })
    .min(1, 'List at least one source, or send null for all of them.')
    .nullable()
    .default(null),
  levels: nameList('level', 20).transform(
    (levels) => levels?.map((level) => level.toLowerCase()) ?? null,
  ),
  releases: nameList('release', 200),
  tags: z
    .array(
      z
        .string('Each tag filter must be text.')
        .trim()
        .regex(
          TAG_FILTER,
          'Each tag filter is key=value, e.g. browser=Chrome or feature=checkout-*.',
        ),
      'Must be a list of key=value tag filters or null.',
    )
    .min(1, 'List at least one tag filter, or send null for none.')
    .max(20, 'At most 20 tag filters.')
    .nullable()
    .default(null),
  notify_member_ids: z
    .array(z.string('Each member must be a member id.'), 'Must be a list of member ids or null.')
    .min(1, 'List at least one member, or send null for none.')
    .max(50, 'At most 50 members.')
    .nullable()
    .default(null),
  hand_to_agent: z.boolean('Must be true or false.').default(false),
});

export type ErrorAlertRuleInput = z.output<typeof errorAlertRuleSchema>;

export interface ErrorAlertSettings {
  rule: ErrorAlertRule | undefined;
  hook: OutgoingWebhook | undefined;
}

export interface ErrorAlertRuleSettings extends ErrorAlertSettings {
  rule: ErrorAlertRule;
}

/** A workspace's rules, oldest first (the first is the one `/api/v1/error-alerts` speaks for). */
export async function listErrorAlertRules(
  db: Db,
  workspaceId: string,
): Promise<ErrorAlertRuleSettings[]> {
  const rules = await db
    .selectFrom('error_alert_rules')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const hookIds = rules.flatMap((rule) => (rule.hook_id ? [rule.hook_id] : []));
  const hooks = hookIds.length
    ? await db
        .selectFrom('outgoing_webhooks')
        .selectAll()
        .where('id', 'in', hookIds)
        .where('workspace_id', '=', workspaceId)
        .execute()
    : [];
  return rules.map((rule) => ({ rule, hook: hooks.find((hook) => hook.id === rule.hook_id) }));
}

/** One rule of the workspace and its URL's hook; undefined when the workspace has no such rule. */
export async function findErrorAlertRule(
  db: Db,
  workspaceId: string,
  ruleId: string,
): Promise<ErrorAlertRuleSettings | undefined> {
  if (!isId(ruleId, 'errorAlertRule')) return undefined;
  const rules = await listErrorAlertRules(db, workspaceId);
  return rules.find(({ rule }) => rule.id === ruleId);
}

/** The workspace's first rule and its URL's hook (either may be missing: no rule saved yet). */
export async function findErrorAlertSettings(
  db: Db,
  workspaceId: string,
): Promise<ErrorAlertSettings> {
  const [first] = await listErrorAlertRules(db, workspaceId);
  return first ?? { rule: undefined, hook: undefined };
}

export function errorAlertRulesJson({ rule, hook }: ErrorAlertSettings): ErrorAlertRulesJson {
  return {
    room_id: rule?.room_id ?? null,
    new_group: rule?.new_group ?? false,
    regression: rule?.regression ?? false,
    frequency:
      rule?.frequency_count != null && rule.frequency_minutes != null
        ? { count: rule.frequency_count, minutes: rule.frequency_minutes }
        : null,
    url: hook?.target_url ?? null,
    environments: rule?.environments ?? null,
    url_state: hook?.state ?? null,
    updated_at: rule?.updated_at.toISOString() ?? null,
  };
}

export function errorAlertRuleJson(settings: ErrorAlertRuleSettings): ErrorAlertRuleJson {
  const { rule } = settings;
  return {
    id: rule.id,
    name: rule.name,
    ...errorAlertRulesJson(settings),
    sources: rule.sources,
    levels: rule.levels,
    releases: rule.releases,
    tags: rule.tags,
    notify_member_ids: rule.notify_member_ids,
    hand_to_agent: rule.hand_to_agent,
    created_at: rule.created_at.toISOString(),
  };
}

/** One 422 naming every bad field, so a client fixes them all in one go. */
function invalid(fields: Record<string, string>): AppError {
  const detail = Object.entries(fields)
    .map(([field, problem]) => `${field}: ${problem}`)
    .join(' ');
  return new AppError('validation_failed', `The error alert rules are not valid. ${detail}`, {
    fields,
  });
}

/**
 * The room, the URL and the spike window of a parsed rule, checked together (every bad one named):
 * a room the workspace does not have (or a direct message: alerts go to shared rooms), a URL that
 * is not http(s) or, under the usual SSRF rules, reaches a private or loopback address, and a
 * spike window other than the workspace's other spike rules' (each group counts its recent
 * occurrences on its own row, over one window a workspace).
 */
async function checkTargets(
  db: Db,
  workspaceId: string,
  ruleId: string | null,
  input: ErrorAlertRulesInput & { notify_member_ids?: string[] | null },
  ssrf: SsrfSettings,
): Promise<void> {
  const problems: Record<string, string> = {};
  if (input.notify_member_ids) {
    const ids = [...new Set(input.notify_member_ids)];
    const seats = await activeSeatNames(db, [workspaceId]);
    const unknown = ids.find((id) => !seats.some((seat) => seat.id === id));
    if (unknown !== undefined) {
      problems.notify_member_ids = `No such member in this workspace: ${unknown.slice(0, 40)}.`;
    } else if (input.room_id === null) {
      problems.notify_member_ids =
        "Members are notified through the rule's room message: choose a room.";
    }
    input.notify_member_ids = ids.sort();
  }
  if (input.room_id !== null) {
    const room = isId(input.room_id, 'room')
      ? await db
          .selectFrom('rooms')
          .select(['id', 'kind'])
          .where('id', '=', input.room_id)
          .where('workspace_id', '=', workspaceId)
          .executeTakeFirst()
      : undefined;
    if (!room) problems.room_id = 'No such room in this workspace.';
    else if (room.kind === 'dm') {
      problems.room_id = 'Alerts go to a shared room, not a direct message.';
    }
  }
  if (input.url !== null) {
    const target = await checkedTargetUrl(input.url, ssrf);
    // Stored as checked, in its normal form (`HTTPS://Hooks.Example:443/x` is `https://hooks.example/x`).
    if (target.ok) input.url = target.url;
    else problems.url = target.problem;
  }
  if (input.frequency) {
    const other = await db
      .selectFrom('error_alert_rules')
      .select(['name', 'frequency_minutes'])
      .where('workspace_id', '=', workspaceId)
      .where('frequency_minutes', 'is not', null)
      .where('frequency_minutes', '<>', input.frequency.minutes)
      .$if(ruleId !== null, (qb) => qb.where('id', '<>', ruleId!))
      .executeTakeFirst();
    if (other) {
      problems['frequency.minutes'] =
        `Spike rules of a workspace share one window: "${other.name}" counts over ${other.frequency_minutes} minutes.`;
    }
  }
  if (Object.keys(problems).length) throw invalid(problems);
  if (input.environments) input.environments = [...new Set(input.environments)].sort();
}

/**
 * Parses a PUT /api/v1/error-alerts body into the single rule's fields (the workspace's first
 * rule), or throws a 422 naming the bad field (see checkTargets).
 */
export async function validateErrorAlertRules(
  db: Db,
  workspaceId: string,
  body: unknown,
  ssrf: SsrfSettings,
): Promise<ErrorAlertRulesInput> {
  const parsed = errorAlertRulesSchema.safeParse(body);
  if (!parsed.success) throw invalid(fieldErrors(parsed.error));
  const first = await findErrorAlertSettings(db, workspaceId);
  await checkTargets(db, workspaceId, first.rule?.id ?? null, parsed.data, ssrf);
  return parsed.data;
}

/** Parses one rule of several (`ruleId` null: a new one), or throws a 422 naming the bad field. */
export async function validateErrorAlertRule(
  db: Db,
  workspaceId: string,
  ruleId: string | null,
  body: unknown,
  ssrf: SsrfSettings,
): Promise<ErrorAlertRuleInput> {
  const parsed = errorAlertRuleSchema.safeParse(body);
  if (!parsed.success) throw invalid(fieldErrors(parsed.error));
  await checkTargets(db, workspaceId, ruleId, parsed.data, ssrf);
  return parsed.data;
}

export interface SavedErrorAlertRules extends ErrorAlertRuleSettings {
  /** The URL hook's signing secret, when the rule has a URL (receivers verify with it). */
  secret: string | null;
  /** Held deliveries made pending again (the hook was disabled): its drain should be woken. */
  releasedDeliveries: number;
}

/**
 * Saves the workspace's first rule from PUT /api/v1/error-alerts (validateErrorAlertRules): its
 * fields as sent, and what that API does not know (name, other filters, hand to the agent) as
 * they were. Creates the first rule when there is none.
 */
export async function saveErrorAlertRules(
  db: Db,
  box: SecretBox,
  workspaceId: string,
  input: ErrorAlertRulesInput,
  updatedBy: string | null,
): Promise<SavedErrorAlertRules> {
  return db.transaction().execute(async (trx) => {
    // One first rule even when two of these run at once: the workspace row is the lock.
    await trx
      .selectFrom('workspaces')
      .select('id')
      .where('id', '=', workspaceId)
      .forUpdate()
      .execute();
    const { rule } = await findErrorAlertSettings(trx, workspaceId);
    const kept: Omit<ErrorAlertRuleInput, keyof ErrorAlertRulesInput> = {
      name: rule?.name ?? 'Error alerts',
      sources: rule?.sources ?? null,
      levels: rule?.levels ?? null,
      releases: rule?.releases ?? null,
      tags: rule?.tags ?? null,
      notify_member_ids: rule?.notify_member_ids ?? null,
      hand_to_agent: rule?.hand_to_agent ?? false,
    };
    return writeRule(trx, box, workspaceId, rule?.id ?? null, { ...input, ...kept }, updatedBy);
  });
}

/**
 * Saves one rule (validated by validateErrorAlertRule): a new one when `ruleId` is null.
 * Undefined when the workspace has no such rule (deleted meanwhile).
 */
export async function saveErrorAlertRule(
  db: Db,
  box: SecretBox,
  workspaceId: string,
  ruleId: string | null,
  input: ErrorAlertRuleInput,
  updatedBy: string | null,
): Promise<SavedErrorAlertRules | undefined> {
  if (ruleId !== null && !isId(ruleId, 'errorAlertRule')) return undefined;
  return db.transaction().execute(async (trx) => {
    if (ruleId !== null) {
      const exists = await trx
        .selectFrom('error_alert_rules')
        .select('id')
        .where('id', '=', ruleId)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      if (!exists) return undefined;
    }
    return writeRule(trx, box, workspaceId, ruleId, input, updatedBy);
  });
}

/** Deletes a rule and its URL's hook (with its deliveries); false when there is no such rule. */
export async function deleteErrorAlertRule(
  db: Db,
  workspaceId: string,
  ruleId: string,
): Promise<boolean> {
  if (!isId(ruleId, 'errorAlertRule')) return false;
  return db.transaction().execute(async (trx) => {
    const rule = await trx
      .deleteFrom('error_alert_rules')
      .where('id', '=', ruleId)
      .where('workspace_id', '=', workspaceId)
      .returning('hook_id')
      .executeTakeFirst();
    if (!rule) return false;
    if (rule.hook_id) {
      await trx.deleteFrom('outgoing_webhooks').where('id', '=', rule.hook_id).execute();
    }
    return true;
  });
}

/**
 * Writes a rule in the caller's transaction: the row (inserted when `ruleId` is null), and its
 * URL's hook created (fresh signing secret), re-pointed (same secret) or deleted with its
 * deliveries when the URL is cleared.
 */
async function writeRule(
  trx: Db,
  box: SecretBox,
  workspaceId: string,
  ruleId: string | null,
  input: ErrorAlertRuleInput,
  updatedBy: string | null,
): Promise<SavedErrorAlertRules> {
  let id = ruleId;
  if (id === null) {
    id = newId('errorAlertRule');
    await trx
      .insertInto('error_alert_rules')
      .values({ id, workspace_id: workspaceId, new_group: false, regression: false })
      .execute();
  }
  // Locks the rule so two saves at once do not make two hooks.
  const current = await trx
    .selectFrom('error_alert_rules')
    .select('hook_id')
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  let hookId = current.hook_id;
  let releasedDeliveries = 0;
  if (input.url === null && hookId) {
    await trx.deleteFrom('outgoing_webhooks').where('id', '=', hookId).execute();
    hookId = null;
  } else if (input.url !== null && hookId) {
    // Saving is also how the owner says the endpoint is fixed (SPEC's re-enable): a hook that
    // webhooks-out disabled is enabled again and what it was owed goes out, in order.
    const previous = await trx
      .selectFrom('outgoing_webhooks')
      .select('state')
      .where('id', '=', hookId)
      .forUpdate()
      .executeTakeFirst();
    await trx
      .updateTable('outgoing_webhooks')
      .set({
        target_url: input.url,
        state: 'enabled',
        consecutive_failures: 0,
        disabled_reason: null,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', hookId)
      .execute();
    if (previous?.state === 'disabled') {
      const released = await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', attempts: 0, next_attempt_at: sql<Date>`now()` })
        .where('hook_id', '=', hookId)
        .where('status', '=', 'held')
        .executeTakeFirst();
      releasedDeliveries = Number(released.numUpdatedRows);
    }
  } else if (input.url !== null) {
    hookId = newId('outgoingWebhook');
    await trx
      .insertInto('outgoing_webhooks')
      .values({
        id: hookId,
        workspace_id: workspaceId,
        room_id: null,
        owner: 'error_alerts',
        target_url: input.url,
        secret_sealed: box.encrypt(generateSigningSecret()),
        created_by: updatedBy,
      })
      .execute();
  }
  const rule = await trx
    .updateTable('error_alert_rules')
    .set({
      name: input.name,
      room_id: input.room_id,
      new_group: input.new_group,
      regression: input.regression,
      frequency_count: input.frequency?.count ?? null,
      frequency_minutes: input.frequency?.minutes ?? null,
      environments: input.environments,
      sources: input.sources,
      levels: input.levels,
      releases: input.releases,
      tags: input.tags,
      notify_member_ids: input.notify_member_ids,
      hand_to_agent: input.hand_to_agent,
      hook_id: hookId,
      updated_by: updatedBy,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const hook = hookId
    ? await trx
        .selectFrom('outgoing_webhooks')
        .selectAll()
        .where('id', '=', hookId)
        .executeTakeFirstOrThrow()
    : undefined;
  return {
    rule,
    hook,
    secret: hook ? revealSigningSecret(box, hook) : null,
    releasedDeliveries,
  };
}

// ---- What an alert says -------------------------------------------------------------------

/** The room message's sender: not a member, a system author with this name. */
export const ERROR_ALERT_SENDER = 'Errors';

export const ALERT_EVENT: Record<ErrorAlertTrigger, ErrorAlertEvent> = {
  created: 'error_group.created',
  regressed: 'error_group.regressed',
  spiking: 'error_group.spiking',
};

/** What one alert is about: the group as the writer just left it. */
export interface ErrorAlert {
  workspaceId: string;
  trigger: ErrorAlertTrigger;
  group: {
    id: string;
    error_class: string;
    latest_message: string;
    culprit: string | null;
    environment: string | null;
    occurrence_count: number;
    first_seen_at: string;
    last_seen_at: string;
  };
  /** The group's page (absolute). */
  url: string;
  /** The spike's rule, for its title. */
  frequency?: { count: number; minutes: number } | null;
}

/** The body of every `error_group.*` delivery (Standard Webhooks: `type`, `timestamp`, `data`). */
export type ErrorAlertPayload = z.infer<typeof errorAlertPayloadSchema>;

export function errorAlertPayload(alert: ErrorAlert, now = new Date()): ErrorAlertPayload {
  return {
    type: ALERT_EVENT[alert.trigger],
    timestamp: now.toISOString(),
    data: {
      workspace_id: alert.workspaceId,
      trigger: alert.trigger,
      group: { ...alert.group, url: alert.url },
    },
  };
}

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** Markdown code span that survives backticks in the text. */
const code = (text: string): string => {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${text.replace(/`+$/, '$& ')}${fence}`;
};

/**
 * The room message: what happened, class and latest message, culprit, environment, count, and a
 * link to the group page. Markdown (rendered, escaped, at read time like every message).
 */
export function errorAlertMessage(alert: ErrorAlert): string {
  const { group } = alert;
  const title =
    alert.trigger === 'created'
      ? 'New error'
      : alert.trigger === 'regressed'
        ? 'Regression: a resolved error is back'
        : `Spike: over ${alert.frequency?.count ?? '?'} in ${alert.frequency?.minutes ?? '?'} min`;
  const count = group.occurrence_count;
  const facts = [
    group.culprit ? `at ${code(oneLine(group.culprit, 200))}` : null,
    group.environment ? `in ${code(oneLine(group.environment, 40))}` : 'no environment',
    `${count.toLocaleString('en-US')} ${count === 1 ? 'occurrence' : 'occurrences'}`,
  ].filter((fact) => fact !== null);
  return [
    `**${title}**: ${code(oneLine(group.error_class, 200))} ${oneLine(group.latest_message, 300) || '(no message)'}`,
    facts.join(' · '),
    `[Open the error group](${alert.url})`,
  ].join('\n');
}

/** The "N more alerts held" line posted once a workspace's hour of alerts ends over the cap. */
export function heldAlertsMessage(held: number, errorsUrl: string): string {
  return `${held.toLocaleString('en-US')} more ${held === 1 ? 'alert' : 'alerts'} held: see the [Errors page](${errorsUrl})`;
}
