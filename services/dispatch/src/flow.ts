import type { Db, Dispatch, DispatchStatus, Feedback, GithubRepo } from '@ferry/db';
import {
  findInstallation,
  GitHubError,
  ReauthorizeError,
  userTokenFor,
  type AgentTask,
  type GitHubClient,
} from '@ferry/github';
import type { JobPayload } from '@ferry/queues';
import {
  dispatchData,
  emitWorkspaceEvents,
  markTriagedByDispatch,
  postMessage,
  ticketContext,
  ticketPageUrl,
  workspaceEvent,
  type EventType,
} from '@ferry/workspace';
import type { DispatchDeps } from './deps.js';
import { agentPrompt, dispatchMarker, issueBody, issueTitle } from './issue-body.js';

/**
 * The hosted-agent flow of one dispatch, as a state machine over its row. Each run of the
 * `dispatch` job does the next unfinished step, or one poll of the agent's work, then schedules
 * its successor. Every step is recorded (with its conversation message, in one transaction)
 * before the next starts, so a re-run never repeats a finished step; an issue whose answer was
 * lost is found again by the marker in its body, a task by the marker in its session's prompt
 * among those created since the request went out, before anything is re-sent.
 *
 *   queued -> issue_opened -> agent_started | assigned -> (pr_opened | waiting_on_user)*
 *          -> completed | failed
 */

const FINISHED: readonly DispatchStatus[] = ['completed', 'failed'];
const AGENT_RUNNING = new Set(['queued', 'in_progress', 'idle']);
const AGENT_FAILED = new Set(['failed', 'timed_out', 'cancelled']);
/** 403/404/422 from the task API: not available to this account; assign the issue instead. */
const TASK_API_UNAVAILABLE = new Set([403, 404, 422]);
const SENDER = 'GitHub';

interface FlowContext {
  deps: DispatchDeps;
  github: GitHubClient;
  repo: GithubRepo;
  feedback: Feedback;
  installationId: string;
}

export async function advanceDispatch(
  deps: DispatchDeps,
  payload: JobPayload<'dispatch'>,
): Promise<void> {
  const dispatch = await loadDispatch(deps.db, payload.dispatchId);
  if (!dispatch || FINISHED.includes(dispatch.status)) return;
  try {
    const flow = await flowContext(deps, dispatch);
    if (Date.now() - dispatch.created_at.getTime() > deps.settings.giveUpMs) {
      await fail(
        deps.db,
        dispatch,
        'GitHub’s coding agent did not finish in time; the dispatch gave up waiting.',
      );
      return;
    }
    const next = await step(flow, dispatch);
    if (next && !FINISHED.includes(next.status)) {
      await schedule(deps, payload, pollDelay(deps, next));
    }
  } catch (error) {
    await onError(deps, dispatch, payload, error);
  }
}

/** The next step for the row as it is now; returns the row after it. */
async function step(flow: FlowContext, dispatch: Dispatch): Promise<Dispatch | undefined> {
  if (dispatch.status === 'queued') {
    const opened = await openIssue(flow, dispatch);
    if (!opened) return undefined;
    return startAgent(flow, opened);
  }
  if (dispatch.status === 'issue_opened') return startAgent(flow, dispatch);
  if (dispatch.task_id) return pollTask(flow, dispatch);
  return pollAssignment(flow, dispatch);
}

async function flowContext(deps: DispatchDeps, dispatch: Dispatch): Promise<FlowContext> {
  if (!deps.github) {
    throw new FlowFailure(
      'GitHub is not configured on this server (the GITHUB_APP_* variables are missing).',
    );
  }
  const [repo, feedback, installation] = await Promise.all([
    deps.db
      .selectFrom('github_repos')
      .selectAll()
      .where('id', '=', dispatch.repo_id)
      .executeTakeFirstOrThrow(),
    deps.db
      .selectFrom('feedback')
      .selectAll()
      .where('id', '=', dispatch.feedback_id)
      .executeTakeFirstOrThrow(),
    findInstallation(deps.db, dispatch.workspace_id),
  ]);
  if (!installation) {
    throw new FlowFailure('The GitHub App is no longer connected to this workspace.');
  }
  return {
    deps,
    github: deps.github,
    repo,
    feedback,
    installationId: installation.installation_id,
  };
}

