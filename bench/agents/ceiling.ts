import http from 'node:http';
import { Redis } from 'ioredis';

/**
 * The ceiling for the agents bench: the same number of SSE streams held by one plain node
 * process, and a push to one of them for every Redis message (`<stream index> <payload>`) — no
 * auth, no database, no queue. What the gateway costs beyond this is its own.
 * Env: PORT, REDIS_URL, CHANNEL. Prints "ready" once listening.
 */
const streams = new Map<number, http.ServerResponse>();
const server = http.createServer((req, res) => {
  const index = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('i') ?? 0);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write('retry: 3000\n\n');
  streams.set(index, res);
  req.on('close', () => {
    if (streams.get(index) === res) streams.delete(index);
  });
});
const sub = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
await sub.subscribe(process.env.CHANNEL ?? 'ceiling');
sub.on('message', (_channel: string, text: string) => {
  const space = text.indexOf(' ');
  const index = Number(text.slice(0, space));
  streams.get(index)?.write(`event: work\ndata: ${text.slice(space + 1)}\n\n`);
});
setInterval(() => {
  for (const res of streams.values()) res.write(': keepalive\n\n');
}, 15_000).unref();
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write('ready\n'));
process.once('SIGTERM', () => {
  sub.disconnect();
  for (const res of streams.values()) res.end();
  server.close(() => process.exit(0));
});
