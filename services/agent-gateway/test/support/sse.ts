import { waitUntil } from '@ferry/testing';

/** A Server-Sent Events client over fetch, for tests: collects events as they arrive. */
export interface SseEvent {
  event: string;
  id?: string;
  data: unknown;
}

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
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = frame.split('\n');
          if (lines.every((line) => line.startsWith(':'))) {
            client.comments++;
            continue;
          }
          const field = (name: string) =>
            lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
          const data = field('data');
          if (data === undefined) continue;
          events.push({
            event: field('event') ?? 'message',
            id: field('id'),
            data: JSON.parse(data),
          });
        }
      }
    } catch {
      // aborted
    }
  })();
  return client;
}
