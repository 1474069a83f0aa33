import { sql } from 'kysely';
import { z } from 'zod';
import { AppError, isId, newId, type SecretBox, type SsrfSettings } from '@ferry/core';
import type { Db, EventEndpoint, OutgoingWebhook } from '@ferry/db';
import {
  generateSigningSecret,
  holdPendingDeliveries,
  checkedTargetUrl,
  targetUrlSchema,
} from '../hooks/outgoing-hooks.js';
import { EVENT_TYPES, isEventType, type EventType } from './catalog.js';

/**
 * Workspace event webhook endpoints (issue 44 part 2), as admins manage them: an outgoing hook
 * owned by the workspace (so webhooks-out sends to it exactly as to room hooks: signing, order,
 * retries, failure counting, auto-disable, delivery log, "Send again") plus its subscription in
 * event_endpoints. Every function here is scoped to one workspace: another workspace's id is
 * "not found".
 */

export const DESCRIPTION_MAX = 200;
export const FILTER_ITEMS_MAX = 50;
/** The overlap a rotation gives when none is asked for (DESIGN.md: 24 h). */
export const DEFAULT_OVERLAP_HOURS = 24;
export const OVERLAP_HOURS_MAX = 168;

const ENVIRONMENT_MAX = 40;

/**
 * Plain text: no markup characters, no control characters, no `javascript:` (shown in pages and
 * sent in JSON; a receiver's own page may not escape it as Ferry does, and a link-looking
 * `javascript:` in a description is never wanted).
 */
const plainText = (max: number, what: string) =>
  z
    .string()
    .trim()
    .max(max, `At most ${max} characters.`)
    .refine(
      (value) => !/[<>\p{Cc}]/u.test(value),
      `${what} cannot contain <, > or control characters.`,
    )
    .refine((value) => !/javascript\s*:/i.test(value), `${what} cannot contain javascript:.`);

export const endpointInputSchema = z.object({
  url: targetUrlSchema,
  description: plainText(DESCRIPTION_MAX, 'The description').default(''),
  event_types: z
    .array(z.string())
    .min(1, 'Pick at least one event type.')
    .max(EVENT_TYPES.length)
    .refine((types) => types.every(isEventType), 'Pick event types from the catalog.')
    .transform((types) => [...new Set(types)] as EventType[]),
  environments: z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .max(ENVIRONMENT_MAX, `An environment has at most ${ENVIRONMENT_MAX} characters.`)
        .regex(/^[\w.-]+$/, 'Environments are letters, digits, dots, dashes and underscores.'),
    )
    .max(FILTER_ITEMS_MAX)
    .nullable()
    .default(null),
  room_ids: z
    .array(z.string().refine((id) => isId(id, 'room'), 'Pick rooms of this workspace.'))
    .max(FILTER_ITEMS_MAX)
    .nullable()
    .default(null),
  max_per_second: z
    .number('A whole number of deliveries a second, 1 to 1000.')
    .int('A whole number of deliveries a second, 1 to 1000.')
    .min(1, 'At least 1 a second.')
    .max(1000, 'At most 1000 a second.')
    .nullable()
    .default(null),
});
export type EndpointInput = z.output<typeof endpointInputSchema>;

/** An endpoint as pages and the API show it (never its secret); issue 46: the type and the doc. */
export const endpointJsonSchema = z
  .object({
    id: z.string().meta({ example: 'owh_01m95vcs448p8d8nkpkmbpan9e' }),
    url: z.string().meta({ example: 'https://hooks.example.com/ferry' }),
    description: z.string(),
    event_types: z.array(z.string()).meta({ description: 'Types from GET /api/v1/event-types.' }),
    environments: z.array(z.string()).nullable().meta({ description: 'Null: every environment.' }),
    room_ids: z.array(z.string()).nullable().meta({ description: 'Null: every room.' }),
    max_per_second: z.number().int().nullable().meta({ description: 'Null: no limit of its own.' }),
    state: z.enum(['enabled', 'disabled']).meta({
      description: '`disabled` after 20 failed deliveries in a row (or a 410).',
    }),
    disabled_reason: z.string().nullable(),
    consecutive_failures: z.number().int().min(0),
    previous_secret_expires_at: z.iso.datetime({ offset: true }).nullable().meta({
      description:
        'Until when the previous secret still signs beside the new one (a rotation’s overlap).',
    }),
    created_at: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'EventWebhookEndpoint' });
export type EndpointJson = z.infer<typeof endpointJsonSchema>;

export type Endpoint = OutgoingWebhook &
  Pick<EventEndpoint, 'description' | 'event_types' | 'environments' | 'room_ids'>;

