import express from 'express';
import pg from 'pg';

/**
 * The incoming ceiling: a tiny express app doing one pg INSERT per POST /wh/in/:key into a table
 * shaped like `messages` (created by run.ts), nothing else: no key lookup, no rate limit, no
 * transaction, no outbox row. Same pool size as the service's (createDb's default, 10). Prints
 * "ready" when listening.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();
app.use(express.json({ limit: '256kb', type: () => true }));
let n = 0;
app.post('/wh/in/:key', async (req, res) => {
  const payload = req.body as { body?: unknown; sender?: unknown };
  const text = (value: unknown, fallback: string): string =>
    typeof value === 'string' ? value : fallback;
  const id = `msg_ceiling_${process.pid}_${n++}`;
  await pool.query(
    `insert into bench_ceiling_messages (id, room_id, workspace_id, display_name, body, metadata)
     values ($1, $2, $3, $4, $5, $6)`,
    [
      id,
      'room_ceiling',
      'workspace_ceiling',
      text(payload.sender, 'CI'),
      text(payload.body, ''),
      JSON.stringify({ key: req.params.key }),
    ],
  );
  res.status(201).json({ message_id: id });
});
// For bench/start, which waits for its children's /healthz.
app.get('/healthz', (_req, res) => {
  res.send('ok');
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => {
  process.stdout.write('ready\n');
});
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
