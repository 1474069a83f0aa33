import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, createMember, createWorkspace, waitUntil } from '@ferry/testing';
import { startFerry, type FerryHarness } from './support/ferry.js';

/**
 * A fake systemctl: logs its arguments; `enable --now service-dispatch@ID` starts the installed
 * agent as the unit would (its env file, the PYTHONPATH the installed unit names), so a wrong
 * install shows as an agent that never connects.
 */
const FAKE_SYSTEMCTL = `#!/bin/bash
root=$(dirname "$0")
echo "$@" >> "$root/systemctl.log"
if [ "$1" = enable ] && [ "$2" = --now ]; then
  id=\${3#service-dispatch@}
  unit="$root/units/service-dispatch@.service"
  pythonpath=$(sed -n 's/^Environment=PYTHONPATH=//p' "$unit")
  (
    set -a
    . "$root/etc/$id.env"
    set +a
    cd /
    PYTHONPATH=$pythonpath exec python3 -m ferry_agent
  ) >"$root/agent-$id.log" 2>&1 </dev/null &
  echo $! > "$root/agent-$id.pid"
fi
exit 0
`;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * bash -c `script` in a session of its own (setsid): no terminal, so install.sh, piped from curl,
 * reads its answers from what follows it on stdin, as a script would feed them.
 */
