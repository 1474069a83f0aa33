import http from 'node:http';

/**
 * The HTTP ceiling of the ingest scale bench and bench/start: a plain node server that reads the
 * body, parses the JSON and answers as the product would, doing nothing else. POST /wh/in/<key>
 * answers 201 with a message id; any other POST is an ingest batch and answers 202 with one id per
 * report; a Sentry envelope (POST /api/<project>/envelope/, newline-delimited JSON) has each line
 * parsed and answers 200 with its event id. What loopback HTTP and the load generator cost on this
 * machine at the same offered rate, measured in the same run.
 */
const port = Number(process.env.PORT);
let n = 0;
const server = http.createServer((req, res) => {
  if (req.url === '/healthz') {
    res.end('ok');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.url?.startsWith('/api/')) {
      const lines = Buffer.concat(chunks).toString('utf8').split('\n');
      const header = JSON.parse(lines[0]!) as { event_id?: string };
      for (const line of lines.slice(1)) if (line) JSON.parse(line);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: header.event_id }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { errors?: unknown[] };
    if (req.url?.startsWith('/wh/in/')) {
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message_id: `msg_${(n++).toString(36)}` }));
      return;
    }
    const ids = (body.errors ?? []).map(() => `occ_${(n++).toString(36)}`);
    res.writeHead(202, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ accepted: ids.length, ids }));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
