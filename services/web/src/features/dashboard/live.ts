import { z } from 'zod';
import { isId } from '@ferry/core';
import type { Db } from '@ferry/db';
import { onboardingProgress, seatRoles, stepsShown, type OnboardingSteps } from '@ferry/workspace';

/**
 * The Dashboard's checklist, live (issue 42): each step ticks on an open Dashboard when it is done
 * anywhere (another tab, the API, an SDK posting an error, an agent connecting). realtime.ts wires
 * it.
 *
 * - client -> `onboarding:join` {workspaceId}, ack {ok: true} | {ok: false, error}: any seat in
 *   the workspace (`receive` checks it) joins `onboarding:<workspaceId>` and is sent the state at
 *   once, so a step done between the page's render and the join is not missed.
 * - server -> `onboarding:state` {workspaceId, done}: the steps the socket's role is shown, each
 *   done or not. Only ever ticks: a done step stays done.
 * - server -> `onboarding:left` {workspaceId}: this user no longer has a seat; the page stops.
 *
 * What makes a process look again, for workspaces it has a Dashboard of open: the outbox relay's
 * `messages:stored` (a first message), the error writer's `errors:written` (a first error group),
 * and the `ferry_onboarding` notification the database sends for a new invite, seat, incoming
 * webhook key or agent (migration 2026_11_28_0400). The state is then read from the data
 * (onboardingProgress: one statement) and each socket's seat is re-read, so a removed member is
 * evicted. Coalesced per workspace: while one read runs, further announcements make one more.
 * A busy room of a workspace with its Dashboard open costs one read per read's duration.
 */

export const onboardingJoinSchema = z.object({
  workspaceId: z.string().refine((v) => isId(v, 'workspace')),
});

export const onboardingChannel = (workspaceId: string): string => `onboarding:${workspaceId}`;

export interface OnboardingStateEvent {
  workspaceId: string;
  done: Partial<OnboardingSteps>;
}

/** A socket on a Dashboard, as the live checklist needs it. */
export interface WatchingDashboard {
  userId: string;
  emit(event: OnboardingStateEvent): void;
  /** Stops listening (leaves the channel) and tells the page. */
  evict(): Promise<void>;
}

export interface LiveOnboarding {
  /** Something that may complete a step happened in the workspace. */
  changed(workspaceId: string): void;
  /** A socket just joined: send it the state now. */
  joined(workspaceId: string, socket: WatchingDashboard): Promise<void>;
}

export function createLiveOnboarding(deps: {
  db: Db;
  /** This process's sockets on the workspace's Dashboard. */
  watchers: (workspaceId: string) => WatchingDashboard[];
  onError: (err: unknown) => void;
}): LiveOnboarding {
  const running = new Set<string>();
  const again = new Set<string>();

  async function deliver(workspaceId: string, sockets: WatchingDashboard[]): Promise<void> {
    if (!sockets.length) return;
    const [roles, progress] = await Promise.all([
      seatRoles(
        deps.db,
        workspaceId,
        sockets.map((s) => s.userId),
      ),
      onboardingProgress(deps.db, workspaceId),
    ]);
    for (const socket of sockets) {
      const role = roles.get(socket.userId);
      if (role === undefined) await socket.evict();
      else socket.emit({ workspaceId, done: stepsShown(progress.done, role) });
    }
  }

  function changed(workspaceId: string): void {
    if (!deps.watchers(workspaceId).length) return;
    if (running.has(workspaceId)) {
      again.add(workspaceId);
      return;
    }
    running.add(workspaceId);
    deliver(workspaceId, deps.watchers(workspaceId))
      .catch(deps.onError)
      .finally(() => {
        running.delete(workspaceId);
        if (again.delete(workspaceId)) changed(workspaceId);
      });
  }

  return {
    changed,
    joined: (workspaceId, socket) => deliver(workspaceId, [socket]),
  };
}
