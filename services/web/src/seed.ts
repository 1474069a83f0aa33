import { randomBytes } from 'node:crypto';
import { SecretBox, type Config } from '@ferry/core';
import type { Db, TokenScope } from '@ferry/db';
import {
  createIncomingKey,
  createOutgoingHook,
  joinRoom,
  createToken,
  signUp,
  addMember,
  createWorkspace,
} from '@ferry/workspace';
import { workspaceBase } from './shared/layout.js';

export interface SeedResult {
  base_url: string;
  workspace: { id: string; slug: string; public_key: string };
  owner: { email: string; password: string };
  member: { email: string; password: string };
  guest: { email: string; password: string };
  room: { id: string; url: string };
  tokens: { dispatch: string; tenant_write: string; tenant_read: string; releases_write: string };
  incoming_webhook: { key: string; url: string };
  outgoing_webhook?: { id: string; secret: string };
}

export interface SeedOptions {
  /** Also create an outgoing hook on the room, delivering to this URL. */
  outgoingUrl?: string | undefined;
}

/**
 * A new demo workspace on every call, built through the same domain functions the pages use:
 * an owner, a member and a guest (all in the #general room), one token per scope, an incoming
 * webhook key made by the owner on the room, and (when asked) an outgoing hook on it.
 */
export async function seedDemo(
  db: Db,
  config: Pick<Config, 'PUBLIC_URL' | 'APP_SECRET'>,
  options: SeedOptions = {},
): Promise<SeedResult> {
  const run = randomBytes(4).toString('hex');
  const person = async (role: string) => {
    const credentials = {
      name: `Demo ${role[0]!.toUpperCase()}${role.slice(1)} ${run}`,
      email: `${role}-${run}@demo.ferry.test`,
      password: `demo-${role}-${randomBytes(6).toString('hex')}`,
    };
    const user = await signUp(db, credentials);
    return { user, credentials };
  };
  const owner = await person('owner');
  const member = await person('member');
  const guest = await person('guest');

  const {
    workspace,
    owner: ownerSeat,
    generalRoomId,
  } = await createWorkspace(db, owner.user, `Demo ${run}`);
  const memberSeat = await addMember(db, workspace.id, member.credentials.email, 'member');
  const guestSeat = await addMember(db, workspace.id, guest.credentials.email, 'guest');
  await joinRoom(db, generalRoomId, memberSeat.id);
  await joinRoom(db, generalRoomId, guestSeat.id);

  const token = async (name: string, scope: TokenScope) =>
    (await createToken(db, workspace.id, ownerSeat.id, { name, scopes: [scope] })).raw;

  const box = new SecretBox(config.APP_SECRET);
  const incoming = await createIncomingKey(db, box, {
    workspaceId: workspace.id,
    roomId: generalRoomId,
    name: 'Demo integration',
    createdBy: ownerSeat.id,
  });
  const outgoing = options.outgoingUrl
    ? await createOutgoingHook(db, box, {
        workspaceId: workspace.id,
        roomId: generalRoomId,
        targetUrl: options.outgoingUrl,
        createdBy: ownerSeat.id,
      })
    : undefined;

  const base = config.PUBLIC_URL;
  return {
    base_url: base,
    workspace: { id: workspace.id, slug: workspace.slug, public_key: workspace.public_key },
    owner: { email: owner.credentials.email, password: owner.credentials.password },
    member: { email: member.credentials.email, password: member.credentials.password },
    guest: { email: guest.credentials.email, password: guest.credentials.password },
    room: { id: generalRoomId, url: `${base}${workspaceBase(workspace)}/rooms/${generalRoomId}` },
    tokens: {
      dispatch: await token('Demo local agent', 'platform:dispatch'),
      tenant_write: await token('Demo write', 'tenant:write'),
      tenant_read: await token('Demo read', 'tenant:read'),
      releases_write: await token('Demo sentry-cli', 'releases:write'),
    },
    incoming_webhook: { key: incoming.rawKey, url: `${base}/wh/in/${incoming.rawKey}` },
    ...(outgoing ? { outgoing_webhook: { id: outgoing.hook.id, secret: outgoing.secret } } : {}),
  };
}
