import { z } from 'zod';
import { AppError, isId } from '@ferry/core';
import type { Db } from '@ferry/db';
import {
  errorGroupsMatching,
  globMatches,
  parseSearch,
  ERROR_SOURCES,
  ERROR_STATUSES,
  usersWhoCan,
  type ErrorGroupFilter,
  type ErrorsWritten,
} from '@ferry/workspace';

/**
 * The live Errors list (issue 26): an open Errors page says "N new errors arrived: show them"
 * instead of moving rows under the reader's cursor. realtime.ts wires it.
 *
 * - client -> `errors:join` {workspaceId, filter: {status, source?, environment?, q?}}, ack
 *   {ok: true} | {ok: false, error}: the page's list and its filter. The server checks in the
 *   database that the user may read the workspace's errors (errors.read: members and above) and
 *   only then puts the socket in `errors:<workspaceId>`. One Errors page per socket: a new join
 *   replaces the last.
 * - server -> `errors:new` {workspaceId, occurrences, newGroups}: occurrences written since the
 *   last event that the page's filter shows (its environment's only, when it names one), and how
 *   many of their groups are new.
 * - server -> `errors:left` {workspaceId}: this user may no longer read the workspace's errors.
 *
 * Throttled per workspace on each process: the first announcement is delivered at once, then at
 * most one delivery a second with everything announced meanwhile summed. An error storm of
 * thousands of reports a second is one event a second per page, and one membership read plus one
 * read per distinct filter a second per workspace with pages open, on this process; a process
 * without an Errors page of the workspace open does nothing at all.
 */

export interface ErrorsNewEvent {
  workspaceId: string;
  occurrences: number;
  newGroups: number;
}

/** At most one delivery per workspace per this long on a process. */
export const ERRORS_LIVE_INTERVAL_MS = 1_000;
/** Distinct groups summed for one delivery; past it, further groups wait for the page's reload. */
const PENDING_GROUPS_MAX = 5_000;

const statusSchema = z.union([z.literal('all'), z.enum(ERROR_STATUSES)]);

export const errorsJoinSchema = z.object({
  workspaceId: z.string().refine((v) => isId(v, 'workspace')),
  filter: z.object({
    status: statusSchema,
    source: z.enum(ERROR_SOURCES).optional(),
    environment: z.string().min(1).max(40).optional(),
    q: z.string().min(1).max(200).optional(),
  }),
});

export type ErrorsJoin = z.infer<typeof errorsJoinSchema>;

/** What a socket on an Errors page watches. */
export interface ErrorsWatch {
  workspaceId: string;
  filter: ErrorGroupFilter;
}

/** `viewerMemberId`: the joining seat, what the page's `assigned:me` means. */
export function watchOf(join: ErrorsJoin, viewerMemberId?: string): ErrorsWatch {
  const { status, ...rest } = join.filter;
  return {
    workspaceId: join.workspaceId,
    filter: { ...rest, status: status === 'all' ? undefined : status, viewerMemberId },
  };
}

export const errorsChannel = (workspaceId: string): string => `errors:${workspaceId}`;

interface PendingGroup {
  n: number;
  created: boolean;
  environments: Map<string, number>;
}

/** Whether an environment passes the page's own environment filter and its query's env: terms. */
function environmentFilter(
  filter: ErrorGroupFilter,
): ((environment: string) => boolean) | undefined {
  let envTerms: { glob: string; negated: boolean }[] = [];
  try {
    envTerms = parseSearch(filter.q ?? '').flatMap((term) =>
      term.kind === 'env' ? [{ glob: term.value, negated: term.negated }] : [],
    );
  } catch {
    // A query that no longer parses matched nothing (errorGroupsMatching): nothing is counted.
  }
  if (!filter.environment && envTerms.length === 0) return undefined;
  return (environment) =>
    (!filter.environment || environment === filter.environment) &&
    envTerms.every((term) => globMatches(term.glob, environment) !== term.negated);
}

/**
 * What one page's filter counts of the pending groups: a group's occurrences in the environments
 * the page asks for (its `env:` terms), so an `env:production` page does not count staging's.
 */
function countFor(
  pending: ReadonlyMap<string, PendingGroup>,
  matching: ReadonlySet<string>,
  filter: ErrorGroupFilter,
): { occurrences: number; newGroups: number } {
  const inEnvironment = environmentFilter(filter);
  let occurrences = 0;
  let newGroups = 0;
  for (const id of matching) {
    const group = pending.get(id);
    if (!group) continue;
    const n = inEnvironment
      ? [...group.environments].reduce(
          (sum, [env, count]) => sum + (inEnvironment(env) ? count : 0),
          0,
        )
      : group.n;
    if (n === 0) continue;
    occurrences += n;
    if (group.created) newGroups += 1;
  }
  return { occurrences, newGroups };
}

