import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { checkTargetUrl, isId, newId, type SecretBox, type SsrfSettings } from '@ferry/core';
import type { Db, OutgoingWebhook, WebhookAttempt, WebhookDelivery } from '@ferry/db';
import type { Producer } from '@ferry/queues';
import { z } from 'zod';

/**
 * Outgoing hooks as the web app manages them: create, reveal and rotate the signing secret,
 * re-enable, and ask webhooks-out for sends by hand. Sending itself lives in services/webhooks-out;
 * this side only writes rows and enqueues jobs.
 */

export const OUTGOING_TARGET_MAX = 2_000;
/** The event of a member's message, sent to the hooks of its room. */
export const MESSAGE_CREATED = 'message_created';
/** Error alerts (issue 26), sent to the hook of the workspace's error alert rule. */
export const ERROR_ALERT_EVENTS = [
  'error_group.created',
  'error_group.regressed',
  'error_group.spiking',
] as const;
export type ErrorAlertEvent = (typeof ERROR_ALERT_EVENTS)[number];
/**
 * Every event a hook's stream carries (sent in order, held while the hook is disabled). A test
 * event ('Send test event') is the one delivery outside any stream: never held, never retried.
 */
export const STREAM_EVENTS = [MESSAGE_CREATED, ...ERROR_ALERT_EVENTS] as const;
export const TEST_EVENT = 'test';

/**
 * `<column> <> 'test'`: "this delivery is in its hook's stream", as SQL. Written the same way as
 * the partial index webhook_deliveries_pending_head_idx (migration 0100) so the planner uses it.
 */
export function inStream(column: string) {
  return sql<boolean>`${sql.ref(column)} <> ${sql.lit(TEST_EVENT)}`;
}

/**
 * Holds a hook's pending deliveries of those events (every stream event unless given): what a
 * disable does, by hand or after too many failures (webhooks-out deliveries.ts). Held is owed,
 * not dropped: a re-enable makes them pending again. Returns how many were held.
 */
export async function holdPendingDeliveries(
  db: Db,
  hookId: string,
  events?: readonly string[],
): Promise<number> {
  // Every stream event by default: an event endpoint's stream carries the catalog's types too.
  const held = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'held', next_attempt_at: null })
    .where('hook_id', '=', hookId)
    .where('status', '=', 'pending')
    .where(events ? sql<boolean>`event = any(${[...events]}::text[])` : inStream('event'))
    .executeTakeFirst();
  return Number(held.numUpdatedRows);
}
/** DESIGN.md: the old secret keeps signing beside the new one for 24 h after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export const targetUrlSchema = z
  .string('Enter the URL that should receive the webhooks.')
  .trim()
  .min(1, 'Enter the URL that should receive the webhooks.')
  .max(OUTGOING_TARGET_MAX, `At most ${OUTGOING_TARGET_MAX.toLocaleString('en-US')} characters.`)
  .refine((value) => URL.canParse(value), {
    message: 'Enter a full URL starting with https:// or http://.',
    // The next check parses the URL: stop here when it cannot be parsed.
    abort: true,
  })
  .refine(
    (value) => ['http:', 'https:'].includes(new URL(value).protocol),
    'Only http:// and https:// URLs can receive webhooks.',
  )
  // Stored in its normal form (see checkTargetUrl in @ferry/core): what Node dials, whoever reads it.
  .transform((value) => new URL(value).href)
  .refine(
    (href) => href.length <= OUTGOING_TARGET_MAX,
    `At most ${OUTGOING_TARGET_MAX.toLocaleString('en-US')} characters once written out in full.`,
  );

export const createOutgoingHookSchema = z.object({ target_url: targetUrlSchema });

/**
 * `whsec_<base64 of 24 random bytes>`: the Standard Webhooks secret format, so their libraries take
 * it as is (services/webhooks-out/src/signing.ts says which bytes key which signature).
 */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export type CheckedTargetUrl = { ok: true; url: string } | { ok: false; problem: string };

/**
 * The save-time target check: the URL's shape (schema above), then SSRF (packages/core/ssrf.ts):
 * every address the host resolves to must be public unless ALLOW_PRIVATE_WEBHOOK_TARGETS=true.
 * webhooks-out checks the address it dials again at connect time. Returns the URL to store, in its
 * normal form (`HTTP://Hooks.Example:80\x` is `http://hooks.example/x`), or the problem.
 */
export async function checkedTargetUrl(raw: string, ssrf: SsrfSettings): Promise<CheckedTargetUrl> {
  const parsed = targetUrlSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, problem: parsed.error.issues[0]?.message ?? 'Enter a valid URL.' };
  }
  const checked = await checkTargetUrl(parsed.data, ssrf);
  return checked.ok ? { ok: true, url: checked.url } : { ok: false, problem: checked.message };
}

/**
 * Creates an enabled hook with a fresh signing secret (sealed at rest). Does no SSRF check: pages
 * call targetUrlProblem first; the seed uses it for a local receiver. Returns the raw secret once.
 */
