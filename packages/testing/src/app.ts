import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';

export interface RunningApp {
  url: string;
  server: http.Server;
  close: () => Promise<void>;
}

/** Starts a request handler (an express app) on a random loopback port. */
export async function startApp(
  handler: RequestListener,
  attach?: (server: http.Server) => void,
): Promise<RunningApp> {
  const server = http.createServer(handler);
  attach?.(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