/** A socket as live-errors needs it: who it is, what it watches, and how to reach it. */
export interface WatchingSocket {
  userId: string;
  watch: ErrorsWatch | undefined;
  emit(event: 'errors:new', payload: ErrorsNewEvent): void;
  /** Stops watching (leaves the channel) and tells the page. */
  evict(): Promise<void>;
}

export interface LiveErrors {
  /** An `errors:written` announcement, parsed. */
  announced(written: ErrorsWritten): void;
  close(): void;
}

interface WorkspaceState {
  pending: Map<string, PendingGroup>;
  /** Set while a delivery runs or its interval has not passed: announcements only accumulate. */
  cooling: boolean;
}

/**
 * The per-process throttle. `watchers(workspaceId)` lists this process's sockets on that
 * workspace's Errors page (none: the announcement is dropped at once).
 */
export function createLiveErrors(deps: {
  db: Db;
  watchers: (workspaceId: string) => WatchingSocket[];
  onError: (err: unknown) => void;
  intervalMs?: number;
}): LiveErrors {
  const interval = deps.intervalMs ?? ERRORS_LIVE_INTERVAL_MS;
  const states = new Map<string, WorkspaceState>();
  const timers = new Set<NodeJS.Timeout>();

  async function deliver(workspaceId: string, pending: Map<string, PendingGroup>): Promise<void> {
    const sockets = deps.watchers(workspaceId);
    if (!sockets.length) return;
    // The database decides, not the channel: a member removed or demoted since joining is evicted.
    const allowed = await usersWhoCan(
      deps.db,
      workspaceId,
      sockets.map((s) => s.userId),
      'errors.read',
    );
    const byFilter = new Map<string, { filter: ErrorGroupFilter; sockets: WatchingSocket[] }>();
    for (const socket of sockets) {
      if (!allowed.has(socket.userId)) {
        await socket.evict();
        continue;
      }
      const filter = socket.watch?.filter;
      if (!filter) continue;
      // Pages share a filter's read unless the search names its viewer (`assigned:me`).
      const viewer = filter.q?.includes('assigned:') ? filter.viewerMemberId : undefined;
      const key = JSON.stringify([
        filter.status,
        filter.source,
        filter.environment,
        filter.q,
        viewer,
      ]);
      const entry = byFilter.get(key) ?? { filter, sockets: [] };
      entry.sockets.push(socket);
      byFilter.set(key, entry);
    }
    const ids = [...pending.keys()];
    for (const { filter, sockets: watching } of byFilter.values()) {
      // A search can stop being valid after the page loaded (its tag key's last occurrence
      // pruned): that page hears nothing new, and the other filters still do.
      const matching = await errorGroupsMatching(deps.db, workspaceId, ids, filter).catch(
        (error: unknown) => {
          if (error instanceof AppError && error.code === 'validation_failed')
            return new Set<string>();
          throw error;
        },
      );
      const { occurrences, newGroups } = countFor(pending, matching, filter);
      if (occurrences === 0) continue;
      for (const socket of watching)
        socket.emit('errors:new', { workspaceId, occurrences, newGroups });
    }
  }

  function later(run: () => void): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, interval);
    timer.unref();
    timers.add(timer);
  }

  /** Delivers what is pending now, then cools down; what arrives meanwhile goes out after. */
  function flush(workspaceId: string, state: WorkspaceState): void {
    const pending = state.pending;
    state.pending = new Map();
    state.cooling = true;
    deliver(workspaceId, pending)
      .catch(deps.onError)
      .finally(() =>
        later(() => {
          if (state.pending.size) flush(workspaceId, state);
          else states.delete(workspaceId);
        }),
      );
  }

  return {
    announced(written) {
      for (const { workspaceId, groups } of written.workspaces) {
        if (!deps.watchers(workspaceId).length) continue;
        let state = states.get(workspaceId);
        if (!state) {
          state = { pending: new Map(), cooling: false };
          states.set(workspaceId, state);
        }
        for (const group of groups) {
          let known = state.pending.get(group.id);
          if (!known) {
            if (state.pending.size >= PENDING_GROUPS_MAX) continue;
            known = { n: 0, created: false, environments: new Map() };
            state.pending.set(group.id, known);
          }
          known.n += group.n;
          known.created ||= group.created;
          for (const [environment, n] of group.environments) {
            known.environments.set(environment, (known.environments.get(environment) ?? 0) + n);
          }
        }
        if (!state.cooling) flush(workspaceId, state);
      }
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      states.clear();
    },
  };
}
