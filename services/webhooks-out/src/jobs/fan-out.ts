import type { JobPayload } from '@ferry/queues';
import type { FanOutResult } from '../owe.js';

export interface FanOutDeps {
  /** Owes the message's deliveries (oweMessages, grouped with the other fan-outs of the moment). */
  owe(messageId: string): Promise<FanOutResult>;
  /** Wakes this process's drain of a hook. */
  wake(hookId: string): void;
}

/**
 * `webhook-delivery`: one `message_created` event -> one delivery owed per hook of the room (loop
 * guard inside oweMessages), then each enabled hook's drain is woken here, in this process, with
 * no queue in between. The rows are committed before the wake, so a drain always finds what it was
 * woken for, and a drain already running picks them up (drains.ts). If this process dies before
 * the job completes, BullMQ runs it again elsewhere (owing is idempotent, the wake is repeated);
 * if it dies after, the sweep finds the due deliveries.
 */
export async function fanOut(
  deps: FanOutDeps,
  payload: JobPayload<'webhook-delivery'>,
): Promise<FanOutResult> {
  const result = await deps.owe(payload.messageId);
  if (result.kind === 'owed') {
    for (const hookId of result.enabledHookIds) deps.wake(hookId);
  }
  return result;
}
