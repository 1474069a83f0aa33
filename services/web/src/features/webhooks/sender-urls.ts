import { GITHUB_SECRET_MAX, type IncomingKeyListItem } from '@ferry/workspace';
import { copyableSnippet } from '../../shared/copy.js';
import { timeAgo } from '../../shared/format.js';
import { html, type SafeHtml } from '../../shared/html.js';
import { field } from '../../shared/layout.js';

/**
 * The key page's "Sender URLs" (issue 44): each URL the key answers at, the senders it fits, what
 * it answers, and a command that works as shown once the key is revealed (before that, the same
 * text with the key masked). SPEC.md's `/wh/in/<key>` first, then the sender-compatible ones.
 */

/** Single-quoted for bash: a key is base64url, but quote anyway so the example is always safe. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * An example's JSON with one top-level field a line: each part of the payload is easy to find,
 * and the shell passes the newlines inside the quotes as they are.
 */
function exampleJson(payload: Record<string, unknown>): string {
  const fields = Object.entries(payload).map(
    ([name, value]) => `  ${JSON.stringify(name)}: ${JSON.stringify(value)}`,
  );
  return `{\n${fields.join(',\n')}\n}`;
}

function curlJson(url: string, payload: Record<string, unknown>): string {
  return [
    `curl -sS -X POST ${shellQuote(url)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(exampleJson(payload))}`,
  ].join('\n');
}

/** The ready-made example: a real command that posts one message when the key is revealed. */
export function curlExample(ingestUrl: string): string {
  return [
    `curl -sS -X POST ${shellQuote(ingestUrl)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"body": "Hello from **curl**", "sender": "Deploy bot"}'`,
  ].join('\n');
}

/** A Slack-style post: what a tool configured for a Slack incoming webhook sends (mrkdwn, an attachment). */
export function slackExample(url: string): string {
  return curlJson(url, {
    text: 'Deploy <https://ci.example.com/runs/42|run 42> *finished* :tada:',
    username: 'CI',
    icon_emoji: ':rocket:',
    attachments: [
      {
        color: 'good',
        title: 'production',
        fields: [
          { title: 'Duration', value: '42 s', short: true },
          { title: 'Commit', value: 'a1b2c3d', short: true },
        ],
      },
    ],
  });
}

/** A Discord-style post: `content` and an embed, as Discord's Execute Webhook takes them. */
export function discordExample(url: string): string {
  return curlJson(url, {
    username: 'Release bot',
    content: 'Deploy **finished**',
    embeds: [
      {
        title: 'Run 42',
        url: 'https://ci.example.com/runs/42',
        description: 'All checks passed.',
        color: 3066993,
        fields: [{ name: 'Environment', value: 'production', inline: true }],
      },
    ],
  });
}

/**
 * Apprise's Mattermost URL for the key's `/slack` URL: Apprise posts to `<path>/hooks/<token>`,
 * which `/wh/in/<key>/slack/hooks/<token>` answers (the token is ignored). The port is written
 * out because Apprise's Mattermost default is 8065, even for `mmosts://`.
 */
export function appriseExample(publicUrl: string, slackUrlPath: string): string {
  const base = new URL(publicUrl);
  const secure = base.protocol === 'https:';
  const port = base.port || (secure ? '443' : '80');
  const path = `${base.pathname.replace(/\/$/, '')}${slackUrlPath}`;
  const target = `${secure ? 'mmosts' : 'mmost'}://${base.hostname}:${port}${path}/ferry`;
  return `apprise -vv -b 'Backup finished' ${shellQuote(target)}`;
}

/** discord.js's WebhookClient pointed at the key: its REST base is the only setting. */
export function discordJsExample(discordUrl: string): string {
  return [
    `import { WebhookClient } from 'discord.js';`,
    ``,
    `// Any id and token: the key in the URL is the credential.`,
    `const hook = new WebhookClient(`,
    `  { id: '1', token: 'ferry' },`,
    `  { rest: { api: ${JSON.stringify(discordUrl)} } },`,
    `);`,
    `await hook.send({ content: 'Deploy **finished**' });`,
  ].join('\n');
}

/** One example: copyable once the key is revealed, plain text before. */
export function example(
  rawKey: string | undefined,
  id: string,
  what: string,
  text: string,
): SafeHtml {
  return rawKey
    ? copyableSnippet({ id, what, text, className: 'curl', testId: id })
    : html`<pre class="curl" data-testid="${id}"><code>${text}</code></pre>`;
}

export interface SenderUrlsData {
  publicUrl: string;
  /** The key as shown: the raw key after Reveal, masked before. */
  shownKey: string;
  rawKey?: string | undefined;
  key: Pick<IncomingKeyListItem, 'github_secret_set_at'>;
  /** The GitHub secret form: its action, the CSRF field, and its error after a refused post. */
  githubForm: { action: string; csrf: SafeHtml; error?: string | undefined };
}

function endpoint(
  testId: string,
  title: string,
  url: string,
  fits: SafeHtml,
  answers: SafeHtml,
  body: SafeHtml,
): SafeHtml {
  return html`<section class="sender-url" data-testid="${testId}" aria-label="${title}">
    <h3>${title}</h3>
    <dl class="kv">
      <dt>URL</dt>
      <dd><code data-testid="${testId}-url">${url}</code></dd>
      <dt>Fits</dt>
      <dd>${fits}</dd>
      <dt>Answers</dt>
      <dd>${answers}</dd>
    </dl>
    ${body}
  </section>`;
}

