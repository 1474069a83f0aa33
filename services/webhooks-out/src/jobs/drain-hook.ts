import type { JobPayload } from '@ferry/queues';
import { claimHead, leaseMs, recordAttempt, signingSecrets } from '../deliveries.js';
import type { WebhooksOutDeps } from '../deps.js';
import { postOutbound } from '@ferry/http';
import { deliveryHeaders } from '../signing.js';

/** A drain hands over to a fresh job after this much, so one busy hook never hits the job timeout. */
const MAX_SENDS_PER_JOB = 100;
const MAX_JOB_MS = 30_000;

/**
 * `webhook-drain`: sends the hook's due deliveries head first, one at a time, until none is due.
 * A failed head gets its next try scheduled (recordAttempt) and the drain stops there: later
 * messages wait behind it. The wake-up for that try is a delayed job whose id is the due time, so
 * every drainer that sees the same wait schedules the same single job.
 */
export async function drainHook(
  deps: WebhooksOutDeps,
  { hookId }: JobPayload<'webhook-drain'>,
  signal: AbortSignal,
): Promise<{ sent: number }> {
  const started = Date.now();
  const lease = leaseMs(deps.settings);
  let sent = 0;
  while (!signal.aborted) {
    if (sent >= MAX_SENDS_PER_JOB || Date.now() - started > MAX_JOB_MS) {
      await deps.producer.add('webhook-drain', { hookId });
      break;
    }
    const claim = await claimHead(deps.db, hookId, lease);
    if (claim.kind === 'idle') break;
    if (claim.kind === 'wait') {
      const at = claim.until.getTime();
      await deps.producer.add(
        'webhook-drain',
        { hookId },
        { jobId: `drain-${hookId}-at-${at}`, delay: Math.max(0, at - Date.now()) },
      );
      break;
    }
    const { delivery, hook } = claim;
    const headers = deliveryHeaders(signingSecrets(deps.box, hook), {
      id: delivery.id,
      event: delivery.event,
      body: delivery.body,
    });
    const result = await postOutbound(hook.target_url, headers, delivery.body, {
      timeoutMs: deps.settings.timeoutMs,
      ssrf: deps.settings.ssrf,
    });
    const recorded = await recordAttempt(deps.db, delivery, result, {
      mode: 'scheduled',
      settings: deps.settings,
      logger: deps.logger,
    });
    sent++;
    if (recorded.disabled) {
      deps.logger.warn({ hookId, statusCode: result.statusCode }, 'outgoing hook disabled');
    }
  }
  return { sent };
}
