import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A LISTEN needs the same server connection for as long as it listens. Through a transaction
 * pooler (PgBouncer's `pool_mode = transaction`) the LISTEN statement succeeds, then its server
 * connection goes back to the pool and the client never hears a notification: no error, just
 * silence (a key cache that never drops a dead key, a revoked token's stream left open). These
 * checks make that silence loud: a notification is sent from another connection and must reach
 * the listening one.
 */
export const PROBE_TIMEOUT_MS = 5_000;

export class NotificationsNotDelivered extends Error {
  constructor(databaseUrl: string, timeoutMs: number) {
    super(
      `LISTEN on ${withoutPassword(databaseUrl)} heard no notification within ${timeoutMs} ms: ` +
        'this URL does not keep a session, as through PgBouncer in transaction mode. Set ' +
        'DATABASE_DIRECT_URL to Postgres itself (DATABASE_URL may stay on the pooler).',
    );
    this.name = 'NotificationsNotDelivered';
  }
}

/** A URL fit for a log line or an error message. */
export function withoutPassword(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * Proves `listening` (connected to `databaseUrl`) hears notifications: it LISTENs on a channel of
 * its own, a second connection to the same URL notifies it, and the notification must arrive
 * within `timeoutMs`. The notifier is a separate connection because a backend hears its own
 * NOTIFY even through a pooler (the pooler may well give both statements the same server
 * connection). Throws NotificationsNotDelivered when nothing arrives; connection errors as they are.
 */
export async function probeNotifications(
  listening: pg.Client,
  databaseUrl: string,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<void> {
  const channel = `ferry_probe_${randomBytes(8).toString('hex')}`;
  let onNotification: ((message: pg.Notification) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const heard = new Promise<boolean>((resolve) => {
    onNotification = (message) => {
      if (message.channel === channel) resolve(true);
    };
    listening.on('notification', onNotification);
  });
  try {
    await listening.query(`LISTEN ${channel}`);
    const notifier = new pg.Client({ connectionString: databaseUrl });
    await notifier.connect();
    try {
      await notifier.query('select pg_notify($1, $2)', [channel, 'probe']);
    } finally {
      await notifier.end().catch(() => undefined);
    }
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    if (!(await Promise.race([heard, timedOut]))) {
      throw new NotificationsNotDelivered(databaseUrl, timeoutMs);
    }
  } finally {
    clearTimeout(timer);
    if (onNotification) listening.removeListener('notification', onNotification);
    await listening.query(`UNLISTEN ${channel}`).catch(() => undefined);
  }
}

/**
 * At start: does `databaseUrl` keep a session? Throws NotificationsNotDelivered when it does not.
 * A server that cannot be reached is not this check's to judge (the listeners retry, /readyz
 * reports it): that case resolves with the error, for the caller to log.
 */
export async function checkSessionUrl(
  databaseUrl: string,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<{ unreachable?: unknown }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await probeNotifications(client, databaseUrl, timeoutMs);
    return {};
  } catch (error) {
    if (error instanceof NotificationsNotDelivered) throw error;
    return { unreachable: error };
  } finally {
    await client.end().catch(() => undefined);
  }
}
