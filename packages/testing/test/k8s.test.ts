import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const checker = path.join(repoRoot, 'infra', 'check-k8s.mjs');
/** Each run type-checks every object (infra/k8s-schema.mjs): seconds of CPU on a loaded host. */
const CHECK_TIMEOUT_MS = 120_000;

async function check(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [checker, ...args], {
      timeout: CHECK_TIMEOUT_MS,
    });
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number | null; stderr: string; killed?: boolean };
    if (failed.killed) throw new Error(`check-k8s.mjs gave no verdict in ${CHECK_TIMEOUT_MS} ms`);
    return { code: failed.code ?? -1, out: failed.stderr };
  }
}

/** kubectl's own kustomize, where kubectl is installed (it is not required anywhere). */
function kubectlPath(): string | undefined {
  try {
    return (
      execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

describe('infra/check-k8s.mjs (pnpm check:k8s)', () => {
  let dir: string;
  /** A fresh copy of infra/k8s, to break one thing in; returns its example overlay. */
  let copies = 0;
  async function copyOfManifests(): Promise<{ base: string; overlay: string }> {
    const copy = path.join(dir, `k8s-${copies++}`);
    await fs.cp(path.join(repoRoot, 'infra', 'k8s'), copy, { recursive: true });
    return { base: path.join(copy, 'base'), overlay: path.join(copy, 'overlays', 'example') };
  }
  async function edit(file: string, change: (text: string) => string): Promise<void> {
    const before = await fs.readFile(file, 'utf8');
    const after = change(before);
    // A replace that matched nothing would test nothing.
    expect(after, `the edit of ${file} changed nothing`).not.toBe(before);
    await fs.writeFile(file, after);
  }

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ferry-k8s-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it(
    'passes the repository overlays: schema-valid, consistent, as compose runs them',
    async () => {
      const result = await check();
      expect(result).toMatchObject({ code: 0 });
      expect(result.out).toContain('infra/k8s/overlays/example renders');
    },
    CHECK_TIMEOUT_MS,
  );

  it(
    'names schema errors: a Deployment without its selector, a port that is not a number',
    async () => {
      const { base, overlay } = await copyOfManifests();
      await edit(path.join(base, 'webhooks-in.yaml'), (text) =>
        text
          .replace(/ {2}selector:\n {4}matchLabels:\n(?: {6}.*\n)+/, '')
          .replace('containerPort: 3000', "containerPort: 'http'"),
      );
      const result = await check(overlay);
      expect(result.code).toBe(1);
      expect(result.out).toContain(
        'Deployment/webhooks-in: /spec must have required property selector',
      );
      expect(result.out).toContain(
        'Deployment/webhooks-in: /spec/template/spec/containers/0/ports/0/containerPort must be integer',
      );
    },
    CHECK_TIMEOUT_MS,
  );

  it(
    'names a field the API does not have (the schemas let it through)',
    async () => {
      const { base, overlay } = await copyOfManifests();
      await edit(path.join(base, 'web.yaml'), (text) =>
        text.replace('readinessProbe:', 'readinesProbe:'),
      );
      const result = await check(overlay);
      expect(result.code).toBe(1);
      expect(result.out).toMatch(/Deployment\/web: .*'"readinesProbe"' does not exist in type/);
      // And the rule that every HTTP Deployment is probed for readiness.
      expect(result.out).toContain(
        'Deployment/web container web: readinessProbe must GET /readyz on port http',
      );
    },
    CHECK_TIMEOUT_MS,
  );

  it(
    'names drift from docker-compose.yml: command, a role variable, a value, a missing service',
    async () => {
      const { base, overlay } = await copyOfManifests();
      await edit(path.join(base, 'relay.yaml'), (text) =>
        text.replace('.build/services/relay/src/main.mjs', '.build/services/relay/src/main.js'),
      );
      await edit(path.join(base, 'ingest-errors-worker.yaml'), (text) =>
        text.replace(/ {10}env:\n {12}- name: INGEST_ROLE\n {14}value: 'worker'\n/, ''),
      );
      await edit(path.join(base, 'web.yaml'), (text) =>
        text.replace(
          "name: WEB_RELAY\n              value: 'false'",
          "name: WEB_RELAY\n              value: 'true'",
        ),
      );
      await edit(path.join(base, 'kustomization.yaml'), (text) =>
        text.replace('  - dispatch-worker.yaml\n', ''),
      );
      const result = await check(overlay);
      expect(result.code).toBe(1);
      expect(result.out).toContain(
        'Deployment/relay (compose relay): command ["node","--enable-source-maps",".build/services/relay/src/main.js"] is not compose\'s',
      );
      expect(result.out).toContain(
        'Deployment/ingest-errors-worker (compose ingest-errors-worker): INGEST_ROLE is not set',
      );
      expect(result.out).toContain(
        'Deployment/web (compose web): WEB_RELAY="true", compose has "false"',
      );
      expect(result.out).toContain('compose service dispatch-worker has no Deployment');
    },
    CHECK_TIMEOUT_MS,
  );

  it(
    'names pieces that do not fit: a drain cut short, no preStop, a route and a Secret nowhere',
    async () => {
      const { base, overlay } = await copyOfManifests();
      await edit(path.join(base, 'agent-gateway.yaml'), (text) =>
        text
          .replace('terminationGracePeriodSeconds: 35', 'terminationGracePeriodSeconds: 20')
          .replace(/ {10}lifecycle:\n {12}preStop:\n {14}sleep:\n {16}seconds: 5\n/, ''),
      );
      await edit(path.join(base, 'ingress.yaml'), (text) =>
        text.replace('name: webhooks-in\n', 'name: webhooks-inn\n'),
      );
      await edit(path.join(base, 'dispatch.yaml'), (text) =>
        text.replace('name: ferry-secrets', 'name: ferry-secret'),
      );
      const result = await check(overlay);
      expect(result.code).toBe(1);
      expect(result.out).toContain(
        'Deployment/agent-gateway container agent-gateway: behind Service agent-gateway but no preStop wait',
      );
      expect(result.out).toContain(
        'Deployment/agent-gateway container agent-gateway: terminationGracePeriodSeconds 20 must exceed preStop + drain (25 s)',
      );
      expect(result.out).toContain(
        'Ingress/ferry: /wh/in/ routes to Service webhooks-inn, not defined',
      );
      expect(result.out).toContain(
        'Deployment/dispatch container dispatch: envFrom secretRef ferry-secret is not defined',
      );
    },
    CHECK_TIMEOUT_MS,
  );

  it(
    'refuses a kustomization field it would not render as kustomize does',
    async () => {
      const { overlay } = await copyOfManifests();
      await edit(path.join(overlay, 'kustomization.yaml'), (text) =>
        text.replace('namespace: ferry\n', 'namespace: ferry\ncommonLabels:\n  team: x\n'),
      );
      const result = await check(overlay);
      expect(result.code).toBe(1);
      expect(result.out).toContain('cannot render');
      expect(result.out).toContain('commonLabels not supported');
    },
    CHECK_TIMEOUT_MS,
  );

  const kubectl = kubectlPath();
  it.skipIf(!kubectl)(
    'renders exactly what `kubectl kustomize` renders (where kubectl is installed)',
    async () => {
      const overlay = path.join(repoRoot, 'infra', 'k8s', 'overlays', 'example');
      const { stdout } = await run(kubectl!, ['kustomize', overlay], { timeout: CHECK_TIMEOUT_MS });
      const theirs = parseAllDocuments(stdout).map((document) => document.toJS() as object);
      const { renderKustomization } = (await import(
        path.join(repoRoot, 'infra', 'k8s-render.mjs')
      )) as { renderKustomization: (dir: string) => object[] };
      const ours = renderKustomization(overlay);
      const key = (object: object): string => {
        const { kind, metadata } = object as { kind: string; metadata: { name: string } };
        return `${kind}/${metadata.name}`;
      };
      expect(ours.map(key).sort()).toEqual(theirs.map(key).sort());
      for (const object of theirs) {
        const same = ours.find((candidate) => key(candidate) === key(object));
        expect(isDeepStrictEqual(same, object), `${key(object)} differs`).toBe(true);
        if (!isDeepStrictEqual(same, object)) expect(same).toEqual(object);
      }
    },
    CHECK_TIMEOUT_MS,
  );
});