export function senderUrlsSection(data: SenderUrlsData): SafeHtml {
  const { rawKey } = data;
  const path = `/wh/in/${data.shownKey}`;
  const base = `${data.publicUrl}${path}`;
  const urls = {
    plain: base,
    slack: `${base}/slack`,
    github: `${base}/github`,
    discord: `${base}/discord`,
  };
  const secretSet = data.key.github_secret_set_at;
  return html`<h2>Sender URLs</h2>
    ${rawKey ? '' : html`<p class="muted">Reveal the key to get commands you can run as they are.</p>`}
    ${endpoint(
      'sender-plain',
      'Ferry (curl, scripts, Teams)',
      urls.plain,
      html`curl and your own scripts; also reads Slack, Mattermost and Discord payloads, and
        Microsoft Teams cards (MessageCard, Adaptive Card, a Workflows <code>message</code>).`,
      html`201 <code>{"message_id"}</code>; 200 with the same id on a replay of an
        <code>Idempotency-Key</code>.`,
      html`${example(rawKey, 'curl-example', 'the curl command', curlExample(urls.plain))}
        <p class="muted">
          JSON fields: <code>body</code> (or <code>text</code>), optional <code>sender</code> (or
          <code>name</code>, <code>username</code>), <code>room</code> (a room id the creator has
          joined), <code>idempotency_key</code> (or the <code>Idempotency-Key</code> header).
        </p>`,
    )}
    ${endpoint(
      'sender-slack',
      'Slack and Mattermost',
      urls.slack,
      html`Tools set up for a Slack or Mattermost incoming webhook (<code>@slack/webhook</code>,
        Grafana, Alertmanager, Apprise's <code>mmost://</code>): <code>text</code> in mrkdwn,
        <code>blocks</code>, <code>attachments</code>, <code>icon_emoji</code>, or a form body with
        <code>payload=</code>.`,
      html`200 <code>ok</code>, as Slack and Mattermost do; refusals as Slack's codes
        (<code>no_service</code>, <code>no_text</code>, <code>invalid_payload</code>,
        <code>channel_not_found</code>, 429 <code>rate_limited</code> with Retry-After).`,
      html`${example(rawKey, 'slack-example', 'the Slack-style command', slackExample(urls.slack))}
        <p class="muted">Apprise (its Mattermost plugin; the last path part is ignored):</p>
        ${example(
          rawKey,
          'apprise-example',
          'the Apprise command',
          appriseExample(data.publicUrl, `${path}/slack`),
        )}`,
    )}
    ${endpoint(
      'sender-github',
      'GitHub',
      urls.github,
      html`A repository's or organization's webhook: pushes, pull requests, issues, comments,
      releases, workflow runs and check runs become one short message each.`,
      html`200 <code>{"message_id"}</code> for a posted event (a redelivery posts nothing new); 204
        for events that are not posted; 200 to GitHub's ping; 401 when the signature does not match
        the secret below.`,
      html`<ol class="steps">
          <li>In GitHub: <strong>Settings → Webhooks → Add webhook</strong>.</li>
          <li>
            <strong>Payload URL</strong>:
            <code data-testid="github-payload-url">${urls.github}</code>
          </li>
          <li><strong>Content type</strong>: <code>application/json</code>.</li>
          <li>
            <strong>Secret</strong>: the GitHub signing secret set here
            (${
              secretSet
                ? html`<span data-testid="github-secret-state">set ${timeAgo(secretSet)}</span>`
                : html`<span data-testid="github-secret-state"
                    >not set: deliveries are taken unsigned</span
                  >`
            }).
          </li>
          <li>
            <strong>Events</strong>: "Send me everything" works (events that are not shown are
            answered 204), or pick the ones above.
          </li>
        </ol>
        <form method="post" action="${data.githubForm.action}" novalidate class="webhook-create">
          ${data.githubForm.csrf}
          ${field({
            label: 'GitHub signing secret',
            name: 'github_secret',
            type: 'password',
            error: data.githubForm.error,
            required: true,
            maxlength: GITHUB_SECRET_MAX,
            hint: "The same secret as in GitHub's webhook form. Stored encrypted; deliveries without a matching X-Hub-Signature-256 are refused.",
          })}
          <button type="submit">${secretSet ? 'Replace secret' : 'Set secret'}</button>
        </form>
        ${
          secretSet
            ? html`<form method="post" action="${data.githubForm.action}/remove" class="inline">
                ${data.githubForm.csrf}<button type="submit" class="secondary">
                  Remove secret
                </button>
              </form>`
            : ''
        }`,
    )}
    ${endpoint(
      'sender-discord',
      'Discord',
      urls.discord,
      html`<code>discord.js</code>'s <code>WebhookClient</code> and tools built for Discord's
        Execute Webhook (<code>content</code>, <code>embeds</code>, files).`,
      html`As Discord does: 204, or Discord's message object with <code>?wait=true</code>.`,
      html`${example(rawKey, 'discord-js-example', 'the discord.js setup', discordJsExample(urls.discord))}
        <p class="muted">Discord-style JSON also works on the Ferry URL:</p>
        ${example(rawKey, 'discord-example', 'the Discord-style command', discordExample(urls.plain))}`,
    )}`;
}
