import type { WebhookDelivery } from '@ferry/db';
import { postOutbound, type SendResult } from '@ferry/http';
import type { JobPayload } from '@ferry/queues';
import { leaseMs, recordAttempt, signingSecrets } from '../deliveries.js';
import type { WebhooksOutDeps } from '../deps.js';
import type { DrainOutcome, HandedRun } from '../drains.js';
import { releaseLeases, type RunClaim } from '../claims.js';
import type { RunSuccess } from '../records.js';
import { deliveryHeaders } from '../signing.js';

/**
 * `webhook-drain`: a wake-up for one hook (from the sweep, a retry coming due, a re-enable). The
 * drain itself runs in this process's drain scheduler (drains.ts), which fan-outs here wake
 * directly; the job only hands the hook to it, so it ends at once.
 */
export function drainHook(
  wake: (hookId: string) => void,
  { hookId }: JobPayload<'webhook-drain'>,
): Promise<{ woken: string }> {
  wake(hookId);
  return Promise.resolve({ woken: hookId });
}

/** Kept free at the end of a run's lease to record what it sent before the lease runs out. */
const RECORD_MARGIN_MS = 2_000;
/** Claims in a row that may find the stream changed under them (each re-reads it). */
const CLAIM_ROUNDS = 5;

/**
 * One step of a hook's drain: claim a run from the head of its stream (or take the one handed over,
 * leased when a fan-out owed it), send it in order over the
 * process's keep-alive connections, and record it (claims.ts, records.ts; both grouped with the
 * other hooks of the moment). The run ends early at the first failure (recorded with its retry,
 * disable or 410 consequences; the rest waits behind it), when the process is stopping, or when
 * the lease could not cover another send at its full timeout. A head that is not due gets a
 * delayed wake-up whose job id is its due time, so every drainer that sees the same wait
 * schedules the same single job.
 */
export async function drainRun(
  deps: WebhooksOutDeps,
  hookId: string,
  stopping: () => boolean,
  handed?: HandedRun,
): Promise<DrainOutcome> {
  const lease = leaseMs(deps.settings);
  let claimedAt = performance.now();
  let claim: RunClaim = { kind: 'retry' };
  if (handed) {
    // Leased when it was owed. One that waited so long for a slot that its first send might
    // outlive the lease goes back to the stream (a claim takes it again) rather than risk a
    // second drainer sending it at the same time.
    if (
      lease - (performance.now() - handed.leasedAt) >=
      deps.settings.timeoutMs + RECORD_MARGIN_MS
    ) {
      claimedAt = handed.leasedAt;
      claim = { kind: 'claimed', ...handed };
    } else {
      await releaseLeases(
        deps.db,
        handed.run.map((delivery) => delivery.id),
      );
    }
  }
  for (let round = 0; round < CLAIM_ROUNDS && claim.kind === 'retry'; round++) {
    claimedAt = performance.now();
    claim = await deps.runs.claim(hookId);
  }
  // A stream still changing after a few rounds is busy with another drainer; the sweep looks again.
  if (claim.kind === 'idle' || claim.kind === 'retry') return 'idle';
  if (claim.kind === 'wait') {
    await deps.producer.add(
      'webhook-drain',
      { hookId },
      { jobId: `drain-${hookId}-at-${claim.until.getTime()}`, delay: claim.delayMs },
    );
    return 'wait';
  }

  const { hook, run } = claim;
  const secrets = signingSecrets(deps.box, hook);
  const successes: RunSuccess[] = [];
  let failure: { delivery: WebhookDelivery; result: SendResult } | undefined;
  for (const delivery of run) {
    // The endpoint's rate limit, before the lease check: the wait counts against the lease.
    await deps.pacer.wait(hook.id, hook.max_per_second);
    if (successes.length > 0) {
      const leaseLeft = lease - (performance.now() - claimedAt);
      if (stopping() || leaseLeft < deps.settings.timeoutMs + RECORD_MARGIN_MS) break;
    }
    const headers = deliveryHeaders(secrets, {
      id: delivery.id,
      event: delivery.event,
      body: delivery.body,
    });
    const result = await postOutbound(hook.target_url, headers, delivery.body, {
      timeoutMs: deps.settings.timeoutMs,
      ssrf: deps.settings.ssrf,
    });
    if (!result.ok) {
      failure = { delivery, result };
      break;
    }
    successes.push({ delivery, result, answeredAt: performance.now() });
  }

  const tried = successes.length + (failure ? 1 : 0);
  await deps.runs.record({
    hookId: hook.id,
    successes,
    unsentIds: run.slice(tried).map((delivery) => delivery.id),
  });
  if (failure) {
    const recorded = await recordAttempt(deps.db, failure.delivery, failure.result, {
      mode: 'scheduled',
      settings: deps.settings,
      logger: deps.logger,
    });
    if (recorded.disabled) {
      deps.logger.warn({ hookId, statusCode: failure.result.statusCode }, 'outgoing hook disabled');
    }
  }
  // Sent the whole stream as it was read: the drain ends here unless a wake came in meanwhile (a
  // new delivery's fan-out wakes the hook after its commit), saving a claim that finds nothing.
  return claim.wholeStream && !failure && tried === run.length ? 'drained' : 'sent';
}
