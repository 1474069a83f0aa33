import { newId } from '@ferry/core';
import type { TestContext } from '@ferry/testing';
import { closedLoop, postJson, type ClosedLoopResult } from '../lib/closed-loop.js';

/**
 * Load for POST /ingest/errors through the shared closed-loop generator; bodies are built ahead of
 * time so the generator spends its CPU on HTTP, not on JSON.
 */
export interface LoadOptions {
  port: number;
  connections: number;
  durationMs: number;
  /** Public keys of the workspaces; requests go round-robin over them. */
  publicKeys: readonly string[];
  /** Distinct error classes per workspace (each becomes a group). */
  classesPerWorkspace: number;
}

export interface LoadResult extends ClosedLoopResult {
  /** Reports the service answered 202 for (sum of `accepted`). */
  accepted: number;
  ids: string[];
}

export const REPORTS_PER_REQUEST = 10;

export function reportBody(variant: number, classes: number): string {
  const errors = Array.from({ length: REPORTS_PER_REQUEST }, (_, i) => {
    const cls = (variant * REPORTS_PER_REQUEST + i) % classes;
    return {
      error_class: `BenchError${cls}`,
      message: `Something failed while handling request ${variant}-${i}: value was undefined`,
      backtrace: [
        `at handler (https://app.example.test/assets/app.js:${100 + cls}:17)`,
        'at dispatch (https://app.example.test/assets/vendor.js:2231:9)',
        'at HTMLButtonElement.onclick (https://app.example.test/:1:1)',
      ],
      url: `https://app.example.test/orders/${variant}`,
      environment: 'production',
      app_version: '1.4.2',
      context: { user_agent: 'bench', attempt: i },
      occurred_at: new Date().toISOString(),
    };
  });
  return JSON.stringify({ source: 'js', errors });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const bodies = Array.from({ length: 256 }, (_, i) => reportBody(i, options.classesPerWorkspace));
  let accepted = 0;
  const ids: string[] = [];
  const loop = await closedLoop({
    connections: options.connections,
    durationMs: options.durationMs,
    send: (agent, n) =>
      postJson(agent, options.port, '/ingest/errors', bodies[n % bodies.length]!, {
        'X-Service-Tenant': options.publicKeys[n % options.publicKeys.length]!,
      }),
    isSuccess: (answer) => {
      if (answer.status !== 202) return false;
      const parsed = JSON.parse(answer.text) as { accepted: number; ids: string[] };
      accepted += parsed.accepted;
      for (const id of parsed.ids) ids.push(id);
      return true;
    },
  });
  return { ...loop, accepted, ids };
}

/** `count` bench workspaces in one INSERT; requests go round robin over their public keys. */
export async function createBenchWorkspaces(
  ctx: TestContext,
  count: number,
): Promise<{ id: string; public_key: string }[]> {
  const rows = Array.from({ length: count }, (_, i) => ({
    id: newId('workspace'),
    slug: `bench-${i}`,
    name: `Bench ${i}`,
    public_key: `pk_bench_${i}_${newId('workspace')}`,
    settings: '{}',
  }));
  await ctx.db.insertInto('workspaces').values(rows).execute();
  return rows;
}
