import { z } from 'zod';
import { AppError, isId, newId, type SecretBox } from '@ferry/core';
import type { Agent, AgentWork, Db } from '@ferry/db';
import {
  AGENT_LIMITS,
  createdInLastHour,
  hourlyLimitReached,
  lockCreations,
} from '../workspaces/creation-limits.js';

/**
 * Local agents as every service sees them (DESIGN.md "Local agents"): who they are, whether they
 * are online, their settings. The live connection itself is services/agent-gateway's.
 */

/** Online = a heartbeat within 60 s and a stream the gateway saw open within this long. */
export const HEARTBEAT_WINDOW_MS = 60_000;
/** The gateway refreshes `stream_seen_at` with every keepalive (15 s) of an open stream. */
export const STREAM_WINDOW_MS = 45_000;

export function agentOnline(
  agent: Pick<Agent, 'last_heartbeat_at' | 'stream_seen_at'>,
  now = new Date(),
): boolean {
  const fresh = (at: Date | null, windowMs: number) =>
    at !== null && now.getTime() - at.getTime() <= windowMs;
  return (
    fresh(agent.last_heartbeat_at, HEARTBEAT_WINDOW_MS) &&
    fresh(agent.stream_seen_at, STREAM_WINDOW_MS)
  );
}

/** `X-Service-Install-Id`: written once at install, 8-64 characters of A-Za-z0-9_-. */
export const installIdSchema = z
  .string('Send the instance id in the X-Service-Install-Id header.')
  .regex(/^[A-Za-z0-9_-]{8,64}$/, 'Use 8 to 64 letters, digits, "_" or "-".');

export const AGENT_NAME_MAX = 40;

/**
 * An @-mentionable name: lower case letters, digits, `-` and `_`, starting with a letter or digit
 * ("My Shop!" -> my-shop). Empty when nothing usable is left.
 */
export function toAgentName(input: string): string {
  return input
    .trim()
    .replace(/^@+/, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, AGENT_NAME_MAX);
}

export const agentNameSchema = z
  .string('Give the agent a name.')
  .trim()
  .max(AGENT_NAME_MAX, `At most ${AGENT_NAME_MAX} characters.`)
  .transform(toAgentName)
  .refine((name) => name.length > 0, 'Use letters or digits: the name is @-mentioned.');

async function freeName(trx: Db, workspaceId: string, wanted: string): Promise<string> {
  const base = toAgentName(wanted) || 'agent';
  const taken = new Set(
    (
      await trx
        .selectFrom('agents')
        .select((eb) => eb.fn('lower', ['name']).as('name'))
        .where('workspace_id', '=', workspaceId)
        .execute()
    ).map((row) => String(row.name)),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, AGENT_NAME_MAX - String(n).length - 1)}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export interface RegisterInput {
  workspaceId: string;
  installId: string;
  /** SERVICE_AGENT_NAME, else PROJECT, else "agent"; made unique in the workspace. */
  name?: string | undefined;
  project?: string | undefined;
  tokenId: string;
}

/**
 * The agent for (workspace, install id), registering it on first contact: its own room (kind
 * `agent`) and a unique name; the workspace's first agent receives new feedback. Two processes
 * with one install id get the same agent: registrations of a workspace are serialised. A new
 * agent must fit the workspace's limits (AGENT_LIMITS), else a 429 AppError says which one.
 */
