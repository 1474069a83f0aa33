import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { tarball, type TarEntry } from './tar.js';

/**
 * The local agent as Ferry serves it (GET /agent/…): a tarball of packages/agent (the Python
 * package, the systemd unit, install.sh, the docs) and install.sh with this server's address and
 * the tarball's version and SHA-256 written in. Built once per process from the files on disk;
 * the same files always give the same bytes (tar.ts), so every process of a deployment publishes
 * the same hash.
 */

export const AGENT_DIR = fileURLToPath(new URL('../../../../../packages/agent', import.meta.url));

export interface AgentPackage {
  /** packages/agent's version and the first 12 hex digits of its files' hash: `0.1.0-1a2b…`. */
  version: string;
  /** `ferry-agent-<version>.tar.gz` */
  fileName: string;
  /** The gzipped tarball. */
  bytes: Buffer;
  /** SHA-256 of `bytes`, hex. */
  sha256: string;
  /** install.sh as packaged, before servedInstaller fills it in. */
  installer: string;
}

/** What goes in, relative to packages/agent: what install.sh copies, and its docs. */
function packagedFiles(dir: string): string[] {
  const python = fs
    .readdirSync(path.join(dir, 'ferry_agent'))
    .filter((name) => name.endsWith('.py'))
    .map((name) => `ferry_agent/${name}`);
  const units = fs.readdirSync(path.join(dir, 'systemd')).map((name) => `systemd/${name}`);
  const docs = ['README.md', 'PROTOCOL.md'].filter((name) => fs.existsSync(path.join(dir, name)));
  return [...python, ...units, 'install.sh', ...docs].sort();
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export function buildAgentPackage(dir: string = AGENT_DIR): AgentPackage {
  const files = packagedFiles(dir).map((name) => ({
    name,
    data: fs.readFileSync(path.join(dir, name)),
  }));
  const contentHash = createHash('sha256');
  for (const file of files) contentHash.update(`${file.name}\0${sha256(file.data)}\n`);
  const { version: base } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const version = `${base}-${contentHash.digest('hex').slice(0, 12)}`;
  const top = `ferry-agent-${version}`;
  const folders = [...new Set(files.map((f) => path.posix.dirname(f.name)))]
    .filter((name) => name !== '.')
    .sort();
  const entries: TarEntry[] = [
    { name: `${top}/`, mode: 0o755 },
    ...folders.map((name) => ({ name: `${top}/${name}/`, mode: 0o755 })),
    ...files.map((file) => ({
      name: `${top}/${file.name}`,
      data: file.data,
      mode: file.name.endsWith('.sh') ? 0o755 : 0o644,
    })),
  ];
  const bytes = gzipSync(tarball(entries), { level: 9 });
  const installer = files.find((file) => file.name === 'install.sh')!.data.toString('utf8');
  return { version, fileName: `${top}.tar.gz`, bytes, sha256: sha256(bytes), installer };
}

let built: AgentPackage | undefined;

/** The package of this process, built on first use. */
export function agentPackage(): AgentPackage {
  built ??= buildAgentPackage();
  return built;
}

/** A value for a single-quoted shell word. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * install.sh with `SERVED_BASE_URL=''`, `SERVED_VERSION=''` and `SERVED_SHA256=''` filled in. A
 * missing line is a broken build, not something to serve: it throws.
 */
export function servedInstaller(
  script: string,
  served: { baseUrl: string; version: string; sha256: string },
): string {
  let out = script;
  for (const [name, value] of [
    ['SERVED_BASE_URL', served.baseUrl],
    ['SERVED_VERSION', served.version],
    ['SERVED_SHA256', served.sha256],
  ] as const) {
    const line = new RegExp(`^${name}=''$`, 'm');
    if (!line.test(out)) throw new Error(`install.sh has no ${name}='' line to fill in`);
    out = out.replace(line, () => `${name}=${shellQuote(value)}`);
  }
  return out;
}

/** The one command the Dispatch card shows. */
export function installCommand(baseUrl: string): string {
  return `curl -fsSL ${baseUrl}/agent/install.sh | sudo bash -s -- --dispatch`;
}
