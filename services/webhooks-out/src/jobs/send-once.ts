import { AppError, newId } from '@ferry/core';
import type { WebhookDelivery } from '@ferry/db';
import type { JobPayload } from '@ferry/queues';
import { MESSAGE_CREATED, WEBHOOK_TEST_TYPE, webhookTestBody } from '@ferry/workspace';
import { recordAttempt, signingSecrets, TEST_EVENT } from '../deliveries.js';
import type { WebhooksOutDeps } from '../deps.js';
import { messageCreatedPayload } from '../payload.js';
import { postOutbound } from '@ferry/http';
import { deliveryHeaders } from '../signing.js';

/**
 * `webhook-send-once`: one send by hand, outside the hook's order and retry schedule. With a
 * deliveryId it is 'Send again' (same body, same webhook-id: receivers that dedupe will drop it);
 * without, 'Send test event': for a room hook a message_created-shaped payload with a sample
 * message, for an event endpoint (issue 44) a `webhook.test` event naming the endpoint. It is sent
 * whatever the hook's state, so an owner can check a fixed endpoint before re-enabling. Its outcome
 * counts toward consecutive failures like any attempt.
 */
export async function sendOnce(
  deps: WebhooksOutDeps,
  { hookId, deliveryId }: JobPayload<'webhook-send-once'>,
): Promise<{ ok: boolean }> {
  const hook = await deps.db
    .selectFrom('outgoing_webhooks')
    .selectAll()
    .where('id', '=', hookId)
    .executeTakeFirst();
  if (!hook) return { ok: false };
  let delivery: WebhookDelivery | undefined;
  if (deliveryId) {
    delivery = await deps.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', deliveryId)
      .where('hook_id', '=', hookId)
      .executeTakeFirst();
  } else if (hook.owner === 'event_endpoint') {
    delivery = await insertTestDelivery(
      deps,
      hook.id,
      webhookTestBody({ id: hook.id, url: hook.target_url }),
    );
  } else {
    // A room hook's test event is a sample room message: the error alert rule's hook has none.
    if (hook.room_id === null) return { ok: false };
    const room = await deps.db
      .selectFrom('rooms')
      .select(['id', 'name', 'workspace_id'])
      .where('id', '=', hook.room_id)
      .executeTakeFirstOrThrow();
    const body = JSON.stringify(
      messageCreatedPayload(room, {
        id: newId('message'),
        room_id: room.id,
        body: 'This is a test event from Ferry. Your endpoint received it.',
        author_kind: 'system',
        author_member_id: null,
        author_ref: null,
        display_name: 'Ferry',
        created_at: new Date(),
      }),
    );
    delivery = await insertTestDelivery(deps, hook.id, body);
  }
  if (!delivery) throw new AppError('not_found', 'No such delivery.');
  const headers = deliveryHeaders(signingSecrets(deps.box, hook), {
    id: delivery.id,
    // Receivers route on this header: a room hook's test is message_created-shaped.
    event:
      delivery.event !== TEST_EVENT
        ? delivery.event
        : hook.owner === 'event_endpoint'
          ? WEBHOOK_TEST_TYPE
          : MESSAGE_CREATED,
    body: delivery.body,
  });
  const result = await postOutbound(hook.target_url, headers, delivery.body, {
    timeoutMs: deps.settings.timeoutMs,
    ssrf: deps.settings.ssrf,
  });
  await recordAttempt(deps.db, delivery, result, {
    mode: 'manual',
    settings: deps.settings,
    logger: deps.logger,
  });
  return { ok: result.ok };
}

/** A test delivery: in the log (event TEST_EVENT), outside the stream, never retried. */
function insertTestDelivery(
  deps: WebhooksOutDeps,
  hookId: string,
  body: string,
): Promise<WebhookDelivery> {
  return deps.db
    .insertInto('webhook_deliveries')
    .values({
      id: newId('webhookDelivery'),
      hook_id: hookId,
      message_id: null,
      event: TEST_EVENT,
      body,
      status: 'pending',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
