import { describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import { jobsForEvent } from '../src/index.js';

/**
 * An event may delay its jobs (issue 26: the "N more alerts held" line waits for the end of the
 * hour). The relay adds what jobsForEvent returns, so the delay is in the job's options.
 */
describe('event delays', () => {
  it('delays the error_alerts_held job until the window ends, and never below zero', () => {
    const eventId = newId('outbox');
    const workspaceId = newId('workspace');
    const windowEnd = new Date(Date.now() + 40 * 60_000).toISOString();
    const [job] = jobsForEvent(
      'error_alerts_held',
      {
        workspaceId,
        windowStart: new Date(Date.now() - 20 * 60_000).toISOString(),
        windowEnd,
        errorsUrl: 'http://ferry.test/w/x/y/errors',
      },
      eventId,
    );
    expect(job?.queue).toBe('error-alerts-held');
    expect(job?.opts?.jobId).toBe(eventId);
    expect(job?.opts?.delay).toBeGreaterThan(39 * 60_000);
    expect(job?.opts?.delay).toBeLessThanOrEqual(40 * 60_000);

    const [late] = jobsForEvent(
      'error_alerts_held',
      {
        workspaceId,
        windowStart: new Date(Date.now() - 70 * 60_000).toISOString(),
        windowEnd: new Date(Date.now() - 10 * 60_000).toISOString(),
        errorsUrl: 'http://ferry.test/w/x/y/errors',
      },
      eventId,
    );
    expect(late?.opts).toEqual({ jobId: eventId });
  });

  it('adds no delay to events that have none', () => {
    const eventId = newId('outbox');
    const [job] = jobsForEvent(
      'error_alert_owed',
      { hookId: newId('outgoingWebhook'), workspaceId: newId('workspace') },
      eventId,
    );
    expect(job).toMatchObject({ queue: 'webhook-drain', opts: { jobId: eventId } });
    expect(job?.opts).not.toHaveProperty('delay');
  });
});