/** Step 1: the issue, with the App's installation token. */
async function openIssue(flow: FlowContext, dispatch: Dispatch): Promise<Dispatch | undefined> {
  const { github, repo, deps } = flow;
  const marker = dispatchMarker(dispatch.id);
  let issue = dispatch.issue_requested_at
    ? await github.findIssueWithMarker(flow.installationId, repo.full_name, marker)
    : null;
  if (!issue) {
    await deps.db
      .updateTable('dispatches')
      .set({ issue_requested_at: new Date() })
      .where('id', '=', dispatch.id)
      .execute();
    const context = await ticketContext(deps.db, flow.feedback);
    const ticketUrl = await ticketPageUrl(deps.db, deps.config.PUBLIC_URL, flow.feedback);
    issue = await github.createIssue(flow.installationId, repo.full_name, {
      title: issueTitle(context),
      body: issueBody(context, dispatch.id, ticketUrl),
    });
  }
  return transition(deps.db, dispatch, 'queued', {
    status: 'issue_opened',
    issue_number: issue.number,
    issue_node_id: issue.nodeId,
    issue_url: issue.url,
  });
}

/**
 * Step 2: an agent task with the identity's user token; when the task API is unavailable to the
 * account, the issue is assigned to the coding agent instead. Step 3 (the ticket is triaged)
 * commits with it.
 */
async function startAgent(flow: FlowContext, dispatch: Dispatch): Promise<Dispatch | undefined> {
  const { github, repo, deps } = flow;
  const issue = { number: dispatch.issue_number!, url: dispatch.issue_url! };
  const marker = dispatchMarker(dispatch.id);
  const ref = `issue #${issue.number} in ${repo.full_name} (${issue.url})`;
  try {
    const task = await withUserToken(flow, dispatch, async (token) => {
      const earlier = dispatch.task_requested_at
        ? await github.findStartedTask(token, repo.full_name, {
            marker,
            requestedAt: dispatch.task_requested_at,
            baseRef: repo.default_branch,
            issueNumber: issue.number,
          })
        : null;
      if (earlier) return earlier;
      await deps.db
        .updateTable('dispatches')
        .set({ task_requested_at: new Date() })
        .where('id', '=', dispatch.id)
        .execute();
      const context = await ticketContext(deps.db, flow.feedback);
      const ticketUrl = await ticketPageUrl(deps.db, deps.config.PUBLIC_URL, flow.feedback);
      return github.startAgentTask(token, repo.full_name, {
        prompt: agentPrompt(context, issue, dispatch.id, ticketUrl),
        baseRef: repo.default_branch,
      });
    });
    return transition(
      deps.db,
      dispatch,
      'issue_opened',
      { status: 'agent_started', task_id: task.id, task_state: task.state },
      `Opened ${ref} and started GitHub’s coding agent on ${repo.default_branch}.`,
      flow.feedback,
    );
  } catch (error) {
    if (
      !(error instanceof GitHubError) ||
      error.kind !== 'refused' ||
      !TASK_API_UNAVAILABLE.has(error.status)
    ) {
      throw error;
    }
  }
  await withUserToken(flow, dispatch, (token) =>
    github.assignCodingAgent(token, repo.full_name, {
      nodeId: dispatch.issue_node_id!,
      baseRef: repo.default_branch,
    }),
  );
  return transition(
    deps.db,
    dispatch,
    'issue_opened',
    { status: 'assigned', task_state: null },
    `Opened ${ref} and assigned it to GitHub’s coding agent (the agent task API is not available to this account).`,
    flow.feedback,
  );
}

