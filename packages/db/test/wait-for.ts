/**
 * Polls `read` until it gives a value and returns it; rejects naming `what` after `timeoutMs`.
 * (@ferry/testing has the same, but it depends on this package.)
 */
export async function waitFor<T>(
  read: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
