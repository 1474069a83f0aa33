import { waitUntil } from '@ferry/testing';

/** An agent's stream read as text: enough to see its frames arrive and the stream end. */
export interface SseText {
  status: number;
  text(): string;
  /** Resolves when the server ends the stream (or the client closes it). */
  ended: Promise<void>;
  waitFor(frame: string, what: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function openSseText(url: string, headers: Record<string, string>): Promise<SseText> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  let received = '';
  const decoder = new TextDecoder();
  const ended = (async () => {
    if (!res.body) return;
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received += decoder.decode(value, { stream: true });
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    status: res.status,
    text: () => received,
    ended,
    waitFor: (frame, what, timeoutMs = 30_000) =>
      waitUntil(
        () => received.includes(frame),
        () => `${what} (stream so far: ${received})`,
        timeoutMs,
      ),
    close: () => controller.abort(),
  };
}
