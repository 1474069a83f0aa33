import { z } from 'zod';
import { escapeMarkdown, isObject, listOf, num, text } from './lenient.js';
import { paragraphs, quote } from './markdown.js';

/**
 * GitHub webhook deliveries (https://docs.github.com/en/webhooks/webhook-events-and-payloads) as
 * one short message each, the way Discord's `/github` endpoint shows them: the repository, who did
 * it, what happened, a link, and for pushes a line per commit. Everything GitHub relays was typed
 * by someone (titles, branch names, commit messages, bodies), so all of it is escaped as plain
 * text; only our own links are markdown, and only to http(s) addresses.
 *
 * An event or action that is not worth a message (a label added, a run that started) renders to
 * undefined: the route answers 204 and posts nothing.
 */

/** Commits listed for one push; the rest are counted. */
const COMMITS_SHOWN = 5;
/** How much of an issue's, PR's or comment's body is quoted. */
const EXCERPT_MAX = 300;
const LINE_MAX = 120;

const user = z
  .object({ login: text, avatar_url: text, html_url: text })
  .optional()
  .catch(undefined);
const repository = z.object({ full_name: text, html_url: text }).optional().catch(undefined);

const common = z.object({
  action: text,
  sender: user,
  repository,
});

/** The events rendered here; anything else is answered 204. */
export const GITHUB_EVENTS = [
  'ping',
  'push',
  'pull_request',
  'issues',
  'issue_comment',
  'release',
  'workflow_run',
  'check_run',
] as const;

/** One line of plain text: the first line, trimmed and cut, escaped for markdown. */
function plain(value: string | undefined, max = LINE_MAX): string {
  const line = (value ?? '').split(/\r?\n/, 1)[0]!.trim();
  return escapeMarkdown(line.length > max ? `${line.slice(0, max - 1)}…` : line);
}

/** A body's start as plain text, quoted; blank when there is none. */
function excerpt(value: string | undefined): string {
  const body = (value ?? '').replace(/\r\n?/g, '\n').trim();
  if (!body) return '';
  const cut = body.length > EXCERPT_MAX ? `${body.slice(0, EXCERPT_MAX - 1).trimEnd()}…` : body;
  return quote(escapeMarkdown(cut).replace(/\n{2,}/g, '\n'));
}

/** `[label](<url>)` for an http(s) URL GitHub sent; the label alone (escaped) for anything else. */
function linkTo(label: string, url: string | undefined): string {
  const target = (url ?? '').trim();
  if (!/^https?:\/\/[^\s<>]+$/i.test(target)) return label;
  return `[${label}](<${target}>)`;
}

function repoTag(payload: z.infer<typeof common>): string {
  const name = plain(payload.repository?.full_name) || 'GitHub';
  return `\\[${linkTo(name, payload.repository?.html_url)}\\]`;
}

function actor(payload: z.infer<typeof common>): string {
  return `**${plain(payload.sender?.login) || 'someone'}**`;
}

const push = z.object({
  ref: text,
  created: z.boolean().optional().catch(undefined),
  deleted: z.boolean().optional().catch(undefined),
  forced: z.boolean().optional().catch(undefined),
  compare: text,
  commits: listOf(
    z.object({
      id: text,
      message: text,
      url: text,
      author: z.object({ name: text, username: text }).optional().catch(undefined),
    }),
  ),
});

/** A commit id's first 7 hex digits, or undefined for anything that is not one. */
function shortSha(id: string | undefined): string | undefined {
  return id && /^[0-9a-f]{7,64}$/i.test(id) ? id.slice(0, 7) : undefined;
}