export function endpointJson(endpoint: Endpoint, now = new Date()): EndpointJson {
  const overlap =
    endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > now
      ? endpoint.previous_secret_expires_at.toISOString()
      : null;
  return {
    id: endpoint.id,
    url: endpoint.target_url,
    description: endpoint.description,
    event_types: endpoint.event_types,
    environments: endpoint.environments,
    room_ids: endpoint.room_ids,
    max_per_second: endpoint.max_per_second,
    state: endpoint.state,
    disabled_reason: endpoint.disabled_reason,
    consecutive_failures: endpoint.consecutive_failures,
    previous_secret_expires_at: overlap,
    created_at: endpoint.created_at.toISOString(),
  };
}

function fail(fields: Record<string, string>): never {
  const first = Object.values(fields)[0] ?? 'Check the form.';
  throw new AppError('validation_failed', `The endpoint is not valid: ${first}`, { fields });
}

/**
 * Validates a posted endpoint (form or API): its shape, the URL's SSRF rules (every resolved
 * address public unless ALLOW_PRIVATE_WEBHOOK_TARGETS), and that chosen rooms are the
 * workspace's. Throws a 422 naming each bad field.
 */
export async function validateEndpoint(
  db: Db,
  workspaceId: string,
  raw: unknown,
  ssrf: SsrfSettings,
): Promise<EndpointInput> {
  const parsed = endpointInputSchema.safeParse(raw);
  if (!parsed.success) {
    const fields: Record<string, string> = {};
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? 'body');
      fields[key] ??= issue.message;
    }
    fail(fields);
  }
  const input = parsed.data;
  const target = await checkedTargetUrl(input.url, ssrf);
  if (!target.ok) fail({ url: target.problem });
  // Stored as checked, in its normal form (the schema already wrote it so; this says it is so).
  input.url = target.url;
  if (input.room_ids?.length) {
    const rooms = await db
      .selectFrom('rooms')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', input.room_ids)
      .where('kind', '<>', 'dm')
      .execute();
    if (rooms.length !== new Set(input.room_ids).size) {
      fail({ room_ids: 'Pick rooms of this workspace (not direct messages).' });
    }
  }
  if (input.event_types.includes('message.created') && !input.room_ids?.length) {
    fail({ room_ids: 'message.created needs the rooms whose messages it sends.' });
  }
  return input;
}

function endpoints(db: Db) {
  return db
    .selectFrom('outgoing_webhooks as h')
    .innerJoin('event_endpoints as e', 'e.hook_id', 'h.id')
    .selectAll('h')
    .select(['e.description', 'e.event_types', 'e.environments', 'e.room_ids']);
}

export async function listEndpoints(db: Db, workspaceId: string): Promise<Endpoint[]> {
  return endpoints(db)
    .where('e.workspace_id', '=', workspaceId)
    .orderBy('h.created_at')
    .orderBy('h.id')
    .execute();
}

export async function findEndpoint(
  db: Db,
  workspaceId: string,
  endpointId: string,
): Promise<Endpoint | undefined> {
  if (!isId(endpointId, 'outgoingWebhook')) return undefined;
  return endpoints(db)
    .where('e.workspace_id', '=', workspaceId)
    .where('h.id', '=', endpointId)
    .executeTakeFirst();
}

/** An endpoint or a 404 naming it. */
export async function requireEndpoint(db: Db, workspaceId: string, endpointId: string) {
  const found = await findEndpoint(db, workspaceId, endpointId);
  if (!found) throw new AppError('not_found', 'No such event webhook endpoint in this workspace.');
  return found;
}

