import http from 'node:http';

/**
 * The local receiver for the outgoing bench, in its own process: answers every POST 200 as soon as
 * its body has arrived, and remembers when each message's first attempt arrived (wall clock, ms,
 * performance.timeOrigin + now(), comparable with the bench process's). GET /__stats and
 * GET /__times read that back; POST /__reset forgets it. Prints "ready" when listening.
 */
const now = (): number => performance.timeOrigin + performance.now();
let requests = 0;
let firstAt = 0;
let lastAt = 0;
let duplicates = 0;
const seen = new Set<string>();
let times = new Map<string, number>();

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/__stats') {
    res.end(JSON.stringify({ requests, unique: seen.size, duplicates, firstAt, lastAt }));
    return;
  }
  if (req.method === 'GET' && req.url === '/__times') {
    res.end(JSON.stringify([...times]));
    return;
  }
  if (req.method === 'POST' && req.url === '/__reset') {
    requests = 0;
    firstAt = 0;
    lastAt = 0;
    duplicates = 0;
    seen.clear();
    times = new Map();
    res.end('{}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = now();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    requests++;
    if (!firstAt) firstAt = at;
    lastAt = at;
    const webhookId = String(req.headers['webhook-id'] ?? '');
    if (seen.has(webhookId)) duplicates++;
    else seen.add(webhookId);
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        message?: { id?: string };
      };
      const id = body.message?.id;
      if (id && !times.has(id)) times.set(id, at);
    } catch {
      // not a delivery body: counted, not timed
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