function renderPush(payload: Record<string, unknown>, head: string): string | undefined {
  const event = push.parse(payload);
  const ref = event.ref ?? '';
  const kind = ref.startsWith('refs/tags/') ? 'tag' : 'branch';
  const name = `**${plain(ref.replace(/^refs\/(?:heads|tags)\//, '')) || kind}**`;
  if (event.deleted) return `${head} deleted ${kind} ${name}`;
  const count = event.commits.length;
  if (!count) {
    return event.created ? `${head} created ${kind} ${linkTo(name, event.compare)}` : undefined;
  }
  const verb = event.forced ? 'force-pushed' : 'pushed';
  const commits = count === 1 ? '1 commit' : `${count} commits`;
  const lines = event.commits.slice(0, COMMITS_SHOWN).map((commit) => {
    const sha = shortSha(commit.id);
    const by = plain(commit.author?.username ?? commit.author?.name);
    return `- ${sha ? `${linkTo(`\`${sha}\``, commit.url)} ` : ''}${plain(commit.message) || '(no message)'}${by ? ` — ${by}` : ''}`;
  });
  if (count > COMMITS_SHOWN) lines.push(`- … and ${count - COMMITS_SHOWN} more`);
  return paragraphs([
    `${head} ${verb} ${linkTo(commits, event.compare)} to ${kind === 'tag' ? `tag ${name}` : name}`,
    lines.join('\n'),
  ]);
}

const issueLike = z
  .object({
    number: num,
    title: text,
    html_url: text,
    body: text,
    merged: z.boolean().optional().catch(undefined),
    pull_request: z.unknown().optional(),
  })
  .optional()
  .catch(undefined);

/** `#12 Title` linked to the issue or pull request. */
function titled(item: z.infer<typeof issueLike>): string {
  const number = item?.number === undefined ? '' : `#${item.number} `;
  return linkTo(`${number}${plain(item?.title)}`.trim() || 'untitled', item?.html_url);
}

function renderPullRequest(payload: Record<string, unknown>, head: string): string | undefined {
  const { action } = common.parse(payload);
  const pr = z.object({ pull_request: issueLike }).parse(payload).pull_request;
  const verbs: Record<string, string> = {
    opened: 'opened',
    reopened: 'reopened',
    ready_for_review: 'marked ready for review',
    closed: pr?.merged ? 'merged' : 'closed',
  };
  const verb = action ? verbs[action] : undefined;
  if (!verb) return undefined;
  return paragraphs([
    `${head} ${verb} pull request ${titled(pr)}`,
    action === 'opened' ? excerpt(pr?.body) : '',
  ]);
}

function renderIssue(payload: Record<string, unknown>, head: string): string | undefined {
  const { action } = common.parse(payload);
  const issue = z.object({ issue: issueLike }).parse(payload).issue;
  if (action !== 'opened' && action !== 'closed' && action !== 'reopened') return undefined;
  return paragraphs([
    `${head} ${action} issue ${titled(issue)}`,
    action === 'opened' ? excerpt(issue?.body) : '',
  ]);
}

function renderIssueComment(payload: Record<string, unknown>, head: string): string | undefined {
  const event = z
    .object({
      action: text,
      issue: issueLike,
      comment: z.object({ body: text, html_url: text }).optional().catch(undefined),
    })
    .parse(payload);
  if (event.action !== 'created') return undefined;
  const kind = event.issue?.pull_request ? 'pull request' : 'issue';
  return paragraphs([
    `${head} ${linkTo('commented', event.comment?.html_url)} on ${kind} ${titled(event.issue)}`,
    excerpt(event.comment?.body),
  ]);
}

function renderRelease(payload: Record<string, unknown>, head: string): string | undefined {
  const event = z
    .object({
      action: text,
      release: z
        .object({ tag_name: text, name: text, html_url: text, prerelease: z.unknown() })
        .optional()
        .catch(undefined),
    })
    .parse(payload);
  // `published` is the one announcement; created/released/prereleased follow it or precede it.
  if (event.action !== 'published') return undefined;
  const release = event.release;
  const tag = plain(release?.tag_name);
  const name = plain(release?.name);
  const label = name && name !== tag ? `${tag} ${name}`.trim() : tag || name || 'a release';
  const kind = release?.prerelease === true ? 'pre-release' : 'release';
  return `${head} published ${kind} ${linkTo(label, release?.html_url)}`;
}

