import { batchItems, type JobPayload, type MessageFanOut } from '@ferry/queues';
import type { HandedRun } from '../drains.js';
import type { FanOutResult } from '../owe.js';

export interface FanOutDeps {
  /**
   * Owes the message's deliveries (oweMessages, grouped with the other fan-outs of the moment),
   * leasing those that are their hook's head; `leasedAt` is when the owing statement went out.
   */
  owe(messageId: string): Promise<{ result: FanOutResult; leasedAt: number }>;
  /** Wakes this process's drain of a hook. */
  wake(hookId: string): void;
  /** Hands a leased run to this process's drain of its hook, to send next. */
  hand(run: HandedRun): void;
}

/**
 * One `message_created` event of a `webhook-delivery` job -> one delivery owed per hook of the room (loop
 * guard inside oweMessages). A delivery that is its hook's head is leased as it is owed and handed
 * to the hook's drain here, in this process, to send at once; every other enabled hook's drain is
 * woken to claim what it is owed. The rows are committed before either, so a drain always finds
 * what it was woken for, and a drain already running picks them up (drains.ts). If this process
 * dies before the job completes, BullMQ runs it again elsewhere (owing is idempotent, the wake is
 * repeated; a lease taken here expires and the sweep finds the delivery due); if it dies after,
 * the sweep finds the due deliveries.
 */
export async function fanOut(deps: FanOutDeps, event: MessageFanOut): Promise<FanOutResult> {
  const { result, leasedAt } = await deps.owe(event.messageId);
  if (result.kind === 'owed') {
    for (const leased of result.leased) deps.hand({ ...leased, leasedAt });
    for (const hookId of result.enabledHookIds) deps.wake(hookId);
  }
  return result;
}

/**
 * The job: one message, or a batch the relay merged (a backlog). Its messages are owed together
 * (one group, so one INSERT), and the job succeeds once every one of them is; a failure runs the
 * whole job again, which owes nothing twice.
 */
export function fanOutJob(
  deps: FanOutDeps,
  payload: JobPayload<'webhook-delivery'>,
): Promise<FanOutResult[]> {
  return Promise.all(batchItems(payload).map((event) => fanOut(deps, event)));
}
