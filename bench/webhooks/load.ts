import { closedLoop, postJson, type Answer, type ClosedLoopResult } from '../lib/closed-loop.js';
import { openLoop, type OpenLoopResult } from '../lib/open-loop.js';

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

function poster(options: Pick<LoadOptions, 'port' | 'keys'>) {
  const bodies = Array.from({ length: 256 }, (_, i) =>
    JSON.stringify({ body: `Deploy #${i} finished on production in 42 s`, sender: 'CI' }),
  );
  return (agent: Parameters<typeof postJson>[0], n: number): Promise<Answer> =>
    postJson(
      agent,
      options.port,
      `/wh/in/${options.keys[n % options.keys.length]!}`,
      bodies[n % bodies.length]!,
    );
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  let accepted = 0;
  const loop = await closedLoop({
    connections: options.connections,
    durationMs: options.durationMs,
    send: poster(options),
    isSuccess: (answer) => {
      if (answer.status !== 201) return false;
      accepted += 1;
      return true;
    },
  });
  return { ...loop, accepted };
}

/** The same posts at a fixed offered rate (open loop): latency that does not mirror concurrency. */
export async function runOpenLoad(
  options: Pick<LoadOptions, 'port' | 'keys' | 'durationMs'> & { rate: number },
): Promise<OpenLoopResult & { accepted: number }> {
  let accepted = 0;
  const result = await openLoop({
    rate: options.rate,
    durationMs: options.durationMs,
    send: poster(options),
    isSuccess: (answer) => {
      if (answer.status !== 201) return false;
      accepted += 1;
      return true;
    },
  });
  return { ...result, accepted };
}
