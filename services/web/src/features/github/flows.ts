import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/**
 * The `state` of a trip to GitHub and back (installing the App, authorizing a member), kept in
 * the signed-in session: GitHub hands it back on the Setup or Callback URL and we accept it only
 * from the session that started the trip, once, within ten minutes. The value never leaves the
 * server except in the GitHub URL itself.
 */

export const GITHUB_FLOW_TTL_MS = 10 * 60_000;
/** A few trips may be open at once (two tabs); the oldest falls out beyond this. */
const MAX_OPEN_FLOWS = 5;

export type GithubFlowPurpose = 'install' | 'connect' | 'authorize';

export interface GithubFlow {
  state: string;
  purpose: GithubFlowPurpose;
  workspaceId: string;
  memberId: string;
  /** For 'connect': the installation GitHub named on the Setup URL, still to be proven. */
  installationId?: string;
  createdAt: number;
}

declare module 'express-session' {
  interface SessionData {
    githubFlows?: GithubFlow[];
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Starts a trip: a fresh random state stored in the session; returns the state to send. */
export function startGithubFlow(
  req: Request,
  flow: Omit<GithubFlow, 'state' | 'createdAt'>,
  now = Date.now(),
): string {
  const state = randomBytes(24).toString('base64url');
  const open = (req.session.githubFlows ?? []).filter(
    (f) => now - f.createdAt < GITHUB_FLOW_TTL_MS,
  );
  open.push({ ...flow, state, createdAt: now });
  req.session.githubFlows = open.slice(-MAX_OPEN_FLOWS);
  return state;
}

/**
 * The trip `state` belongs to, taken out of the session (single use), when it is one of ours, of
 * an expected purpose and younger than ten minutes; undefined otherwise. Every open state is
 * compared in constant time (fixed-length digests), so timing tells nothing about a guess.
 */
export function takeGithubFlow(
  req: Request,
  state: unknown,
  purposes: readonly GithubFlowPurpose[],
  now = Date.now(),
): GithubFlow | undefined {
  const open = req.session.githubFlows ?? [];
  if (typeof state !== 'string' || !state || state.length > 200 || !open.length) return undefined;
  const given = digest(state);
  let found: GithubFlow | undefined;
  for (const flow of open) {
    if (timingSafeEqual(digest(flow.state), given)) found = flow;
  }
  if (!found) return undefined;
  const rest = open.filter((f) => f !== found && now - f.createdAt < GITHUB_FLOW_TTL_MS);
  if (rest.length) req.session.githubFlows = rest;
  else delete req.session.githubFlows;
  if (now - found.createdAt >= GITHUB_FLOW_TTL_MS) return undefined;
  if (!purposes.includes(found.purpose)) return undefined;
  return found;
}
