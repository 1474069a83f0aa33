import type { JobPayload } from '@ferry/queues';
import { heldAlertsMessage, postHeldAlertsLine } from '@ferry/workspace';
import type { WebhooksOutDeps } from '../deps.js';

/**
 * `error-alerts-held` (issue 26): at the end of an hour whose error alerts went over the room's
 * cap, one "N more alerts held: see the Errors page" line from "Errors". Safe to re-run: the
 * window's held_posted flag flips in the line's own transaction.
 */
export async function postAlertsHeld(
  deps: Pick<WebhooksOutDeps, 'db'>,
  payload: JobPayload<'error-alerts-held'>,
): Promise<{ held: number }> {
  return { held: await postHeldAlertsLine(deps.db, payload, heldAlertsMessage) };
}
