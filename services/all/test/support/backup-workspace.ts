import { spawn } from 'node:child_process';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { openRuntime, runServices } from '@ferry/http';
import { ingestManifest } from '@ferry/ingest-errors';
import { FormClient } from '@ferry/testing';
import { webManifest } from '@ferry/web';
import type { FerryConfig } from '../../src/config.js';

/**
 * What the backup test fills a workspace with, each through the product's own paths: the seed
 * command, members' messages through the room's form, tickets through the API, reports through
 * /ingest/errors, an agent through /agents/v1.
 */

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));

/** The seed command's JSON (README "Seed output"), the fields this test uses. */
const seedSchema = z.object({
  workspace: z.object({ id: z.string(), slug: z.string(), public_key: z.string() }),
  owner: z.object({ email: z.string(), password: z.string() }),
  member: z.object({ email: z.string(), password: z.string() }),
  room: z.object({ id: z.string(), url: z.string() }),
  tokens: z.object({ dispatch: z.string(), tenant_write: z.string(), tenant_read: z.string() }),
  incoming_webhook: z.object({ key: z.string() }),
  outgoing_webhook: z.object({ id: z.string(), secret: z.string() }),
});
export type Seeded = z.infer<typeof seedSchema>;

/** An npm script run as an operator runs it, from the repository root; its stdout and stderr. */
export function runNpm(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

/** `npm run seed -- --json --outgoing-url URL`: a demo workspace with a hook to `outgoingUrl`. */
export async function seedWorkspace(
  env: Record<string, string>,
  outgoingUrl: string,
): Promise<Seeded> {
  const seeded = await runNpm(['seed', '--', '--json', '--outgoing-url', outgoingUrl], env);
  if (seeded.code !== 0) throw new Error(`npm run seed failed (${seeded.code}):\n${seeded.stderr}`);
  return seedSchema.parse(JSON.parse(seeded.stdout));
}

/** The room's page path (`/w/<id>/<slug>/rooms/<room>`), from the seed's absolute URL. */
export function roomPath(seeded: Seeded): string {
  return new URL(seeded.room.url).pathname;
}

/** A member's message, posted with the room page's form as a signed-in person does. */
export async function postAsMember(client: FormClient, room: string, body: string): Promise<void> {
  const posted = await client.post(`${room}/messages`, { body }, { csrfFrom: room });
  if (posted.status !== 302) throw new Error(`Posting "${body}" answered ${posted.status}`);
}

/** An outgoing hook on the room, added on its settings page by an admin; the hook's id. */
export async function addHook(
  client: FormClient,
  room: string,
  targetUrl: string,
): Promise<string> {
  const page = `${room}/settings/webhooks/outgoing`;
  const added = await client.post(
    page,
    { target_url: targetUrl },
    { csrfFrom: `${room}/settings/webhooks` },
  );
  const hookId = /\/outgoing\/(owh_[0-9a-z]+)$/.exec(added.location ?? '')?.[1];
  if (added.status !== 303 || !hookId) {
    throw new Error(`Adding a hook answered ${added.status} to ${added.location ?? 'nowhere'}`);
  }
  return hookId;
}

export async function signedIn(url: string, who: { email: string; password: string }) {
  const client = new FormClient(url);
  await client.signIn(who.email, who.password);
  return client;
}

const bearer = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
});

/** POST /ingest/errors with the workspace's public key; the ids of the accepted reports. */
export async function reportErrors(
  url: string,
  seeded: Seeded,
  messages: readonly string[],
): Promise<string[]> {
  const answer = await fetch(`${url}/ingest/errors`, {
    method: 'POST',
    headers: {
      'x-service-tenant': seeded.workspace.public_key,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      source: 'ruby',
      errors: messages.map((message) => ({
        error_class: 'NoMethodError',
        message,
        backtrace: [`app/models/user.rb:10:in 'name'`],
        environment: 'production',
      })),
    }),
  });
  if (answer.status !== 202) throw new Error(`/ingest/errors answered ${answer.status}`);
  return z.object({ ids: z.array(z.string()) }).parse(await answer.json()).ids;
}

/** POST /api/v1/feedback: the new ticket's id. */
export async function fileTicket(url: string, seeded: Seeded, note: string): Promise<string> {
  const answer = await fetch(`${url}/api/v1/feedback`, {
    method: 'POST',
    headers: bearer(seeded.tokens.tenant_write),
    body: JSON.stringify({ note }),
  });
  if (answer.status !== 201) throw new Error(`Filing a ticket answered ${answer.status}`);
  return z.object({ id: z.string() }).parse(await answer.json()).id;
}

const AGENT_INSTALL_ID = 'backup-test-agent-01';

/** A call of the local agents' protocol (/agents/v1), as the agent `shop` makes it. */
export async function agentCall(url: string, seeded: Seeded, path: string, body: object) {
  const answer = await fetch(`${url}/agents/v1${path}`, {
    method: 'POST',
    headers: {
      ...bearer(seeded.tokens.dispatch),
      'x-service-install-id': AGENT_INSTALL_ID,
      'x-service-project': 'shop',
    },
    body: JSON.stringify(body),
  });
  if (answer.status !== 200) {
    throw new Error(`/agents/v1${path} answered ${answer.status}: ${await answer.text()}`);
  }
  return answer;
}

/** GET with a tenant:read token, parsed with `schema`; throws naming the status otherwise. */
export async function readApi<T>(
  url: string,
  seeded: Seeded,
  path: string,
  schema: z.ZodType<T>,
): Promise<T> {
  const answer = await fetch(`${url}${path}`, { headers: bearer(seeded.tokens.tenant_read) });
  if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
  return schema.parse(await answer.json());
}

export const messagesPageSchema = z.object({
  messages: z.array(
    z.object({
      id: z.string(),
      body: z.string(),
    }),
  ),
  next_before: z.string().nullable(),
});

export interface PartialFerry {
  url: string;
  stop(): Promise<void>;
}

/**
 * Pages, the API and the outbox relay (web) plus the ingest endpoint, without webhooks-out and
 * without the error writer: what they accept stays queued in Redis, a fan-out job per member
 * message and an ingest job per report request, as it would be when a backup is taken while
 * those workers lag behind.
 */
export async function startWithoutWorkers(settings: FerryConfig): Promise<PartialFerry> {
  const runtime = openRuntime(settings.base, 'ferry-backup-test', { warn: false });
  const running = await runServices(
    runtime,
    { name: 'ferry-backup-test', quietStart: true },
    (ctx) => [
      ingestManifest(ctx, settings.ingest, 'http'),
      webManifest(ctx, settings.web, { relay: true }),
    ],
  );
  const server = running.server as http.Server;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => running.stop(),
  };
}
