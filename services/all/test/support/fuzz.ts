import fc from 'fast-check';
import { SecretBox } from '@ferry/core';
import {
  createApiToken,
  createMember,
  createRoom,
  createWorkspace,
  FormClient,
} from '@ferry/testing';
import { createIncomingKey } from '@ferry/workspace';
import { expect } from 'vitest';
import { startFerry, type FerryHarness } from './ferry.js';

/**
 * The fuzz suites' generators and world (fuzz-api.test.ts, fuzz-forms.test.ts). Hostile input to every public JSON endpoint and every form of `pnpm start`: at least 1,000
 * bodies each, generated (seeded, so a failure replays) from strings with NUL, lone surrogates and
 * control characters, numbers like 1e400, deep nesting, prototype keys, duplicate keys, wrong
 * content types and oversized bodies. Whatever the answer, it is never a 5xx, and the service is
 * still ready afterwards.
 */
export const PER_TARGET = 1_000;
const CONCURRENCY = 16;
export const SEED = 20261122;

export const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00y',
    '\ud83d',
    '\u0000\ud800\udfff',
    '',
    ' ',
    '<script>alert(1)</script>',
    '${7*7}',
    "'; drop table users; --",
    '\u202e\u200b',
    'x'.repeat(70_000),
  ),
);

export const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileText,
    fc.constantFrom(0, -1, 1e308, -0, null, true, false, 2 ** 53 + 1),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(hostileText, fc.constantFrom('__proto__', 'constructor', 'prototype')),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

/** A JSON object with the endpoint's own field names, each holding something hostile. */
export function shaped(fields: readonly string[]): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(fc.constantFrom(...fields), hostileValue), { maxLength: fields.length + 2 })
    .map((pairs) => {
      // Written by hand so keys may repeat (duplicate keys) and __proto__ stays a plain key.
      const members = pairs.map(
        ([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`,
      );
      return `{${members.join(',')}}`;
    });
}

export const rawJunk = fc.constantFrom(
  '',
  'null',
  '[]',
  '"string"',
  '1e400',
  '{"a":1e400}',
  '{"body":1e400,"note":-1e400}',
  '{"a":1,"a":2}',
  '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
  '{',
  '{"a":"\\ud800"}',
  '{"body":"\\u0000","note":"\\u0000"}',
  '\u0000',
  '\ufeff{}',
  '[{"errors":[]}]',
  `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
  `${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}`,
  'x'.repeat(600 * 1024),
);

export const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/xml',
  undefined,
);

export function percent(value: string): string {
  return [...Buffer.from(value, 'utf8')]
    .map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
    .join('');
}

export interface Sent {
  status: number;
  text: string;
}

/** Runs `send` over every input with a bounded number in flight; returns every answer. */
export async function sendAll<T>(
  inputs: readonly T[],
  send: (input: T) => Promise<Sent>,
): Promise<Sent[]> {
  const answers: Sent[] = [];
  let next = 0;
  async function lane(): Promise<void> {
    while (next < inputs.length) {
      const input = inputs[next++]!;
      answers.push(await send(input));
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return answers;
}

export function expectNoServerError(answers: readonly Sent[], what: string): void {
  expect(answers).toHaveLength(answers.length);
  const failures = answers.filter((a) => a.status >= 500);
  // The seed is in the failure so that the same inputs can be replayed (fast-check's `seed`).
  expect({ what, seed: SEED, failures: failures.slice(0, 3) }).toEqual({
    what,
    seed: SEED,
    failures: [],
  });
  for (const answer of answers) expect(answer.text).not.toMatch(/\n\s+at .+:\d+:\d+\)?/);
}

export interface FuzzWorld {
  ferry: FerryHarness;
  tenant: string;
  apiToken: string;
  webhookKey: string;
  /** Signed in as the workspace's owner. */
  client: FormClient;
  base: string;
  roomPath: string;
  postRaw(
    path: string,
    body: string,
    contentType: string | undefined,
    headers?: Record<string, string>,
  ): Promise<Sent>;
  close(): Promise<void>;
}

/** pnpm start with a workspace, an owner signed in, an API token and an incoming key. */
export async function startFuzzWorld(): Promise<FuzzWorld> {
  const ferry = await startFerry({
    // Let the bodies reach their parsers rather than the rate limits.
    INGEST_RATE_LIMIT_PER_MINUTE: '1000000',
    WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000',
    // Sign-in and sign-up too: at the default 60 a minute, 94% of their fuzz posts were answered
    // 429 by the throttle and never reached the form's validation.
    SIGNIN_ATTEMPTS_PER_MINUTE: '1000000',
    SIGNIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '1000000',
  });
  const { db } = ferry.ctx;
  const workspace = await createWorkspace(db);
  const owner = await createMember(db, workspace, { role: 'owner' });
  const room = await createRoom(db, workspace, { name: 'general', members: [owner] });
  const apiToken = (await createApiToken(db, workspace, { scopes: ['tenant:write'] })).raw;
  const { rawKey } = await createIncomingKey(db, new SecretBox(ferry.ctx.config.APP_SECRET), {
    workspaceId: workspace.id,
    roomId: room.id,
    name: 'Fuzz',
    createdBy: owner.id,
  });
  const client = new FormClient(ferry.url);
  await client.signIn(owner.user.email, owner.user.password);
  const base = `/w/${workspace.id}/${workspace.slug}`;
  return {
    ferry,
    tenant: workspace.public_key,
    apiToken,
    webhookKey: rawKey,
    client,
    base,
    roomPath: `${base}/rooms/${room.id}`,
    async postRaw(path, body, contentType, headers = {}) {
      const res = await fetch(`${ferry.url}${path}`, {
        method: 'POST',
        headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers },
        body,
      });
      return { status: res.status, text: await res.text() };
    },
    close: () => ferry.close(),
  };
}

/**
 * Posts PER_TARGET hostile forms (seeded) to each path with a valid CSRF token taken once, so the
 * posts reach validation; returns each path's answers, already checked for no 5xx.
 */
export async function fuzzForms(
  world: FuzzWorld,
  forms: readonly (readonly [path: string, fields: readonly string[]])[],
): Promise<Map<string, Sent[]>> {
  const csrf = await world.client.csrf(world.base);
  const answered = new Map<string, Sent[]>();
  for (const [path, fields] of forms) {
    const posts = fc.sample(
      fc.array(fc.tuple(fc.constantFrom(...fields), hostileText), { maxLength: 5 }),
      { numRuns: PER_TARGET, seed: SEED },
    );
    const answers = await sendAll(posts, (pairs) => {
      const body = new URLSearchParams(pairs.map(([k, v]) => [k, v.slice(0, 30_000)]));
      body.set('_csrf', csrf);
      return world.client
        .post(path, Object.fromEntries(body), {})
        .then((r) => ({ status: r.status, text: r.text }));
    });
    expectNoServerError(answers, `form ${path}`);
    answered.set(path, answers);
  }
  return answered;
}