async function pollTask(flow: FlowContext, dispatch: Dispatch): Promise<Dispatch | undefined> {
  const { github, repo, deps } = flow;
  // The task names its pull request only by GraphQL global id: it is looked up once, the first
  // time the task shows one, and its URL recorded.
  const { task, prUrl } = await withUserToken(flow, dispatch, async (token) => {
    const read: AgentTask = await github.getAgentTask(token, repo.full_name, dispatch.task_id!);
    const pull =
      read.pullRequestId && !dispatch.pr_url
        ? await github.pullRequest(token, read.pullRequestId)
        : null;
    return { task: read, prUrl: pull?.url ?? null };
  });
  let current: Dispatch | undefined = dispatch;
  if (prUrl && !current.pr_url) {
    current = await transition(
      deps.db,
      current,
      current.status,
      { status: 'pr_opened', pr_url: prUrl, task_state: task.state },
      `GitHub’s coding agent opened a pull request: ${prUrl}`,
      flow.feedback,
    );
    if (!current) return undefined;
  }
  const settled = current.pr_url ? 'pr_opened' : 'agent_started';
  if (task.state === 'completed') {
    const pr = current.pr_url ? ` Pull request: ${current.pr_url}` : '';
    return transition(
      deps.db,
      current,
      current.status,
      { status: 'completed', task_state: task.state, finished_at: new Date() },
      `GitHub’s coding agent completed the task.${pr}`,
      flow.feedback,
    );
  }
  if (AGENT_FAILED.has(task.state)) {
    const reason = task.error ?? `the task ended as ${task.state.replace('_', ' ')}`;
    return fail(deps.db, current, `GitHub’s coding agent failed: ${reason}`, task.state);
  }
  if (task.state === 'waiting_for_user') {
    if (current.status === 'waiting_on_user') return touch(deps.db, current, task.state);
    const where = task.url ?? current.pr_url ?? current.issue_url;
    return transition(
      deps.db,
      current,
      current.status,
      { status: 'waiting_on_user', task_state: task.state },
      `GitHub’s coding agent is waiting on you: ${where}`,
      flow.feedback,
    );
  }
  if (AGENT_RUNNING.has(task.state) && current.status === 'waiting_on_user') {
    return transition(deps.db, current, current.status, {
      status: settled,
      task_state: task.state,
    });
  }
  return touch(deps.db, current, task.state);
}

/** After an assignment there is no task to read: the issue's timeline shows the agent's PR. */
async function pollAssignment(
  flow: FlowContext,
  dispatch: Dispatch,
): Promise<Dispatch | undefined> {
  const { github, repo, deps } = flow;
  const pull = await withUserToken(flow, dispatch, (token) =>
    github.assignedIssuePullRequest(token, repo.full_name, dispatch.issue_number!),
  );
  let current: Dispatch | undefined = dispatch;
  if (pull && !current.pr_url) {
    current = await transition(
      deps.db,
      current,
      current.status,
      { status: 'pr_opened', pr_url: pull.url },
      `GitHub’s coding agent opened a pull request: ${pull.url}`,
      flow.feedback,
    );
    if (!current) return undefined;
  }
  if (pull?.merged) {
    return transition(
      deps.db,
      current,
      current.status,
      { status: 'completed', finished_at: new Date() },
      `GitHub’s coding agent completed the task: its pull request was merged (${pull.url}).`,
      flow.feedback,
    );
  }
  if (pull?.closed) {
    return fail(
      deps.db,
      current,
      `The coding agent’s pull request was closed without merging: ${pull.url}`,
    );
  }
  return touch(deps.db, current, current.task_state);
}

/**
 * Runs `call` with the run-as member's user token (refreshed before it expires). A 401 gets one
 * forced refresh and one more try; after that the member must authorize again.
 */
async function withUserToken<T>(
  flow: FlowContext,
  dispatch: Dispatch,
  call: (token: string) => Promise<T>,
): Promise<T> {
  const { deps } = flow;
  const memberId = dispatch.run_as_member_id;
  if (!memberId) throw new ReauthorizeError('', 'is no longer a member of this workspace');
  const token = await userTokenFor(deps.db, deps.box, flow.github, memberId);
  try {
    return await call(token);
  } catch (error) {
    if (!(error instanceof GitHubError) || error.kind !== 'unauthorized') throw error;
  }
  const fresh = await userTokenFor(deps.db, deps.box, flow.github, memberId, { force: true });
  try {
    return await call(fresh);
  } catch (error) {
    if (error instanceof GitHubError && error.kind === 'unauthorized') {
      throw new ReauthorizeError(memberId, 'has a GitHub authorization GitHub no longer accepts');
    }
    throw error;
  }
}

