import type http from 'node:http';
import type { RequestHandler } from 'express';
import { Server, type Socket } from 'socket.io';
import type { WebDeps } from './deps.js';

/**
 * Live updates for pages (new messages in a room). Sockets authenticate with the same session
 * cookie as pages. Rooms features register handlers through `onConnection`.
 */
export interface Realtime {
  io: Server;
  attach(server: http.Server): void;
  close(): Promise<void>;
}

export function createRealtime(_deps: WebDeps, session: RequestHandler): Realtime {
  const io = new Server({ serveClient: true, transports: ['websocket', 'polling'] });
  io.use((socket: Socket, next) => {
    const req = socket.request as http.IncomingMessage & { session?: { userId?: string } };
    if (!req.session?.userId) {
      next(new Error('unauthorized'));
      return;
    }
    socket.data.userId = req.session.userId;
    next();
  });
  return {
    io,
    attach(server) {
      io.attach(server);
      // The engine exists only once attached; sockets then share the pages' session cookie.
      io.engine.use(session);
    },
    async close() {
      await io.close();
    },
  };
}
