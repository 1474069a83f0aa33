import type { JobPayload } from '@ferry/queues';
import { oweMessage, type FanOutResult } from '../deliveries.js';
import type { WebhooksOutDeps } from '../deps.js';

/**
 * `webhook-delivery`: one `message_created` event -> one delivery owed per hook of the room (loop
 * guard inside oweMessage), then a drain job per enabled hook to send it. The rows are committed
 * before the drain jobs exist, so a drain always finds what it was woken for; if this job dies
 * between the two, BullMQ re-runs it (inserts are idempotent) and the sweep is the last resort.
 */
export async function fanOut(
  deps: Pick<WebhooksOutDeps, 'db' | 'producer'>,
  payload: JobPayload<'webhook-delivery'>,
): Promise<FanOutResult> {
  const result = await oweMessage(deps.db, payload.messageId);
  if (result.kind === 'owed' && result.enabledHookIds.length) {
    await deps.producer.addBulk(
      result.enabledHookIds.map((hookId) => ({
        queue: 'webhook-drain' as const,
        payload: { hookId },
      })),
    );
  }
  return result;
}