/**
 * Moves the row from `from` to `changes` and posts `message` to the ticket's conversation, in one
 * transaction; a row another run already moved is left alone (and no message is posted twice).
 * Starting the agent also marks the ticket triaged (SPEC.md: a successful dispatch does).
 */
async function transition(
  db: Db,
  dispatch: Dispatch,
  from: DispatchStatus,
  changes: Partial<
    Pick<
      Dispatch,
      | 'status'
      | 'issue_number'
      | 'issue_node_id'
      | 'issue_url'
      | 'task_id'
      | 'task_state'
      | 'pr_url'
      | 'finished_at'
    >
  >,
  message?: string,
  feedback?: Feedback,
): Promise<Dispatch | undefined> {
  return db.transaction().execute(async (trx) => {
    const triage = changes.status === 'agent_started' || changes.status === 'assigned';
    const moved = await trx
      .updateTable('dispatches')
      .set({
        ...changes,
        ...(triage ? { triaged_at: new Date() } : {}),
        retries: 0,
        updated_at: new Date(),
      })
      .where('id', '=', dispatch.id)
      .where('status', '=', from)
      .returningAll()
      .executeTakeFirst();
    if (!moved) return undefined;
    // Only a new ticket moves: a closed one stays closed (packages/workspace feedback-triage.ts).
    if (triage) await markTriagedByDispatch(trx, dispatch.feedback_id);
    if (message && feedback) await announce(trx, feedback, dispatch.id, message);
    await emitDispatchEvent(trx, moved);
    return moved;
  });
}

/** The event types (issue 44) of the statuses a dispatch moves to; others are not events. */
const DISPATCH_EVENTS: Partial<Record<DispatchStatus, EventType>> = {
  agent_started: 'dispatch.started',
  assigned: 'dispatch.started',
  pr_opened: 'dispatch.pr_opened',
  completed: 'dispatch.completed',
  failed: 'dispatch.failed',
};

/** The step's event for event webhooks, in the step's transaction (the row's update orders them). */
async function emitDispatchEvent(trx: Db, moved: Dispatch): Promise<void> {
  const type = DISPATCH_EVENTS[moved.status];
  if (!type) return;
  await emitWorkspaceEvents(trx, [
    workspaceEvent({
      workspaceId: moved.workspace_id,
      type: type as 'dispatch.started',
      data: { dispatch: dispatchData(moved) },
    }),
  ]);
}

/** A poll that changed nothing visible still records the task state and counts the poll. */
async function touch(
  db: Db,
  dispatch: Dispatch,
  taskState: string | null,
): Promise<Dispatch | undefined> {
  return db
    .updateTable('dispatches')
    .set((eb) => ({
      task_state: taskState,
      polls: eb('polls', '+', 1),
      retries: 0,
      updated_at: new Date(),
    }))
    .where('id', '=', dispatch.id)
    .where('status', '=', dispatch.status)
    .returningAll()
    .executeTakeFirst();
}

async function announce(
  db: Db,
  feedback: Feedback,
  dispatchId: string,
  body: string,
): Promise<void> {
  await postMessage(db, {
    roomId: feedback.room_id,
    workspaceId: feedback.workspace_id,
    authorKind: 'system',
    displayName: SENDER,
    body,
    metadata: { dispatchId },
  });
}

/** Ends the dispatch as failed with a reason a person can act on, posted once. */
async function fail(
  db: Db,
  dispatch: Dispatch,
  reason: string,
  taskState?: string,
): Promise<Dispatch | undefined> {
  return db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('dispatches')
      .set({
        status: 'failed',
        error: reason,
        ...(taskState ? { task_state: taskState } : {}),
        finished_at: new Date(),
        updated_at: new Date(),
      })
      .where('id', '=', dispatch.id)
      .where('status', 'not in', FINISHED)
      .returningAll()
      .executeTakeFirst();
    if (!moved) return undefined;
    const feedback = await trx
      .selectFrom('feedback')
      .selectAll()
      .where('id', '=', dispatch.feedback_id)
      .executeTakeFirstOrThrow();
    await announce(trx, feedback, dispatch.id, `Dispatch failed: ${reason}`);
    await emitDispatchEvent(trx, moved);
    return moved;
  });
}

