/** Postgres's lock_not_available: a statement waited longer than lock_timeout for a lock. */
const LOCK_NOT_AVAILABLE = '55P03';

/** Pauses between attempts: a busy table usually frees within a few of these. */
const PAUSES_MS = [1_000, 5_000, 15_000];

function isLockTimeout(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === LOCK_NOT_AVAILABLE;
}

/**
 * Runs a migration again when it gave up waiting for a lock (MIGRATION_TIMEOUTS.lockTimeout). A
 * migration in a transaction was rolled back, and one outside a transaction is re-runnable by
 * rule, so trying again is safe; the wait it gave up lets the queries queued behind it through.
 */
export async function retryOnLockTimeout(name: string, run: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await run();
      return;
    } catch (error) {
      const pause = PAUSES_MS[attempt];
      if (!isLockTimeout(error) || pause === undefined) throw error;
      process.stderr.write(
        `migration ${name}: lock_timeout waiting for a lock, trying again in ${pause / 1000} s\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