export async function createOutgoingHook(
  db: Db,
  box: SecretBox,
  input: { workspaceId: string; roomId: string; targetUrl: string; createdBy: string | null },
): Promise<{ hook: OutgoingWebhook; secret: string }> {
  const secret = generateSigningSecret();
  const hook = await db
    .insertInto('outgoing_webhooks')
    .values({
      id: newId('outgoingWebhook'),
      workspace_id: input.workspaceId,
      room_id: input.roomId,
      target_url: input.targetUrl.trim(),
      secret_sealed: box.encrypt(secret),
      created_by: input.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { hook, secret };
}

export async function findOutgoingHook(
  db: Db,
  roomId: string,
  hookId: string,
): Promise<OutgoingWebhook | undefined> {
  if (!isId(hookId, 'outgoingWebhook')) return undefined;
  return db
    .selectFrom('outgoing_webhooks')
    .selectAll()
    .where('id', '=', hookId)
    .where('room_id', '=', roomId)
    .executeTakeFirst();
}

export function revealSigningSecret(box: SecretBox, hook: Pick<OutgoingWebhook, 'secret_sealed'>) {
  return box.decrypt(hook.secret_sealed);
}

/**
 * True while the previous secret still signs (within 24 h of the last rotation): the one rule the
 * hook page (which secrets it shows) and webhooks-out (which secrets sign) both follow.
 */
export function previousSecretLive(
  hook: Pick<OutgoingWebhook, 'previous_secret_sealed' | 'previous_secret_expires_at'>,
  now = new Date(),
): hook is typeof hook & { previous_secret_sealed: string; previous_secret_expires_at: Date } {
  return (
    hook.previous_secret_sealed !== null &&
    hook.previous_secret_expires_at !== null &&
    hook.previous_secret_expires_at > now
  );
}

/**
 * A new signing secret; the current one becomes the previous and keeps signing for 24 h, so
 * receivers can switch without losing a delivery. Rotating again inside the overlap drops the
 * oldest secret (only two sign at once).
 */
export async function rotateSigningSecret(
  db: Db,
  box: SecretBox,
  hook: Pick<OutgoingWebhook, 'id' | 'room_id' | 'secret_sealed'>,
): Promise<string> {
  const secret = generateSigningSecret();
  await db
    .updateTable('outgoing_webhooks')
    .set({
      secret_sealed: box.encrypt(secret),
      previous_secret_sealed: hook.secret_sealed,
      previous_secret_expires_at: new Date(Date.now() + ROTATION_OVERLAP_MS),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', hook.id)
    .where('room_id', '=', hook.room_id)
    .execute();
  return secret;
}

/**
 * Re-enable (SPEC.md: the owner fixes the endpoint and re-enables): enabled, failure count 0, and
 * every held delivery pending again with a fresh set of tries. They go out in message order
 * because the hook's stream is ordered by message time (webhooks-out deliveries.ts).
 * Returns the number of deliveries released.
 */
export async function reEnableOutgoingHook(
  db: Db,
  hook: Pick<OutgoingWebhook, 'id' | 'room_id'>,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('outgoing_webhooks')
      .set({
        state: 'enabled',
        consecutive_failures: 0,
        disabled_reason: null,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', hook.id)
      .where('room_id', '=', hook.room_id)
      .executeTakeFirst();
    if (!updated.numUpdatedRows) return 0;
    const released = await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: sql<Date>`now()` })
      .where('hook_id', '=', hook.id)
      .where('status', '=', 'held')
      .executeTakeFirst();
    return Number(released.numUpdatedRows);
  });
}

/**
 * Disable by hand (the hook's page): the hook stops receiving deliveries, exactly as when
 * webhooks-out disables it after 20 failures (services/webhooks-out deliveries.ts): what it is owed
 * from now on, and what was still pending, is held, not dropped, and goes out in message order when
 * it is re-enabled. A send already under way finishes; its outcome is recorded as usual. Returns
 * false when the hook was not enabled (nothing changed).
 */
export async function disableOutgoingHook(
  db: Db,
  hook: Pick<OutgoingWebhook, 'id' | 'room_id'>,
  reason: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('outgoing_webhooks')
      .set({ state: 'disabled', disabled_reason: reason, updated_at: sql<Date>`now()` })
      .where('id', '=', hook.id)
      .where('room_id', '=', hook.room_id)
      .where('state', '=', 'enabled')
      .executeTakeFirst();
    if (!updated.numUpdatedRows) return false;
    await holdPendingDeliveries(trx, hook.id);
    return true;
  });
}

/**
 * Deletes the hook with its deliveries and their attempts (foreign keys cascade): nothing more is
 * sent, and messages posted from now on owe it nothing. A send already under way may still reach
 * the receiver once; its attempt has nowhere to be recorded and is dropped.
 */
