import { readSseFrames, waitUntil, type SseEvent } from '@ferry/testing';

export type { SseEvent };

/** A Server-Sent Events client over fetch, for tests: collects events as they arrive. */
export interface SseClient {
  status: number;
  events: SseEvent[];
  comments: number;
  waitFor(
    predicate: (events: SseEvent[]) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<void>;
  close(): void;
  closed: Promise<void>;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  const client: SseClient = {
    status: res.status,
    events,
    comments: 0,
    waitFor: (predicate, what, timeoutMs = 30_000) =>
      waitUntil(() => predicate(events), what, timeoutMs),
    close: () => controller.abort(),
    closed: Promise.resolve(),
  };
  if (!res.ok || !res.body) {
    client.closed = res.text().then(() => undefined);
    return client;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  client.closed = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const read = readSseFrames(buffer + decoder.decode(value, { stream: true }));
        buffer = read.rest;
        client.comments += read.comments;
        events.push(...read.events);
      }
    } catch {
      // aborted
    }
  })();
  return client;
}
