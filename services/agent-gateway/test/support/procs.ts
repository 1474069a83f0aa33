import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '@ferry/db';
import { entryCommand, startService, waitUntil } from '@ferry/testing';
import { fileFeedback } from '@ferry/workspace';

export const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
export const gatewayMain = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
export const agentDir = path.join(repoRoot, 'packages', 'agent');
export const fakeCli = path.join(agentDir, 'tests', 'fake_cli.py');

/** A real child process (a gateway, the Python agent, a Redis) a test can SIGKILL. */
export interface Proc {
  child: ChildProcess;
  exited: Promise<void>;
  log: () => string;
}

export function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd = repoRoot,
): Proc {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (log += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited, log: () => log };
}

/** services/agent-gateway/src/main.ts on `port`, up once its /healthz answers. */
export async function runGateway(env: Record<string, string>, port: number): Promise<Proc> {
  const gateway = await startService({ command: entryCommand(gatewayMain), env, port });
  return {
    child: gateway.child,
    exited: gateway.exited.then(() => undefined),
    log: () => gateway.log(),
  };
}

/** `python3 -m ferry_agent` with the fake CLI. */
export function runAgent(env: Record<string, string>): Proc {
  return run(
    'python3',
    ['-m', 'ferry_agent'],
    { SERVICE_CLI_COMMAND: `python3 ${fakeCli}`, ...env },
    agentDir,
  );
}

/** An empty git checkout with one commit on main. */
export function initRepo(dir: string): void {
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  execFileSync(
    'git',
    [
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@example.com',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'init',
    ],
    { cwd: dir },
  );
}

/** Resolves once the workspace's agent holds a stream (the gateway marked it seen). */
export async function agentConnected(db: Db, workspaceId: string, agent: Proc): Promise<void> {
  await waitUntil(
    async () =>
      (
        await db
          .selectFrom('agents')
          .select('stream_seen_at')
          .where('workspace_id', '=', workspaceId)
          .executeTakeFirst()
      )?.stream_seen_at != null,
    'the agent to connect',
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${agent.log()}`);
  });
}

/** Files a ticket with only a note; returns its conversation room. */
export async function fileNote(db: Db, workspaceId: string, note: string): Promise<string> {
  const ticket = await fileFeedback(db, workspaceId, {
    note,
    title: null,
    reporter: null,
    page: null,
    element: null,
  });
  return ticket.room_id;
}

/** How many replies (text messages by an agent) each room got, in the rooms' order. */
export async function repliesPerRoom(db: Db, rooms: readonly string[]): Promise<number[]> {
  const rows = await db
    .selectFrom('messages')
    .select('room_id')
    .where('room_id', 'in', [...rooms])
    .where('author_kind', '=', 'agent')
    .where('kind', '=', 'text')
    .execute();
  return rooms.map((room) => rows.filter((row) => row.room_id === room).length);
}
