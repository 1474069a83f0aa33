import { SecretBox } from '@ferry/core';
import {
  createMember,
  createRoom,
  createWorkspace,
  FormClient,
  type Receiver,
  type TestContext,
} from '@ferry/testing';
import { createIncomingKey, createOutgoingHook } from '@ferry/workspace';

/**
 * The clients of the Sentinel failover test, one request per call, in turn:
 * - an error report to /ingest/errors (202: queued in Redis for the error writer);
 * - a post to an incoming webhook (201: stored in Postgres; webhook messages never go out to
 *   room hooks, SPEC.md's loop guard, so these are checked as stored);
 * - a member's message through the room's form (302 back to the room: stored, and owed to the
 *   room's outgoing hook to the loopback receiver through the outbox, Redis and webhooks-out).
 */
export type LoadKind = 'report' | 'post' | 'message';

const ACCEPTED: Record<LoadKind, number> = { report: 202, post: 201, message: 302 };

export interface Answer {
  kind: LoadKind;
  status: number;
  /** Report ids, the posted message's id, or the member message's body (what the hook sends). */
  ids: string[];
  sentAt: number;
  answeredAt: number;
}

export const isAccepted = (a: Answer): boolean => a.status === ACCEPTED[a.kind];

export interface FailoverClients {
  send: (n: number) => Promise<Answer>;
  /** What an accepted answer promised and is not there (yet). */
  missing: (answers: readonly Answer[]) => Promise<Record<LoadKind, string[]>>;
}

/**
 * A workspace with a room, an incoming key and an outgoing hook to `receiver` (made before Ferry
 * starts); `clients(url)` signs the member in on a running Ferry and gives the load's `send`.
 */
export async function prepareFailoverWorld(
  ctx: TestContext,
  receiver: Receiver,
): Promise<{ clients: (baseUrl: string) => Promise<FailoverClients> }> {
  const workspace = await createWorkspace(ctx.db);
  const admin = await createMember(ctx.db, workspace, { role: 'admin' });
  const room = await createRoom(ctx.db, workspace, { members: [admin] });
  const box = new SecretBox(ctx.config.APP_SECRET);
  const { rawKey } = await createIncomingKey(ctx.db, box, {
    workspaceId: workspace.id,
    roomId: room.id,
    name: 'Deploy bot',
    createdBy: admin.id,
  });
  await createOutgoingHook(ctx.db, box, {
    workspaceId: workspace.id,
    roomId: room.id,
    targetUrl: `${receiver.url}/hook`,
    createdBy: admin.id,
  });
  const roomPath = `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`;

  const stored = async (table: 'error_occurrences' | 'messages'): Promise<Set<string>> => {
    const rows =
      table === 'messages'
        ? await ctx.db.selectFrom('messages').select('id').where('room_id', '=', room.id).execute()
        : await ctx.db
            .selectFrom('error_occurrences')
            .select('id')
            .where('workspace_id', '=', workspace.id)
            .execute();
    return new Set(rows.map((row) => row.id));
  };
  const delivered = (): Set<string> =>
    new Set(
      receiver.requests.map(
        (r) => (JSON.parse(r.body) as { message: { body: string } }).message.body,
      ),
    );

  const clients = async (baseUrl: string): Promise<FailoverClients> => {
    const member = new FormClient(baseUrl);
    await member.signIn(admin.user.email, admin.user.password);
    // One signed-in browser posts one message at a time (its CSRF token and cookies are one
    // session's); the other lanes keep reports and posts coming meanwhile.
    let memberTurn: Promise<unknown> = Promise.resolve();
    const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
      const mine = memberTurn.then(work, work);
      memberTurn = mine.catch(() => undefined);
      return mine;
    };
    const timed = async (
      kind: LoadKind,
      request: () => Promise<{ status: number; ids: string[] }>,
    ): Promise<Answer> => {
      const sentAt = Date.now();
      const { status, ids } = await request();
      return { kind, status, ids, sentAt, answeredAt: Date.now() };
    };
    const send = (n: number): Promise<Answer> => {
      switch (n % 3) {
        case 0:
          return timed('report', async () => {
            const res = await fetch(`${baseUrl}/ingest/errors`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'x-service-tenant': workspace.public_key,
              },
              body: JSON.stringify({ error_class: `Failover${n % 4}`, message: `report ${n}` }),
            });
            const body = (await res.json().catch(() => ({}))) as { ids?: string[] };
            return { status: res.status, ids: body.ids ?? [] };
          });
        case 1:
          return timed('post', async () => {
            const res = await fetch(`${baseUrl}/wh/in/${rawKey}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ body: `post ${n}` }),
            });
            const body = (await res.json().catch(() => ({}))) as { message_id?: string };
            return { status: res.status, ids: body.message_id ? [body.message_id] : [] };
          });
        default:
          return timed('message', async () => {
            const text = `member message ${n}`;
            const res = await inTurn(() =>
              member.post(`${roomPath}/messages`, { body: text }, { csrfFrom: roomPath }),
            );
            // Accepted is the redirect back to the room; a refusal redirects elsewhere or errs.
            const back = res.status === 302 && (res.location ?? '').endsWith(roomPath);
            return { status: back ? 302 : res.status === 302 ? 0 : res.status, ids: [text] };
          });
      }
    };
    const missing = async (answers: readonly Answer[]): Promise<Record<LoadKind, string[]>> => {
      const promised = (kind: LoadKind) =>
        answers.filter((a) => a.kind === kind && isAccepted(a)).flatMap((a) => a.ids);
      const [reports, messages, sent] = [
        await stored('error_occurrences'),
        await stored('messages'),
        delivered(),
      ];
      return {
        report: promised('report').filter((id) => !reports.has(id)),
        post: promised('post').filter((id) => !messages.has(id)),
        message: promised('message').filter((body) => !sent.has(body)),
      };
    };
    return { send, missing };
  };
  return { clients };
}