/** A run's conclusion as words people read at a glance. */
function outcome(conclusion: string | undefined): string {
  const words: Record<string, string> = {
    success: '✅ succeeded',
    failure: '❌ failed',
    cancelled: 'was cancelled',
    timed_out: '⏱️ timed out',
    action_required: 'needs action',
    neutral: 'finished (neutral)',
    skipped: 'was skipped',
    stale: 'went stale',
    startup_failure: '❌ failed to start',
  };
  return (conclusion && words[conclusion]) ?? `finished (${plain(conclusion) || 'no conclusion'})`;
}

function renderWorkflowRun(payload: Record<string, unknown>, head: string): string | undefined {
  const event = z
    .object({
      action: text,
      workflow_run: z
        .object({
          name: text,
          run_number: num,
          head_branch: text,
          conclusion: text,
          html_url: text,
        })
        .optional()
        .catch(undefined),
    })
    .parse(payload);
  if (event.action !== 'completed') return undefined;
  const run = event.workflow_run;
  const name = `${plain(run?.name) || 'workflow'}${run?.run_number === undefined ? '' : ` #${run.run_number}`}`;
  const branch = plain(run?.head_branch);
  return `${head} ${linkTo(`workflow **${name}**`, run?.html_url)} ${outcome(run?.conclusion)}${branch ? ` on **${branch}**` : ''}`;
}

function renderCheckRun(payload: Record<string, unknown>, head: string): string | undefined {
  const event = z
    .object({
      action: text,
      check_run: z
        .object({
          name: text,
          conclusion: text,
          html_url: text,
          head_sha: text,
          check_suite: z.object({ head_branch: text }).optional().catch(undefined),
        })
        .optional()
        .catch(undefined),
    })
    .parse(payload);
  if (event.action !== 'completed') return undefined;
  const run = event.check_run;
  const branch = plain(run?.check_suite?.head_branch);
  const sha = shortSha(run?.head_sha);
  const where = branch ? ` on **${branch}**` : sha ? ` at \`${sha}\`` : '';
  return `${head} ${linkTo(`check **${plain(run?.name) || 'check'}**`, run?.html_url)} ${outcome(run?.conclusion)}${where}`;
}

const RENDERERS: Record<
  string,
  (payload: Record<string, unknown>, head: string) => string | undefined
> = {
  push: renderPush,
  pull_request: renderPullRequest,
  issues: renderIssue,
  issue_comment: renderIssueComment,
  release: renderRelease,
  workflow_run: renderWorkflowRun,
  check_run: renderCheckRun,
};

export interface GithubMessage {
  text: string;
  /** The sender's GitHub avatar (an https URL), shown as the message's avatar. */
  avatarUrl: string | undefined;
}

/**
 * The message for one delivery, or undefined when this event (or this action of it) is not
 * posted. `ping` is never posted: see routes (github-route.ts) for why.
 */
export function renderGithubEvent(event: string, payload: unknown): GithubMessage | undefined {
  if (!isObject(payload)) return undefined;
  const render = Object.hasOwn(RENDERERS, event) ? RENDERERS[event] : undefined;
  if (!render) return undefined;
  const parsed = common.parse(payload);
  // Runs and checks are the machine's doing: who triggered them is not the news.
  const head =
    event === 'workflow_run' || event === 'check_run'
      ? repoTag(parsed)
      : `${repoTag(parsed)} ${actor(parsed)}`;
  const rendered = render(payload, head);
  if (!rendered) return undefined;
  const avatar = parsed.sender?.avatar_url;
  return {
    text: rendered,
    avatarUrl:
      avatar && avatar.length <= 2_000 && /^https:\/\/\S+$/i.test(avatar) ? avatar : undefined,
  };
}