function sh(script: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gave up after 120 s waiting for: ${script}\n${stdout}\n${stderr}`));
    }, 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A temporary root for install.sh: etc, units, opt, var and the fake systemctl. */
function installRoot(tmp: string, name: string) {
  const root = path.join(tmp, name);
  fs.mkdirSync(root, { recursive: true });
  const systemctl = path.join(root, 'systemctl');
  fs.writeFileSync(systemctl, FAKE_SYSTEMCTL, { mode: 0o755 });
  const env = {
    SERVICE_ETC_DIR: path.join(root, 'etc'),
    SERVICE_UNIT_DIR: path.join(root, 'units'),
    SERVICE_INSTALL_PREFIX: path.join(root, 'opt'),
    SERVICE_STATE_ROOT: path.join(root, 'var'),
    SYSTEMCTL: systemctl,
    SERVICE_RUN_AS: '',
    HOME: root,
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const log = () => {
    const file = path.join(root, 'systemctl.log');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
  };
  return { root, env, log };
}

/**
 * The one-command install (issue 42): `curl -fsSL <PUBLIC_URL>/agent/install.sh | bash -s --
 * --dispatch` against `pnpm start`, into a temporary root with a fake systemctl. The agent it
 * installs (from the served tarball, hash checked) connects; `--update` reinstalls the newest
 * tarball from the same Ferry; a tarball whose hash does not match is refused.
 */
describe('the served installer, end to end', () => {
  let ferry: FerryHarness;
  let tmp: string;
  const pids: string[] = [];

  beforeAll(async () => {
    ferry = await startFerry();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-agent-install-'));
  });
  afterAll(async () => {
    for (const file of pids) {
      const pid = Number(fs.readFileSync(file, 'utf8'));
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await ferry?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('installs from the served tarball, connects, and updates from the same Ferry', async () => {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    await createMember(db, workspace, { role: 'owner' });
    const token = await createApiToken(db, workspace, { scopes: ['platform:dispatch'] });
    const repo = path.join(tmp, 'code', 'shop');
    fs.mkdirSync(repo, { recursive: true });
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
    const { root, env, log } = installRoot(tmp, 'good');
    const latest = (await (await fetch(`${ferry.url}/agent/latest.json`)).json()) as {
      version: string;
      sha256: string;
    };

    // Host (empty: the Ferry it came from), token, checkout, confirm, CLI, name.
    const answers = path.join(root, 'answers');
    fs.writeFileSync(answers, ['', token.raw, repo, 'y', 'claude', 'shopbot', ''].join('\n'));
    const installed = await sh(
      `set -o pipefail; (curl -fsSL "$FERRY/agent/install.sh"; cat "$ANSWERS") | bash -s -- --dispatch`,
      { ...env, FERRY: ferry.url, ANSWERS: answers },
    );
    const output = installed.stdout + installed.stderr;
    expect(installed.code, output).toBe(0);
    expect(output).toContain(`Downloading the Ferry agent ${latest.version} from ${ferry.url}`);
    expect(output).toContain(`SHA-256 ${latest.sha256}: matches.`);
    expect(output).toContain("Connect to workspace 'Acme Shop'");
    expect(output).not.toContain(token.raw);

    const [envFile] = fs.readdirSync(env.SERVICE_ETC_DIR);
    const id = envFile!.replace(/\.env$/, '');
    const settings = fs.readFileSync(path.join(env.SERVICE_ETC_DIR, envFile!), 'utf8');
    expect(settings).toContain(`SERVICE_URL=${ferry.url}\n`);
    expect(settings).toContain('PROJECT=shop\n');
    const prefix = env.SERVICE_INSTALL_PREFIX;
    expect(fs.existsSync(path.join(prefix, 'ferry_agent', 'agent.py'))).toBe(true);
    // --update's source is the Ferry, not the temporary folder the tarball was unpacked in.
    expect(fs.readFileSync(path.join(prefix, 'SOURCE'), 'utf8').trim()).toBe(ferry.url);
    expect(log()).toEqual(['daemon-reload', `enable --now service-dispatch@${id}`]);
    pids.push(path.join(root, `agent-${id}.pid`));

    await waitUntil(
      async () => {
        const agent = await db
          .selectFrom('agents')
          .select(['name', 'stream_seen_at'])
          .where('workspace_id', '=', workspace.id)
          .executeTakeFirst();
        return agent?.name === 'shopbot' && agent.stream_seen_at !== null;
      },
      () =>
        `the installed agent to connect; it printed:\n${fs.readFileSync(path.join(root, `agent-${id}.log`), 'utf8')}`,
      60_000,
      100,
    );

    // --update, run as an owner would, from the installed copy: the newest tarball from the
    // Ferry it came from (a file lost since is back), then every instance restarted.
    fs.rmSync(path.join(prefix, 'ferry_agent', 'whoami.py'));
    const updated = await sh(`bash "$PREFIX_DIR/install.sh" --update`, {
      ...env,
      PREFIX_DIR: prefix,
    });
    expect(updated.code, updated.stdout + updated.stderr).toBe(0);
    expect(updated.stdout).toContain(`Asking ${ferry.url} for the newest agent`);
    expect(updated.stdout).toContain('restarted 1 instance(s)');
    expect(fs.existsSync(path.join(prefix, 'ferry_agent', 'whoami.py'))).toBe(true);
    expect(log()).toContain(`restart service-dispatch@${id}`);
  });

  it('refuses a tarball whose SHA-256 does not match, and installs nothing', async () => {
    const { root, env, log } = installRoot(tmp, 'tampered');
    const served = await (await fetch(`${ferry.url}/agent/install.sh`)).text();
    const tampered = served.replace(
      /^SERVED_SHA256='[0-9a-f]{64}'$/m,
      `SERVED_SHA256='${'0'.repeat(64)}'`,
    );
    expect(tampered).not.toBe(served);
    const script = path.join(root, 'install.sh');
    fs.writeFileSync(script, tampered);
    const answers = path.join(root, 'answers');
    fs.writeFileSync(answers, '\n');
    const refused = await sh(`(cat "$SCRIPT"; cat "$ANSWERS") | bash -s -- --dispatch`, {
      ...env,
      SCRIPT: script,
      ANSWERS: answers,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /error: refused the agent tarball http:\S+\/agent\/ferry-agent-[\w.-]+\.tar\.gz: its SHA-256 is [0-9a-f]{64}, not 0{64} as the installer expects\. Nothing was installed/,
    );
    expect(fs.existsSync(env.SERVICE_INSTALL_PREFIX)).toBe(false);
    expect(fs.existsSync(env.SERVICE_ETC_DIR)).toBe(false);
    expect(log()).toEqual([]);
  });

  it('serves install.sh, latest.json and only the current tarball', async () => {
    const latest = (await (await fetch(`${ferry.url}/agent/latest.json`)).json()) as {
      version: string;
      sha256: string;
      url: string;
    };
    const script = await fetch(`${ferry.url}/agent/install.sh`);
    expect(script.headers.get('content-type')).toMatch(/^text\/x-shellscript/);
    const text = await script.text();
    expect(text).toContain(`SERVED_BASE_URL='${ferry.url}'`);
    expect(text).toContain(`SERVED_VERSION='${latest.version}'`);
    const tarball = await fetch(latest.url);
    expect(tarball.status).toBe(200);
    const bytes = Buffer.from(await tarball.arrayBuffer());
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(latest.sha256);
    const other = await fetch(`${ferry.url}/agent/ferry-agent-0.0.1-000000000000.tar.gz`);
    expect(other.status).toBe(404);
    expect(await other.text()).toContain(`This Ferry serves ferry-agent-${latest.version}.tar.gz`);
  });
});
