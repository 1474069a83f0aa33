/** One Server-Sent Events event, its data parsed as JSON (every Ferry stream sends JSON). */
export interface SseEvent {
  event: string;
  id?: string;
  data: unknown;
}

/**
 * The complete frames at the start of `buffer` (text read from an SSE response so far): their
 * events, how many were comments only (`: keepalive`), and the unfinished rest to read on with.
 * A frame without `data` is skipped; `event` defaults to `message`, as the spec says
 * (html.spec.whatwg.org/multipage/server-sent-events.html).
 */
export function readSseFrames(buffer: string): {
  events: SseEvent[];
  comments: number;
  rest: string;
} {
  const events: SseEvent[] = [];
  let comments = 0;
  let rest = buffer;
  let end;
  while ((end = rest.indexOf('\n\n')) >= 0) {
    const lines = rest.slice(0, end).split('\n');
    rest = rest.slice(end + 2);
    if (lines.every((line) => line.startsWith(':'))) {
      comments++;
      continue;
    }
    const field = (name: string) =>
      lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
    const data = field('data');
    if (data === undefined) continue;
    const id = field('id');
    events.push({
      event: field('event') ?? 'message',
      ...(id === undefined ? {} : { id }),
      data: JSON.parse(data),
    });
  }
  return { events, comments, rest };
}
