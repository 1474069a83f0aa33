import { describe, expect, it } from 'vitest';
import { readQueue } from '../src/features/rooms/live-unread.js';

/** A socket's room:read events: one write at a time, the latest per room, nothing dropped. */
describe('readQueue', () => {
  it('applies reads one at a time and keeps only the latest per room while one runs', async () => {
    const applied: string[] = [];
    let release: () => void = () => undefined;
    let running = 0;
    let most = 0;
    const queue = readQueue(
      async ({ roomId, messageId }) => {
        running++;
        most = Math.max(most, running);
        applied.push(`${roomId}:${messageId}`);
        if (applied.length === 1) await new Promise<void>((resolve) => (release = resolve));
        running--;
      },
      (err) => {
        throw err;
      },
    );
    queue.push({ roomId: 'room_a', messageId: 'msg_1' });
    // While the first write waits: three more for room A (an older one among them), one for B.
    queue.push({ roomId: 'room_a', messageId: 'msg_3' });
    queue.push({ roomId: 'room_a', messageId: 'msg_2' });
    queue.push({ roomId: 'room_b', messageId: 'msg_9' });
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(applied).toEqual(['room_a:msg_1', 'room_a:msg_3', 'room_b:msg_9']);
    expect(most).toBe(1);
    // Idle again: the next read runs at once.
    queue.push({ roomId: 'room_a', messageId: 'msg_4' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(applied.at(-1)).toBe('room_a:msg_4');
  });

  it('reports a failed write and goes on with the next read', async () => {
    const errors: unknown[] = [];
    const applied: string[] = [];
    const queue = readQueue(
      ({ roomId }) => {
        if (roomId === 'room_bad') return Promise.reject(new Error('Postgres went away'));
        applied.push(roomId);
        return Promise.resolve();
      },
      (err) => errors.push(err),
    );
    queue.push({ roomId: 'room_bad', messageId: 'msg_1' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    queue.push({ roomId: 'room_ok', messageId: 'msg_2' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(errors).toHaveLength(1);
    expect(applied).toEqual(['room_ok']);
  });
});
