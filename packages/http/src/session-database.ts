import { ConfigError, type Config, type Logger } from '@ferry/core';
import { checkSessionUrl, NotificationsNotDelivered } from '@ferry/db';

/**
 * Before a process serves: DATABASE_DIRECT_URL must keep a session, or every LISTEN in it (the
 * outbox relay's wake-up, the incoming-key cache, token revocation, the live checklist) would hear
 * nothing and say nothing. Pointing it at PgBouncer in transaction mode (or leaving it unset while
 * DATABASE_URL does) stops the start with a ConfigError saying so. A Postgres that does not answer
 * yet is only a warning: the listeners retry, and /readyz reports it.
 */
export async function requireSessionDatabase(config: Config, logger: Logger): Promise<void> {
  try {
    const { unreachable } = await checkSessionUrl(config.DATABASE_DIRECT_URL);
    if (unreachable) {
      logger.warn(
        { err: unreachable },
        'could not check that DATABASE_DIRECT_URL keeps a session (LISTEN); its listeners retry',
      );
    }
  } catch (error) {
    if (!(error instanceof NotificationsNotDelivered)) throw error;
    const which =
      config.DATABASE_DIRECT_URL === config.DATABASE_URL
        ? 'DATABASE_DIRECT_URL (unset, so DATABASE_URL)'
        : 'DATABASE_DIRECT_URL';
    throw new ConfigError([`${which}: ${error.message}`]);
  }
}
