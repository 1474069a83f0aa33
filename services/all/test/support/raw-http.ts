import net from 'node:net';

/**
 * HTTP/1.1 spoken by hand over node:net, for clients fetch cannot be: one that promises a body and
 * stalls, one that trickles its headers. Every wait is on the socket's own events ('data',
 * 'close'), bounded by a generous limit whose failure says what was awaited.
 */

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  socket: net.Socket;
  /** Milliseconds since the connection opened. */
  elapsed(): number;
  /** Every byte received so far, as text. */
  received(): string;
  /** The first complete answer (its head and its Content-Length's worth of body). */
  answer(what: string, timeoutMs?: number): Promise<RawAnswer>;
  /** Resolves once the server closed the connection (or it was reset); rejects after timeoutMs. */
  closed(what: string, timeoutMs?: number): Promise<void>;
  /** Forget what was received (before a second request on a kept-alive connection). */
  reset(): void;
}

function parse(text: string): RawAnswer | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = text.slice(end + 4);
  const length = Number(headers['content-length'] ?? 0);
  if (Buffer.byteLength(body) < length) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

export async function connect(port: number): Promise<RawConnection> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const opened = performance.now();
  let text = '';
  let isClosed = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  // A reset after the answer (the server closed with bytes of ours unread) is still a close.
  socket.on('error', () => undefined);
  socket.once('close', () => (isClosed = true));

  const within = <T>(what: string, timeoutMs: number, settle: (done: (v: T) => void) => void) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}; got: ${text}`));
      }, timeoutMs);
      settle((value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });

  return {
    socket,
    elapsed: () => performance.now() - opened,
    received: () => text,
    reset: () => (text = ''),
    answer: (what, timeoutMs = 30_000) =>
      within<RawAnswer>(what, timeoutMs, (done) => {
        const check = (): boolean => {
          const parsed = parse(text);
          if (parsed) done(parsed);
          return Boolean(parsed);
        };
        if (check()) return;
        const onData = (): void => {
          if (check()) socket.off('data', onData);
        };
        socket.on('data', onData);
      }),
    closed: (what, timeoutMs = 30_000) =>
      within<void>(what, timeoutMs, (done) => {
        if (isClosed) done();
        else socket.once('close', () => done());
      }),
  };
}

/** Writes and resolves once the bytes are handed to the kernel. */
export function send(socket: net.Socket, data: string): Promise<void> {
  return new Promise((resolve, reject) =>
    socket.write(data, (error) => (error ? reject(error) : resolve())),
  );
}
