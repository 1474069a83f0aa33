import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitUntil } from '@ferry/testing';

const run = promisify(execFile);

/** One redis-server or redis-sentinel of the cluster, on a loopback port. */
interface Node {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
  log(): string;
}

export interface SentinelCluster {
  /** REDIS_URL for Ferry: redis+sentinel://<the three Sentinels>/<master name>/0 */
  url: string;
  masterName: string;
  /** The port the Sentinels name as master now (asks the first one that answers). */
  masterPort: () => Promise<number | undefined>;
  /** SIGKILLs the server on `port` (the master: no shutdown, no last write to its replica). */
  kill(port: number): Promise<void>;
  /** Every process's output, for a failure message. */
  logs(): string;
  stop(): Promise<void>;
}

const MASTER_NAME = 'ferry';

/** `redis-cli -p <port> <args>`'s answer, or undefined when nothing answers. */
async function cli(port: number, ...args: string[]): Promise<string | undefined> {
  try {
    const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
      timeout: 5_000,
    });
    return stdout.trim();
  } catch {
    return undefined;
  }
}

function start(command: string, args: string[], port: number): Node {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (log += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { port, child, exited, log: () => log };
}

/**
 * A master, a replica and three Sentinels (quorum 2) of this test's own on free loopback ports,
 * configs and data in a temp dir: Debian's redis-server and redis-sentinel. A Sentinel calls the
 * master down after `downAfterMs` without an answer and then promotes the replica. Resolves once
 * the replica is in sync and every Sentinel knows the replica and the two other Sentinels (a
 * failover needs them to agree).
 */
export async function startSentinelCluster(downAfterMs = 1_000): Promise<SentinelCluster> {
  for (const binary of ['redis-server', 'redis-sentinel', 'redis-cli']) {
    try {
      execFileSync(binary, ['--version']);
    } catch {
      throw new Error(
        `${binary} is not installed (apt-get install redis-server redis-sentinel redis-tools): ` +
          'the failover test runs a master, a replica and three Sentinels of its own',
      );
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-sentinel-'));
  const nodes: Node[] = [];
  const server = async (name: string, extra: string[]): Promise<Node> => {
    const port = await freePort();
    const data = path.join(dir, name);
    fs.mkdirSync(data);
    // No snapshots or AOF: what survives the master's death is only what reached the replica.
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', data];
    const node = start('redis-server', [...args, ...extra], port);
    nodes.push(node);
    return node;
  };
  const master = await server('master', []);
  await waitUntil(async () => (await cli(master.port, 'ping')) === 'PONG', 'the master to answer');
  const replica = await server('replica', ['--replicaof', '127.0.0.1', String(master.port)]);
  await waitUntil(
    async () =>
      (await cli(replica.port, 'info', 'replication'))?.includes('master_link_status:up') ?? false,
    'the replica to sync with the master',
  );
  const sentinels: Node[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const config = path.join(dir, `sentinel-${i}.conf`);
    // Sentinels rewrite their config (what they learn), so each has its own file.
    fs.writeFileSync(
      config,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} ${downAfterMs}`,
        `sentinel failover-timeout ${MASTER_NAME} 10000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        '',
      ].join('\n'),
    );
    const node = start('redis-sentinel', [config], port);
    nodes.push(node);
    sentinels.push(node);
  }
  const logs = (): string =>
    nodes.map((n) => `--- :${n.port}\n${n.log().slice(-3_000)}`).join('\n');
  const knowsEveryone = async (sentinel: Node): Promise<boolean> => {
    const replicas = await cli(sentinel.port, 'sentinel', 'replicas', MASTER_NAME);
    const peers = await cli(sentinel.port, 'sentinel', 'sentinels', MASTER_NAME);
    const peerCount = (peers ?? '').split('\n').filter((line) => line === 'name').length;
    return (replicas ?? '').includes(String(replica.port)) && peerCount === 2;
  };
  await waitUntil(
    async () => (await Promise.all(sentinels.map(knowsEveryone))).every(Boolean),
    () => `each Sentinel to know the replica and the two other Sentinels\n${logs()}`,
    60_000,
    200,
  );

  const masterPort = async (): Promise<number | undefined> => {
    for (const sentinel of sentinels) {
      const answer = await cli(sentinel.port, 'sentinel', 'get-master-addr-by-name', MASTER_NAME);
      const port = Number(answer?.split('\n')[1]);
      if (port) return port;
    }
    return undefined;
  };
  return {
    url: `redis+sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${MASTER_NAME}/0`,
    masterName: MASTER_NAME,
    masterPort,
    async kill(port) {
      const node = nodes.find((n) => n.port === port);
      if (!node) throw new Error(`no server of the cluster on port ${port}`);
      node.child.kill('SIGKILL');
      await node.exited;
    },
    logs,
    async stop() {
      for (const node of nodes) if (node.child.exitCode === null) node.child.kill('SIGKILL');
      await Promise.all(nodes.map((n) => n.exited));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
