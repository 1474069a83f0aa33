import { sql } from 'kysely';
import { AppError, fieldErrors, isId, newId, type SecretBox, type SsrfSettings } from '@ferry/core';
import {
  ERROR_GROUP_ENVIRONMENTS_MAX,
  type Db,
  type ErrorAlertRule,
  type ErrorAlertTrigger,
  type OutgoingWebhook,
} from '@ferry/db';
import { z } from 'zod';
import {
  generateSigningSecret,
  revealSigningSecret,
  targetUrlProblem,
  type ErrorAlertEvent,
} from '../hooks/outgoing-hooks.js';
import { OCCURRENCE_LIMITS } from './occurrence.js';

/**
 * Error alert rules (issue 26 part 1): one row per workspace saying which of the three triggers
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

/** The rule as the API answers it (and the Settings page shows it). */
export interface ErrorAlertRulesJson {
  room_id: string | null;
  new_group: boolean;
  regression: boolean;
  frequency: { count: number; minutes: number } | null;
  url: string | null;
  environments: string[] | null;
  /** The URL's delivery state: 'enabled', or 'disabled' after 20 failures in a row (or a 410). */
  url_state: OutgoingWebhook['state'] | null;
  updated_at: string | null;
}

export interface ErrorAlertSettings {
  rule: ErrorAlertRule | undefined;
  hook: OutgoingWebhook | undefined;
}

/** The workspace's rule and its URL's hook (either may be missing: no rule saved yet). */
export async function findErrorAlertSettings(
  db: Db,
  workspaceId: string,
): Promise<ErrorAlertSettings> {
  const rule = await db
    .selectFrom('error_alert_rules')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  const hook = rule?.hook_id
    ? await db
        .selectFrom('outgoing_webhooks')
        .selectAll()
        .where('id', '=', rule.hook_id)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst()
    : undefined;
  return { rule, hook };
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
 * Parses a body into the rule, or throws a 422 naming the bad field: its shape (zod), a room the
 * workspace does not have (or a direct message: alerts go to shared rooms), a URL that is not
 * http(s) or, under the usual SSRF rules, reaches a private or loopback address.
 */
export async function validateErrorAlertRules(
  db: Db,
  workspaceId: string,
  body: unknown,
  ssrf: SsrfSettings,
): Promise<ErrorAlertRulesInput> {
  const parsed = errorAlertRulesSchema.safeParse(body);
  if (!parsed.success) throw invalid(fieldErrors(parsed.error));
  const input = parsed.data;
  // The shape is right: the room and the URL are checked together, both named when both are bad.
  const problems: Record<string, string> = {};
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
    const problem = await targetUrlProblem(input.url, ssrf);
    if (problem) problems.url = problem;
  }
  if (Object.keys(problems).length) throw invalid(problems);
  if (input.environments) input.environments = [...new Set(input.environments)].sort();
  return input;
}

export interface SavedErrorAlertRules extends ErrorAlertSettings {
  /** The URL hook's signing secret, when the rule has a URL (receivers verify with it). */
  secret: string | null;
  /** Held deliveries made pending again (the hook was disabled): its drain should be woken. */
  releasedDeliveries: number;
}

/**
 * Saves the workspace's rule (validated by validateErrorAlertRules) in one transaction: the row,
 * and its URL's hook created (fresh signing secret), re-pointed (same secret) or deleted with its
 * deliveries when the URL is cleared.
 */
export async function saveErrorAlertRules(
  db: Db,
  box: SecretBox,
  workspaceId: string,
  input: ErrorAlertRulesInput,
  updatedBy: string | null,
): Promise<SavedErrorAlertRules> {
  return db.transaction().execute(async (trx) => {
    // Locks the rule (or takes the insert's place) so two saves at once do not make two hooks.
    await trx
      .insertInto('error_alert_rules')
      .values({ workspace_id: workspaceId, new_group: false, regression: false })
      .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ updated_at: sql`now()` }))
      .execute();
    const current = await trx
      .selectFrom('error_alert_rules')
      .select('hook_id')
      .where('workspace_id', '=', workspaceId)
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
        room_id: input.room_id,
        new_group: input.new_group,
        regression: input.regression,
        frequency_count: input.frequency?.count ?? null,
        frequency_minutes: input.frequency?.minutes ?? null,
        environments: input.environments,
        hook_id: hookId,
        updated_by: updatedBy,
        updated_at: sql<Date>`now()`,
      })
      .where('workspace_id', '=', workspaceId)
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
  });
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
export interface ErrorAlertPayload {
  type: ErrorAlertEvent;
  timestamp: string;
  data: {
    workspace_id: string;
    trigger: ErrorAlertTrigger;
    group: ErrorAlert['group'] & { url: string };
  };
}

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