export async function registerAgent(db: Db, input: RegisterInput): Promise<Agent> {
  const existing = await db
    .selectFrom('agents')
    .selectAll()
    .where('workspace_id', '=', input.workspaceId)
    .where('install_id', '=', input.installId)
    .executeTakeFirst();
  if (existing) {
    if (existing.token_id !== input.tokenId) {
      await db
        .updateTable('agents')
        .set({ token_id: input.tokenId })
        .where('id', '=', existing.id)
        .execute();
    }
    return { ...existing, token_id: input.tokenId };
  }
  return db.transaction().execute(async (trx) => {
    await lockCreations(trx, 'agents', input.workspaceId);
    const again = await trx
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', input.workspaceId)
      .where('install_id', '=', input.installId)
      .executeTakeFirst();
    if (again) return again;
    await refuseBeyondAgentLimits(trx, input.workspaceId);
    const name = await freeName(trx, input.workspaceId, input.name || input.project || 'agent');
    const first = !(await trx
      .selectFrom('agents')
      .select('id')
      .where('workspace_id', '=', input.workspaceId)
      .executeTakeFirst());
    const room = await trx
      .insertInto('rooms')
      .values({
        id: newId('room'),
        workspace_id: input.workspaceId,
        kind: 'agent',
        name,
        created_by: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return trx
      .insertInto('agents')
      .values({
        id: newId('agent'),
        workspace_id: input.workspaceId,
        install_id: input.installId,
        name,
        room_id: room.id,
        receives_feedback: first,
        token_id: input.tokenId,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

async function refuseBeyondAgentLimits(trx: Db, workspaceId: string): Promise<void> {
  const registered = await trx
    .selectFrom('agents')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  if (Number(registered.count) >= AGENT_LIMITS.registered) {
    throw new AppError(
      'limit_reached',
      `This workspace has ${AGENT_LIMITS.registered} agents, the most it may have. Run new instances with the install id (SERVICE_INSTALL_ID) of an agent you no longer use.`,
    );
  }
  const recent = await createdInLastHour(trx, 'agents', workspaceId);
  if (recent.count >= AGENT_LIMITS.perHour) {
    throw hourlyLimitReached(
      AGENT_LIMITS.perHour,
      'new agents',
      recent.retryAfterSeconds,
      'Agents already registered keep working.',
    );
  }
}

export interface AgentStatus {
  id: string;
  name: string;
  roomId: string;
  online: boolean;
  /** Seconds since the last heartbeat; null when it never sent one. */
  heartbeatAgeSeconds: number | null;
  activity: string | null;
  /** The coding CLI and its version, as the agent last reported it. */
  cli: string | null;
  receivesFeedback: boolean;
}

export function agentStatus(agent: Agent, now = new Date()): AgentStatus {
  return {
    id: agent.id,
    name: agent.name,
    roomId: agent.room_id,
    online: agentOnline(agent, now),
    heartbeatAgeSeconds: agent.last_heartbeat_at
      ? Math.max(0, Math.round((now.getTime() - agent.last_heartbeat_at.getTime()) / 1000))
      : null,
    activity: agent.activity,
    cli: agent.cli,
    receivesFeedback: agent.receives_feedback,
  };
}

export function listAgents(db: Db, workspaceId: string): Promise<Agent[]> {
  return db
    .selectFrom('agents')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findAgent(
  db: Db,
  workspaceId: string,
  agentId: string,
): Promise<Agent | undefined> {
  if (!isId(agentId, 'agent')) return undefined;
  return db
    .selectFrom('agents')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', agentId)
    .executeTakeFirst();
}

export type WorkState = 'queued' | 'delivered' | 'acked';

export function workState(work: Pick<AgentWork, 'delivered_at' | 'acked_at'>): WorkState {
  if (work.acked_at) return 'acked';
  return work.delivered_at ? 'delivered' : 'queued';
}

export function recentWork(db: Db, agentId: string, limit = 20): Promise<AgentWork[]> {
  return db
    .selectFrom('agent_work')
    .selectAll()
    .where('agent_id', '=', agentId)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
}

export const agentSettingsSchema = z.object({
  name: agentNameSchema,
  receives_feedback: z
    .union([z.literal('on'), z.literal('true'), z.literal('')])
    .optional()
    .transform((value) => value === 'on' || value === 'true'),
});

/**
 * Renames the agent (and its room) and sets whether it receives new feedback: one agent of a
 * workspace does, so turning it on here turns it off for the others.
 */
export async function updateAgentSettings(
  db: Db,
  agent: Pick<Agent, 'id' | 'workspace_id' | 'room_id'>,
  input: z.output<typeof agentSettingsSchema>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const clash = await trx
      .selectFrom('agents')
      .select('id')
      .where('workspace_id', '=', agent.workspace_id)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', input.name))
      .where('id', '!=', agent.id)
      .executeTakeFirst();
    if (clash) {
      throw new AppError('validation_failed', `Another agent is called @${input.name}.`, {
        fields: { name: `@${input.name} is taken in this workspace.` },
      });
    }
    if (input.receives_feedback) {
      await trx
        .updateTable('agents')
        .set({ receives_feedback: false })
        .where('workspace_id', '=', agent.workspace_id)
        .where('id', '!=', agent.id)
        .execute();
    }
    await trx
      .updateTable('agents')
      .set({ name: input.name, receives_feedback: input.receives_feedback })
      .where('id', '=', agent.id)
      .execute();
    await trx
      .updateTable('rooms')
      .set({ name: input.name })
      .where('id', '=', agent.room_id)
      .execute();
  });
}

/** Wake URL (already checked against SSRF by the caller) and token: `undefined` keeps a value. */
export async function updateAgentWake(
  db: Db,
  box: SecretBox,
  agentId: string,
  input: { url?: string | null; token?: string | null },
): Promise<void> {
  const values: { wake_url?: string | null; wake_token_sealed?: string | null } = {};
  if (input.url !== undefined) values.wake_url = input.url;
  if (input.token !== undefined)
    values.wake_token_sealed = input.token ? box.encrypt(input.token) : null;
  if (Object.keys(values).length === 0) return;
  await db.updateTable('agents').set(values).where('id', '=', agentId).execute();
}