/** Creates an enabled endpoint with a fresh signing secret; returns the raw secret once. */
export async function createEndpoint(
  db: Db,
  box: SecretBox,
  workspaceId: string,
  input: EndpointInput,
  createdBy: string | null,
): Promise<{ endpoint: Endpoint; secret: string }> {
  const secret = generateSigningSecret();
  const id = await db.transaction().execute(async (trx) => {
    const hook = await trx
      .insertInto('outgoing_webhooks')
      .values({
        id: newId('outgoingWebhook'),
        workspace_id: workspaceId,
        room_id: null,
        owner: 'event_endpoint',
        target_url: input.url,
        secret_sealed: box.encrypt(secret),
        max_per_second: input.max_per_second,
        created_by: createdBy,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('event_endpoints')
      .values({
        hook_id: hook.id,
        workspace_id: workspaceId,
        description: input.description,
        event_types: input.event_types,
        environments: input.environments,
        room_ids: input.room_ids,
      })
      .execute();
    return hook.id;
  });
  return { endpoint: (await findEndpoint(db, workspaceId, id))!, secret };
}

/** Saves new settings; deliveries already owed keep going to the URL they were owed to now. */
export async function updateEndpoint(
  db: Db,
  workspaceId: string,
  endpointId: string,
  input: EndpointInput,
): Promise<Endpoint> {
  await requireEndpoint(db, workspaceId, endpointId);
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('outgoing_webhooks')
      .set({
        target_url: input.url,
        max_per_second: input.max_per_second,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', endpointId)
      .where('workspace_id', '=', workspaceId)
      .execute();
    await trx
      .updateTable('event_endpoints')
      .set({
        description: input.description,
        event_types: input.event_types,
        environments: input.environments,
        room_ids: input.room_ids,
      })
      .where('hook_id', '=', endpointId)
      .execute();
  });
  return requireEndpoint(db, workspaceId, endpointId);
}

/** Deletes the endpoint with its deliveries and their attempts (foreign keys cascade). */
export async function deleteEndpoint(
  db: Db,
  workspaceId: string,
  endpointId: string,
): Promise<boolean> {
  if (!isId(endpointId, 'outgoingWebhook')) return false;
  const deleted = await db
    .deleteFrom('outgoing_webhooks')
    .where('id', '=', endpointId)
    .where('workspace_id', '=', workspaceId)
    .where('owner', '=', 'event_endpoint')
    .executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/**
 * Enable (held deliveries pending again, with fresh tries, in stream order) or disable (pending
 * ones held), as room hooks do. Returns how many deliveries moved.
 */
export async function setEndpointEnabled(
  db: Db,
  workspaceId: string,
  endpointId: string,
  enabled: boolean,
  reason: string,
): Promise<number> {
  await requireEndpoint(db, workspaceId, endpointId);
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('outgoing_webhooks')
      .set({
        state: enabled ? 'enabled' : 'disabled',
        disabled_reason: enabled ? null : reason,
        ...(enabled ? { consecutive_failures: 0 } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', endpointId)
      .where('workspace_id', '=', workspaceId)
      .where('state', '=', enabled ? 'disabled' : 'enabled')
      .executeTakeFirst();
    if (!updated.numUpdatedRows) return 0;
    if (!enabled) return holdPendingDeliveries(trx, endpointId);
    const released = await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: sql<Date>`now()` })
      .where('hook_id', '=', endpointId)
      .where('status', '=', 'held')
      .executeTakeFirst();
    return Number(released.numUpdatedRows);
  });
}

/**
 * A new signing secret; the current one keeps signing beside it for `overlapHours` (0: stops at
 * once), so both `v1,` signatures travel in webhook-signature meanwhile (Standard Webhooks allows
 * several) and receivers switch without losing a delivery. Returns the new secret.
 */
export async function rotateEndpointSecret(
  db: Db,
  box: SecretBox,
  workspaceId: string,
  endpointId: string,
  overlapHours: number = DEFAULT_OVERLAP_HOURS,
): Promise<string> {
  if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > OVERLAP_HOURS_MAX) {
    fail({ overlap_hours: `A whole number of hours, 0 to ${OVERLAP_HOURS_MAX}.` });
  }
  const endpoint = await requireEndpoint(db, workspaceId, endpointId);
  const secret = generateSigningSecret();
  await db
    .updateTable('outgoing_webhooks')
    .set({
      secret_sealed: box.encrypt(secret),
      previous_secret_sealed: overlapHours > 0 ? endpoint.secret_sealed : null,
      previous_secret_expires_at:
        overlapHours > 0 ? sql<Date>`now() + ${overlapHours} * interval '1 hour'` : null,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', endpoint.id)
    .where('workspace_id', '=', workspaceId)
    .execute();
  return secret;
}

/**
 * Recover (Svix's name): every delivery of the endpoint that failed (its tries used up) since
 * `since` goes back into its stream, pending now with a fresh set of tries, sent in the order the
 * events happened, each once, with its own webhook-id. The UPDATE moves a row only from `failed`,
 * so two recovers at once, or one clicked twice, resend nothing twice. Returns how many.
 */
export async function recoverFailedDeliveries(
  db: Db,
  workspaceId: string,
  endpointId: string,
  since: Date,
): Promise<number> {
  if (Number.isNaN(since.getTime())) fail({ since: 'Enter a date and time.' });
  const endpoint = await requireEndpoint(db, workspaceId, endpointId);
  const held = endpoint.state !== 'enabled';
  const recovered = await db
    .updateTable('webhook_deliveries')
    .set({
      // A disabled endpoint keeps them held, sent when it is enabled again.
      status: held ? 'held' : 'pending',
      attempts: 0,
      next_attempt_at: held ? null : sql<Date>`now()`,
    })
    .where('hook_id', '=', endpoint.id)
    .where('status', '=', 'failed')
    .where('event', '<>', 'test')
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(recovered.numUpdatedRows);
}
