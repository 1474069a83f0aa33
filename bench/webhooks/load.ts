import { closedLoop, postJson, type ClosedLoopResult } from '../lib/closed-loop.js';

/**
 * Load for POST /wh/in/<key> through the shared closed-loop generator (lib/closed-loop.ts); keys
 * round robin, bodies are small JSON built ahead of time.
 */
export interface LoadOptions {
  port: number;
  connections: number;
  durationMs: number;
  /** Raw incoming keys; requests go round-robin over them. */
  keys: readonly string[];
}

export interface LoadResult extends ClosedLoopResult {
  /** Posts answered 201 (a message was stored). */
  accepted: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const bodies = Array.from({ length: 256 }, (_, i) =>
    JSON.stringify({ body: `Deploy #${i} finished on production in 42 s`, sender: 'CI' }),
  );
  let accepted = 0;
  const loop = await closedLoop({
    connections: options.connections,
    durationMs: options.durationMs,
    send: (agent, n) =>
      postJson(
        agent,
        options.port,
        `/wh/in/${options.keys[n % options.keys.length]!}`,
        bodies[n % bodies.length]!,
      ),
    isSuccess: (answer) => {
      if (answer.status !== 201) return false;
      accepted += 1;
      return true;
    },
  });
  return { ...loop, accepted };
}
