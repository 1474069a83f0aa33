import pg from 'pg';
import { probeNotifications } from './session-check.js';

/**
 * LISTEN on a Postgres channel with a connection of its own, reconnecting with backoff when the
 * server goes away; `onNotify` runs for every notification with its payload, and once after each
 * (re)connect without one (a notification sent while disconnected is lost, so the listener
 * catches up). Used to wake the outbox relay at commit instead of waiting for its next poll.
 * Each (re)connect first proves notifications arrive (session-check.ts): a URL through a
 * transaction pooler fails it with NotificationsNotDelivered, passed to `onError` and retried,
 * instead of a LISTEN that silently hears nothing. `databaseUrl` is DATABASE_DIRECT_URL.
 * Notifications that arrive while a connection is still being proven are not passed on: the
 * catch-up call that follows covers them, and passing them on first would let a consumer act on
 * the channel (trust its cache, hear a settle token) before that catch-up undoes it.
 */
export interface Listener {
  close(): Promise<void>;
}

export function listen(
  databaseUrl: string,
  channel: string,
  /** `payload` is the notification's; undefined for the catch-up call after a (re)connect. */
  onNotify: (payload?: string) => void,
  onError: (err: unknown) => void = () => undefined,
  /** The connection is gone: notifications are lost until the next (re)connect's onNotify. */
  onDisconnect: () => void = () => undefined,
): Listener {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Bad channel name: ${channel}`);
  let client: pg.Client | undefined;
  let closed = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    if (closed) return;
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      // The probe's own channel is not ours; and until this connection's catch-up call (below)
      // it is not the current one.
      if (message.channel === channel && client === next) onNotify(message.payload);
    });
    next.on('error', (err) => {
      onError(err);
      retry(next);
    });
    next.on('end', () => retry(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
      await probeNotifications(next, databaseUrl);
      if (closed) {
        await next.end();
        return;
      }
      client = next;
      failures = 0;
      onNotify();
    } catch (err) {
      onError(err);
      retry(next);
    }
  };

  const retry = (failed: pg.Client): void => {
    if (closed || (client && client !== failed) || timer) return;
    onDisconnect();
    client = undefined;
    failed.removeAllListeners('end');
    failed.end().catch(() => undefined);
    failures++;
    const delay = Math.min(10_000, 100 * 2 ** failures);
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, delay);
    timer.unref();
  };

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      if (current) {
        current.removeAllListeners('end');
        await current.end().catch(() => undefined);
      }
    },
  };
}
