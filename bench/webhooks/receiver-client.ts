import http from 'node:http';
import { deliveryHeaders } from '@ferry/webhooks-out';
import { sleep } from '../ingest/stats.js';

/**
 * The bench's side of bench/webhooks/receiver.ts (the local receiver the outgoing benches deliver
 * to): its counters, and its ceiling, a plain loop of signed POSTs from this process. Shared by
 * bench:webhooks (the split deployment) and bench:start (`pnpm start`).
 */

/** Concurrent sends in the receiver ceiling: webhook-drain's concurrency in the catalog. */
export const CEILING_SENDERS = 32;

export interface ReceiverStats {
  requests: number;
  unique: number;
  duplicates: number;
  firstAt: number;
  lastAt: number;
}

export async function receiverStats(port: number): Promise<ReceiverStats> {
  const res = await fetch(`http://127.0.0.1:${port}/__stats`);
  return (await res.json()) as ReceiverStats;
}

export async function receiverReset(port: number): Promise<void> {
  await fetch(`http://127.0.0.1:${port}/__reset`, { method: 'POST' });
}

/** Until the receiver on `port` has `count` distinct deliveries; throws, saying how many, if not in time. */
export async function waitReceived(
  port: number,
  count: number,
  timeoutMs: number,
): Promise<ReceiverStats> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const stats = await receiverStats(port);
    if (stats.unique >= count) return stats;
    if (performance.now() > deadline) {
      throw new Error(`the receiver got ${stats.unique} of ${count} deliveries in time`);
    }
    await sleep(100);
  }
}

/**
 * The receiver's ceiling: a plain loop of POSTs signed by webhooks-out's own deliveryHeaders (both
 * signatures), CEILING_SENDERS at a time over keep-alive sockets, from this one process.
 */
export async function receiverCeiling(
  port: number,
  durationMs: number,
): Promise<{ sent: number; perSecond: number; cpuPerPostMs: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CEILING_SENDERS });
  const secrets = {
    current: `whsec_${Buffer.from('bench-ceiling-secret-24b').toString('base64')}`,
    previous: null,
  };
  const started = performance.now();
  // This process's CPU over the loop: the signing and sending alone, a floor for a delivery's.
  const cpuBefore = process.cpuUsage();
  let sent = 0;
  const send = (i: number): Promise<void> => {
    const id = `msgd_ceiling_${i}`;
    const body = JSON.stringify({
      event: 'message_created',
      room: { id: 'room_ceiling', name: 'ceiling', workspace_id: 'workspace_ceiling' },
      message: {
        id: `ceiling_${i}`,
        room_id: 'room_ceiling',
        body: `Message ${i} of the ceiling loop`,
        sender: { type: 'member', id: 'member_ceiling', name: 'Ada' },
        created_at: new Date().toISOString(),
      },
    });
    const headers = {
      ...deliveryHeaders(secrets, { id, event: 'message_created', body }),
      'content-length': String(Buffer.byteLength(body)),
    };
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/ceiling',
          method: 'POST',
          agent,
          headers,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: CEILING_SENDERS }, async () => {
      while (performance.now() - started < durationMs) {
        await send(next++);
        sent++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  agent.destroy();
  return {
    sent,
    perSecond: sent / seconds,
    cpuPerPostMs: (cpu.user + cpu.system) / 1000 / Math.max(1, sent),
  };
}
