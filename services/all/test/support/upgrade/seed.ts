import { SecretBox } from '@ferry/core';
import type { Db } from '@ferry/db';
import { createApiToken, createMember, createRoom, createWorkspace } from '@ferry/testing';
import { createIncomingKey, createOutgoingHook } from '@ferry/workspace';

export interface UpgradeWorld {
  workspace: { id: string; slug: string; public_key: string };
  admin: { id: string; user: { email: string; password: string } };
  roomId: string;
  incomingKey: string;
  agentToken: string;
  /** An API client's token (tenant:write) that files feedback tickets for the agent. */
  writerToken: string;
}

/**
 * What the clients of the upgrade test use, written by the product's own functions (the ones its
 * pages call) into N's schema: a workspace, an admin in a room, the room's incoming key, an
 * outgoing hook on it to the test's receiver, an agent's token, and an API client's token that
 * files feedback (which the agent is handed as work).
 */
export async function seedUpgradeWorld(
  db: Db,
  appSecret: string,
  receiverUrl: string,
): Promise<UpgradeWorld> {
  const box = new SecretBox(appSecret);
  const workspace = await createWorkspace(db);
  const admin = await createMember(db, workspace, { role: 'admin' });
  const room = await createRoom(db, workspace, { members: [admin] });
  const { rawKey } = await createIncomingKey(db, box, {
    workspaceId: workspace.id,
    roomId: room.id,
    name: 'Deploy bot',
    createdBy: admin.id,
  });
  await createOutgoingHook(db, box, {
    workspaceId: workspace.id,
    roomId: room.id,
    targetUrl: `${receiverUrl}/hook`,
    createdBy: admin.id,
  });
  const agentToken = await createApiToken(db, workspace, { scopes: ['platform:dispatch'] });
  const writerToken = await createApiToken(db, workspace, { scopes: ['tenant:write'] });
  return {
    workspace,
    admin,
    roomId: room.id,
    incomingKey: rawKey,
    agentToken: agentToken.raw,
    writerToken: writerToken.raw,
  };
}

/** A signed-in session through `url`: its cookie, and the CSRF token its pages carry. */
export async function signIn(
  url: string,
  email: string,
  password: string,
): Promise<{ cookie: string; csrf: string }> {
  const csrfOf = (html: string): string =>
    /name="csrf-token" content="([^"]+)"/.exec(html)?.[1] ?? '';
  const page = await fetch(`${url}/login`);
  const anonymous = page.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { cookie: anonymous, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password, _csrf: csrfOf(await page.text()) }),
    redirect: 'manual',
  });
  if (res.status !== 302) throw new Error(`sign-in failed: ${res.status}`);
  const cookie = res.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const home = await fetch(`${url}/`, { headers: { cookie } });
  const csrf = csrfOf(await home.text());
  if (!csrf) throw new Error(`no CSRF token on / after sign-in (status ${home.status})`);
  return { cookie, csrf };
}