/** A failure no retry can fix (missing config, a disconnected App): the dispatch fails at once. */
class FlowFailure extends Error {}

async function onError(
  deps: DispatchDeps,
  dispatch: Dispatch,
  payload: JobPayload<'dispatch'>,
  error: unknown,
): Promise<void> {
  const current = (await loadDispatch(deps.db, dispatch.id)) ?? dispatch;
  if (error instanceof FlowFailure) {
    await fail(deps.db, current, error.message);
    return;
  }
  if (error instanceof ReauthorizeError && !error.memberId) {
    await fail(
      deps.db,
      current,
      'The member this dispatch runs as is no longer in the workspace: choose another dispatch identity (Settings > GitHub), then dispatch again.',
    );
    return;
  }
  if (error instanceof ReauthorizeError) {
    const who = await memberName(deps.db, error.memberId);
    await fail(
      deps.db,
      current,
      `${who} ${error.message}: ${who} must authorize GitHub again (Settings > GitHub), then dispatch again.`,
    );
    return;
  }
  if (error instanceof GitHubError && error.retryable) {
    // Outage, 5xx, timeout or rate limit: the same step runs again later, in a successor job
    // (GitHub's own wait when it names one, else doubling from DISPATCH_RETRY_MS).
    const { retryMs, retryLimit } = deps.settings;
    if (current.retries + 1 >= retryLimit) {
      await fail(
        deps.db,
        current,
        `GitHub kept failing after ${retryLimit} tries: ${error.message}`,
      );
      return;
    }
    const wait = error.retryAfterMs ?? retryMs * 2 ** current.retries;
    await deps.db
      .updateTable('dispatches')
      .set((eb) => ({ retries: eb('retries', '+', 1), updated_at: new Date() }))
      .where('id', '=', current.id)
      .execute();
    deps.logger.warn(
      { dispatchId: current.id, kind: error.kind, status: error.status, waitMs: wait },
      'GitHub call failed; the dispatch step will run again',
    );
    await schedule(deps, payload, Math.min(Math.max(wait, 10), 3_600_000));
    return;
  }
  if (error instanceof GitHubError) {
    await fail(
      deps.db,
      current,
      error.kind === 'unauthorized'
        ? 'The GitHub App installation refused its credentials: an admin must reconnect GitHub (Settings > GitHub).'
        : error.message,
    );
    return;
  }
  throw error;
}

async function memberName(db: Db, memberId: string): Promise<string> {
  const row = await db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('u.name')
    .where('m.id', '=', memberId)
    .executeTakeFirst();
  return row?.name ?? 'The dispatch identity';
}

function loadDispatch(db: Db, id: string): Promise<Dispatch | undefined> {
  return db.selectFrom('dispatches').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Polls start at DISPATCH_POLL_MS and double to DISPATCH_POLL_MAX_MS. */
function pollDelay(deps: DispatchDeps, dispatch: Dispatch): number {
  const { pollMs, pollMaxMs } = deps.settings;
  return Math.min(pollMaxMs, pollMs * 2 ** Math.min(dispatch.polls, 20));
}

/**
 * The successor of this run: round + 1, with a job id derived from the round. A run that is
 * repeated (its worker died before it completed) adds the same id again, which BullMQ ignores:
 * the chain never forks into two.
 */
async function schedule(
  deps: DispatchDeps,
  payload: JobPayload<'dispatch'>,
  delay: number,
): Promise<void> {
  const round = payload.round + 1;
  await deps.producer.add(
    'dispatch',
    { dispatchId: payload.dispatchId, round },
    { jobId: `${payload.dispatchId}-r${round}`, delay },
  );
}