export async function deleteOutgoingHook(
  db: Db,
  hook: Pick<OutgoingWebhook, 'id' | 'room_id'>,
): Promise<void> {
  await db
    .deleteFrom('outgoing_webhooks')
    .where('id', '=', hook.id)
    .where('room_id', '=', hook.room_id)
    .execute();
}

export interface DeliveryLogItem extends Omit<WebhookDelivery, 'body'> {
  attempts_log: WebhookAttempt[];
  /** The delivered message's author and its first characters (null for test events, or gone). */
  message_author: string | null;
  message_excerpt: string | null;
}

/** Deliveries on one page of a hook's log. */
export const DELIVERY_LOG_PAGE_SIZE = 10;
/** How much of a delivered message the log shows. */
export const DELIVERY_EXCERPT_CHARS = 140;

/**
 * One page of the delivery log: newest deliveries first, each with its attempts (newest first)
 * and the start of the message it carried; `total` counts every delivery of the hook.
 */
export async function listDeliveryLog(
  db: Db,
  hookId: string,
  { page = 1, pageSize = DELIVERY_LOG_PAGE_SIZE }: { page?: number; pageSize?: number } = {},
): Promise<{ deliveries: DeliveryLogItem[]; total: number }> {
  // One snapshot for every read: the attempt and its delivery's new status commit together, and
  // separate reads could show the attempt with the status from before it (read committed).
  const { deliveries, attempts, total } = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const { count } = await trx
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('hook_id', '=', hookId)
        .executeTakeFirstOrThrow();
      const deliveries = await trx
        .selectFrom('webhook_deliveries as d')
        .leftJoin('messages as m', 'm.id', 'd.message_id')
        .select([
          'd.id',
          'd.hook_id',
          'd.message_id',
          'd.event',
          'd.status',
          'd.attempts',
          'd.next_attempt_at',
          'd.last_status_code',
          'd.created_at',
          'd.delivered_at',
          'm.display_name as message_author',
        ])
        .select(
          sql<string | null>`left(m.body, ${DELIVERY_EXCERPT_CHARS + 1})`.as('message_excerpt'),
        )
        .where('d.hook_id', '=', hookId)
        .orderBy('d.created_at', 'desc')
        .orderBy('d.id', 'desc')
        .limit(pageSize)
        .offset((Math.max(1, page) - 1) * pageSize)
        .execute();
      if (!deliveries.length) {
        return { deliveries, attempts: [] as WebhookAttempt[], total: Number(count) };
      }
      const attempts = await trx
        .selectFrom('webhook_attempts')
        .selectAll()
        .where(
          'delivery_id',
          'in',
          deliveries.map((d) => d.id),
        )
        .orderBy('attempted_at', 'desc')
        .execute();
      return { deliveries, attempts, total: Number(count) };
    });
  const byDelivery = new Map<string, WebhookAttempt[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.delivery_id) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.delivery_id, list);
  }
  return {
    total,
    deliveries: deliveries.map((d) => ({
      ...d,
      message_excerpt:
        d.message_excerpt !== null && d.message_excerpt.length > DELIVERY_EXCERPT_CHARS
          ? `${d.message_excerpt.slice(0, DELIVERY_EXCERPT_CHARS)}…`
          : d.message_excerpt,
      attempts_log: byDelivery.get(d.id) ?? [],
    })),
  };
}

export async function findDelivery(
  db: Db,
  hookId: string,
  deliveryId: string,
): Promise<Pick<WebhookDelivery, 'id'> | undefined> {
  if (!isId(deliveryId, 'webhookDelivery')) return undefined;
  return db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('id', '=', deliveryId)
    .where('hook_id', '=', hookId)
    .executeTakeFirst();
}

/** 'Send again' (with a delivery) or 'Send test event' (without): webhooks-out sends it now. */
export async function requestSendOnce(
  producer: Producer,
  hookId: string,
  deliveryId?: string,
): Promise<void> {
  await producer.add('webhook-send-once', deliveryId ? { hookId, deliveryId } : { hookId });
}

/** The database's clock: the start of a wait for what another process will write. */
export async function databaseNow(db: Db): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`select now() as now`.execute(db);
  return rows[0]?.now ?? new Date();
}

/**
 * Waits for webhooks-out to record an attempt of the hook made after `since` (a test event or a
 * re-send just asked for), at most `timeoutMs`; true when it did. The attempt and the hook's
 * failure counter are written in one transaction, so once it is there the hook page is current.
 */
export async function waitForAttempt(
  db: Db,
  hookId: string,
  since: Date,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await db
      .selectFrom('webhook_attempts')
      .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
      .select('webhook_attempts.id')
      .where('webhook_deliveries.hook_id', '=', hookId)
      .where('webhook_attempts.attempted_at', '>=', since)
      .executeTakeFirst();
    if (row) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Wakes webhooks-out for the hook (after a re-enable released held deliveries). */
export async function requestDrain(producer: Producer, hookId: string): Promise<void> {
  await producer.add('webhook-drain', { hookId });
}
