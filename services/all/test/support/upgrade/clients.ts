import { io as connect, type Socket } from 'socket.io-client';
import { readSseFrames } from '@ferry/testing';

/** One request's outcome: a status (0: no answer at all), how long it took, what it promised. */
export interface Outcome {
  kind: string;
  status: number;
  ms: number;
  ids: string[];
  problem?: string;
}

function describeCause(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : '';
}

export interface OpenLoop {
  outcomes: Outcome[];
  /** Stops sending; resolves once every request sent has settled. */
  stop(): Promise<Outcome[]>;
}

/**
 * Open-loop load: `perSecond` requests a second whatever the answers' pace (a slow answer does
 * not slow the sender, as real clients do not wait for each other), each recorded with its time.
 * `send` answers the status and the ids the answer promised; a thrown error is a failed request.
 */
export function openLoop(
  kind: string,
  perSecond: number,
  send: (n: number) => Promise<{ status: number; ids: string[] }>,
): OpenLoop {
  const outcomes: Outcome[] = [];
  const inFlight = new Set<Promise<void>>();
  let n = 0;
  const fire = (): void => {
    const started = performance.now();
    const request = send(n++)
      .then(
        ({ status, ids }) => ({ kind, status, ids, ms: performance.now() - started }),
        (error: unknown) => ({
          kind,
          status: 0,
          ids: [],
          ms: performance.now() - started,
          // fetch's `fetch failed` names what happened only in its cause.
          problem: `${String(error)} ${describeCause(error)}`,
        }),
      )
      .then((outcome) => {
        outcomes.push(outcome);
        inFlight.delete(request);
      });
    inFlight.add(request);
  };
  const timer = setInterval(fire, 1000 / perSecond);
  return {
    outcomes,
    async stop() {
      clearInterval(timer);
      await Promise.all([...inFlight]);
      return outcomes;
    },
  };
}

export interface LiveRoom {
  /** Message ids the socket received, with when (performance.now()). */
  seen: Map<string, number>;
  /** Connections made (the first, then each reconnect after a drained process closed it). */
  connections(): number;
  /** What happened to the connection: disconnects with their reasons, failed joins. */
  events: string[];
  close(): void;
}

/**
 * A room page's live socket through the proxy: WebSocket only (as the page, behind a balancer
 * without sticky sessions), reconnecting when a drained process closes it, and joining with the
 * last message it saw as `after` (the page's catch-up: what was posted while it was down comes
 * on the join).
 */
export async function openLiveRoom(
  url: string,
  cookie: string,
  roomId: string,
  lastRendered: string,
): Promise<LiveRoom> {
  const seen = new Map<string, number>();
  let last = lastRendered;
  let connections = 0;
  const events: string[] = [];
  const socket: Socket = connect(url, {
    transports: ['websocket'],
    extraHeaders: { cookie },
    reconnectionDelay: 100,
    reconnectionDelayMax: 500,
    forceNew: true,
  });
  socket.on('disconnect', (reason) => events.push(`disconnect: ${reason}`));
  socket.on('connect_error', (error) => events.push(`connect_error: ${error.message}`));
  socket.io.on('reconnect_failed', () => events.push('reconnect_failed'));
  socket.on('message:new', (m: { id: string }) => {
    if (!seen.has(m.id)) seen.set(m.id, performance.now());
    if (m.id > last) last = m.id;
  });
  const firstJoin = new Promise<void>((resolve, reject) => {
    socket.on('connect', () => {
      connections++;
      socket
        .timeout(10_000)
        .emitWithAck('room:join', { roomId, after: last })
        .then((reply: { ok: boolean }) => {
          events.push(`joined after ${last}: ${JSON.stringify(reply)}`);
          if (reply.ok) resolve();
          else reject(new Error(`room:join refused: ${JSON.stringify(reply)}`));
        })
        // A join lost with its connection is sent again on the next connect.
        .catch((error: unknown) => events.push(`join lost: ${String(error)}`));
    });
  });
  await firstJoin;
  return { seen, events, connections: () => connections, close: () => socket.close() };
}

export interface AgentStream {
  /** Streams opened (`hello` received): the first, then one per reconnect. */
  opened(): number;
  /** Stream requests not answered 200, and agent requests that failed (each is a failure). */
  refused: string[];
  /** Feedback ids of the work items handled (progress posted, then acked), each once. */
  handled: Set<string>;
  close(): Promise<void>;
}

interface WorkItem {
  work_id: string;
  kind: string;
  feedback: { id: string } | null;
}

/**
 * A local agent through the proxy, as packages/agent behaves (PROTOCOL.md): it holds its work
 * stream (GET /agents/v1/stream, Server-Sent Events) and opens it again when a drained process
 * ends it; each work item it has not handled yet gets a progress event in its conversation
 * (POST /agents/v1/events), then an ack (POST /agents/v1/ack). Items come again until acked, so
 * one is handled once by its work id.
 */
export function holdAgentStream(url: string, headers: Record<string, string>): AgentStream {
  let opened = 0;
  const refused: string[] = [];
  const handled = new Set<string>();
  const workDone = new Set<string>();
  const handling = new Set<Promise<void>>();
  const stop = new AbortController();
  const agentPost = async (path: string, body: unknown): Promise<void> => {
    const res = await fetch(`${url}/agents/v1/${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const handle = async (item: WorkItem): Promise<void> => {
    if (workDone.has(item.work_id)) return;
    workDone.add(item.work_id);
    try {
      await agentPost('events', {
        work_id: item.work_id,
        kind: 'progress',
        text: 'Reading the report',
      });
      await agentPost('ack', { work_id: item.work_id });
      if (item.feedback) handled.add(item.feedback.id);
    } catch (error) {
      refused.push(String(error));
    }
  };
  const loop = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      try {
        const res = await fetch(`${url}/agents/v1/stream`, { headers, signal: stop.signal });
        if (res.status !== 200) {
          refused.push(`${res.status} ${await res.text()}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let rest = '';
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const read = readSseFrames(rest + decoder.decode(value, { stream: true }));
          rest = read.rest;
          for (const event of read.events) {
            if (event.event === 'hello') opened++;
            if (event.event !== 'work') continue;
            const handled = handle(event.data as WorkItem).finally(() => handling.delete(handled));
            handling.add(handled);
          }
        }
      } catch (error) {
        if (!stop.signal.aborted) refused.push(String(error));
      }
    }
  };
  const running = loop();
  return {
    opened: () => opened,
    refused,
    handled,
    async close() {
      stop.abort();
      await running;
      await Promise.all([...handling]);
    },
  };
}
