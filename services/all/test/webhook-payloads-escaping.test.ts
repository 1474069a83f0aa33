import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AppError } from '@ferry/core';
import { renderMarkdown } from '@ferry/web';
import { parseIncomingPost, renderGithubEvent } from '@ferry/webhooks-in';

/**
 * Every field the payload decoders read (#25), filled with hostile text and links, through the
 * decoder and the one message renderer: whatever a Slack, Mattermost, Discord or Teams payload
 * holds, the message's HTML has only the renderer's own tags, no event handler, and links to
 * http(s) and mailto only; the avatar is an http(s) URL or nothing. The browser side (nothing runs
 * on the page) is webhook-payloads.browser.test.ts.
 */

const HOSTILE = [
  '<script>window.__pwned=1</script>',
  '<img src=x onerror=alert(1)>',
  '"><svg onload=alert(1)>',
  '<a href="javascript:alert(1)">a</a>',
  '[x](javascript:alert(1))',
  '[x](<javascript:alert(1)>)',
  '![x](javascript:alert(1))',
  '<javascript:alert(1)|click>',
  '<https://ok.example|a> <javascript:alert(1)>',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '*bold <img src=x onerror=alert(1)>*',
  '`code` ```\n<script>x</script>\n```',
  '> quoted <iframe src=javascript:alert(1)>',
  '<!here> <@U1|<script>> <#C1|x>',
  ':tada: :skin-tone-3: :not-one:',
  '\\](javascript:alert(1))',
  ']\n(javascript:alert(1))',
  '<style>*{}</style><object data=x>',
];

const LINKS = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'https://ok.example/a?b=<c>',
  'https://ok.example/)[x](javascript:alert(1)',
  'https://ok.example/> <script>alert(1)</script>',
  'https://ok.example/"onmouseover="alert(1)',
  'https://ok.example/ok',
];

const text = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.tuple(fc.constantFrom(...HOSTILE), fc.constantFrom(...HOSTILE)).map(([a, b]) => `${a} ${b}`),
  fc.string({ maxLength: 30 }),
);
const url = fc.oneof(fc.constantFrom(...LINKS), text);
const few = <T>(item: fc.Arbitrary<T>) => fc.array(item, { maxLength: 3 });
const textObject = fc.record({ type: fc.constantFrom('mrkdwn', 'plain_text'), text });
const button = fc.record({
  type: fc.constant('button'),
  text: fc.oneof(textObject, text),
  url,
});

const slackBlock = fc.oneof(
  fc.record({
    type: fc.constant('section'),
    text: textObject,
    fields: few(textObject),
    accessory: fc.oneof(
      button,
      fc.record({ type: fc.constant('image'), image_url: url, alt_text: text }),
    ),
  }),
  fc.record({ type: fc.constantFrom('header', 'markdown'), text: fc.oneof(textObject, text) }),
  fc.record({
    type: fc.constant('context'),
    elements: few(
      fc.oneof(
        textObject,
        fc.record({ type: fc.constant('image'), image_url: url, alt_text: text }),
      ),
    ),
  }),
  fc.record({ type: fc.constant('image'), image_url: url, alt_text: text, title: textObject }),
  fc.record({ type: fc.constant('video'), title_url: url, title: textObject }),
  fc.record({ type: fc.constant('actions'), elements: few(button) }),
  fc.record({
    type: fc.constant('rich_text'),
    elements: few(
      fc.record({
        type: fc.constantFrom(
          'rich_text_section',
          'rich_text_quote',
          'rich_text_preformatted',
          'rich_text_list',
        ),
        elements: few(
          fc.oneof(
            fc.record({
              type: fc.constant('text'),
              text,
              style: fc.record({ bold: fc.boolean(), code: fc.boolean(), italic: fc.boolean() }),
            }),
            fc.record({ type: fc.constant('link'), url, text }),
            fc.record({ type: fc.constant('emoji'), name: text }),
            fc.record({
              type: fc.constantFrom('user', 'channel', 'broadcast'),
              user_id: text,
              range: text,
            }),
            fc.record({
              type: fc.constant('rich_text_section'),
              elements: few(fc.record({ type: fc.constant('text'), text })),
            }),
          ),
        ),
      }),
    ),
  }),
);

const attachment = fc.record(
  {
    fallback: text,
    color: fc.oneof(text, fc.constantFrom('good', '#2eb886', 'danger')),
    pretext: text,
    author_name: text,
    author_link: url,
    title: text,
    title_link: url,
    text,
    fields: few(fc.record({ title: text, value: text })),
    image_url: url,
    thumb_url: url,
    footer: text,
    ts: fc.oneof(text, fc.integer()),
    actions: few(fc.record({ type: fc.constant('button'), text, url })),
    blocks: few(slackBlock),
  },
  { requiredKeys: [] },
);

const slack = fc.record(
  { text, icon_emoji: text, icon_url: url, blocks: few(slackBlock), attachments: few(attachment) },
  { requiredKeys: [] },
);

const mattermost = fc.record(
  {
    text,
    icon_url: url,
    props: fc.record({ card: text }),
    attachments: few(attachment),
  },
  { requiredKeys: ['props'] },
);

const discord = fc.record(
  {
    content: text,
    avatar_url: url,
    embeds: few(
      fc.record(
        {
          title: text,
          url,
          description: text,
          color: fc.integer({ min: 0, max: 0xffffff }),
          timestamp: text,
          author: fc.record({ name: text, url }),
          footer: fc.record({ text }),
          image: fc.record({ url }),
          thumbnail: fc.record({ url }),
          fields: few(fc.record({ name: text, value: text })),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: ['embeds'] },
);

const openUri = fc.record({
  '@type': fc.constantFrom('OpenUri', 'ViewAction'),
  name: text,
  targets: few(fc.record({ uri: url })),
  target: few(url),
});

const messageCard = fc.record(
  {
    '@type': fc.constant('MessageCard'),
    title: text,
    summary: text,
    text,
    themeColor: text,
    sections: few(
      fc.record(
        {
          title: text,
          activityTitle: text,
          activitySubtitle: text,
          activityText: text,
          text,
          facts: few(fc.record({ name: text, value: text })),
          potentialAction: few(openUri),
        },
        { requiredKeys: [] },
      ),
    ),
    potentialAction: few(openUri),
  },
  { requiredKeys: ['@type'] },
);

const adaptiveElement = fc.oneof(
  fc.record({
    type: fc.constant('TextBlock'),
    text,
    size: fc.constantFrom('Large', 'Default'),
    weight: fc.constantFrom('Bolder', 'Default'),
  }),
  fc.record({ type: fc.constant('FactSet'), facts: few(fc.record({ title: text, value: text })) }),
  fc.record({ type: fc.constant('Image'), url, altText: text }),
  fc.record({
    type: fc.constant('RichTextBlock'),
    inlines: few(fc.record({ type: fc.constant('TextRun'), text, weight: fc.constant('Bolder') })),
  }),
  fc.record({
    type: fc.constant('Container'),
    items: few(
      fc.oneof(
        fc.record({ type: fc.constant('TextBlock'), text }),
        fc.record({
          type: fc.constant('FactSet'),
          facts: few(fc.record({ title: text, value: text })),
        }),
      ),
    ),
  }),
  // Issue 44: Table cells (each a line of a markdown table) and DATE()/TIME() beside hostile text.
  fc.record({
    type: fc.constant('Table'),
    firstRowAsHeader: fc.boolean(),
    rows: few(
      fc.record({
        type: fc.constant('TableRow'),
        cells: few(
          fc.record({
            type: fc.constant('TableCell'),
            items: few(
              fc.record({
                type: fc.constant('TextBlock'),
                text: fc.oneof(
                  text,
                  text.map((t) => `{{DATE(2017-02-14T06:08:39Z, SHORT)}} ${t}`),
                ),
                size: fc.constantFrom('Large', 'Default'),
              }),
            ),
          }),
        ),
      }),
    ),
  }),
);
const adaptiveCard = fc.record({
  type: fc.constant('AdaptiveCard'),
  body: few(adaptiveElement),
  actions: few(fc.record({ type: fc.constant('Action.OpenUrl'), title: text, url })),
});
const teamsWorkflow = fc.record({
  type: fc.constant('message'),
  attachments: few(
    fc.record({
      contentType: fc.constant('application/vnd.microsoft.card.adaptive'),
      content: adaptiveCard,
    }),
  ),
});

const TAGS = new Set(
  'p br strong em del s code pre blockquote ul ol li a h1 h2 h3 h4 h5 h6 hr table thead tbody tr th td span'.split(
    ' ',
  ),
);

/** Every tag in the rendered HTML (text `<` is escaped, so each `<…>` is one), and what is wrong. */
function problems(html: string): string[] {
  const found: string[] = [];
  for (const [tag, name = '', attributes = ''] of html.matchAll(/<\/?([a-z0-9]+)([^>]*)>/gi)) {
    if (!TAGS.has(name.toLowerCase())) found.push(`tag ${tag}`);
    if (/\son[a-z]+\s*=/i.test(attributes)) found.push(`handler ${tag}`);
    for (const [, href = ''] of attributes.matchAll(/\shref="([^"]*)"/gi)) {
      if (!/^(?:https?:\/\/|mailto:)/i.test(href)) found.push(`href ${href}`);
    }
    if (/\s(?:src|style|srcdoc|formaction)=/i.test(attributes)) found.push(`attribute ${tag}`);
  }
  return found;
}

/** Issue 44: GitHub deliveries, every field the renderer reads filled with hostile text and links. */
const githubUser = fc.record({ login: text, avatar_url: url, html_url: url });
const githubRepo = fc.record({ full_name: text, html_url: url });
const githubIssue = fc.record({
  number: fc.integer({ min: 1, max: 99_999 }),
  title: text,
  html_url: url,
  body: text,
  merged: fc.boolean(),
});
const githubDelivery = fc.oneof(
  fc.record({
    event: fc.constant('push'),
    payload: fc.record({
      ref: text.map((t) => `refs/heads/${t}`),
      created: fc.boolean(),
      deleted: fc.boolean(),
      forced: fc.boolean(),
      compare: url,
      sender: githubUser,
      repository: githubRepo,
      commits: few(
        fc.record({
          id: fc.oneof(text, fc.constant('6113728f27ae82c7b1a177c8d03f9e96e0adf246')),
          message: text,
          url,
          author: fc.record({ name: text, username: text }),
        }),
      ),
    }),
  }),
  fc.record({
    event: fc.constantFrom('pull_request', 'issues'),
    payload: fc.record({
      action: fc.constantFrom('opened', 'closed', 'reopened'),
      sender: githubUser,
      repository: githubRepo,
      pull_request: githubIssue,
      issue: githubIssue,
    }),
  }),
  fc.record({
    event: fc.constant('issue_comment'),
    payload: fc.record({
      action: fc.constant('created'),
      sender: githubUser,
      repository: githubRepo,
      issue: githubIssue,
      comment: fc.record({ body: text, html_url: url }),
    }),
  }),
  fc.record({
    event: fc.constant('release'),
    payload: fc.record({
      action: fc.constant('published'),
      sender: githubUser,
      repository: githubRepo,
      release: fc.record({ tag_name: text, name: text, html_url: url, prerelease: fc.boolean() }),
    }),
  }),
  fc.record({
    event: fc.constantFrom('workflow_run', 'check_run'),
    payload: fc.record({
      action: fc.constant('completed'),
      sender: githubUser,
      repository: githubRepo,
      workflow_run: fc.record({
        name: text,
        run_number: fc.integer({ min: 1, max: 999 }),
        head_branch: text,
        conclusion: fc.oneof(text, fc.constantFrom('success', 'failure')),
        html_url: url,
      }),
      check_run: fc.record({
        name: text,
        conclusion: text,
        html_url: url,
        head_sha: text,
        check_suite: fc.record({ head_branch: text }),
      }),
    }),
  }),
);

describe('payload decoders and the message renderer (#25): nothing unsafe gets through', () => {
  it('the check itself finds foreign tags, handlers and unsafe links', () => {
    expect(
      problems(
        '<p><img src=x><b onclick="x">b</b><a href="javascript:alert(1)">a</a><a href="https://ok.example">ok</a></p>',
      ),
    ).toEqual([
      'tag <img src=x>',
      'attribute <img src=x>',
      'tag <b onclick="x">',
      'handler <b onclick="x">',
      'tag </b>',
      'href javascript:alert(1)',
    ]);
    expect(
      problems(renderMarkdown('<img src=x onerror=alert(1)> [x](javascript:alert(1))').value),
    ).toEqual([]);
  });

  it.each([
    ['Slack', slack],
    ['Mattermost', mattermost],
    ['Discord', discord],
    ['Teams MessageCard', messageCard],
    ['Teams Adaptive Card', adaptiveCard],
    ['Teams Workflows message', teamsWorkflow],
  ] as [string, fc.Arbitrary<Record<string, unknown>>][])(
    '%s: 300 hostile payloads render only safe tags and links',
    (_family, payloads) => {
      let rendered = 0;
      fc.assert(
        fc.property(payloads, (payload) => {
          let body: string;
          let avatar: { url?: string } | undefined;
          try {
            ({ body, avatar } = parseIncomingPost(payload, undefined));
          } catch (err) {
            // Nothing to show is a 422, never anything else.
            expect(err).toBeInstanceOf(AppError);
            expect((err as AppError).status).toBe(422);
            return;
          }
          rendered += 1;
          if (avatar?.url) expect(avatar.url).toMatch(/^https?:\/\/\S+$/);
          expect({ body, problems: problems(renderMarkdown(body).value) }).toEqual({
            body,
            problems: [],
          });
        }),
        { numRuns: 300, seed: 20261125 },
      );
      // Most payloads render something, else the property proves little.
      expect(rendered).toBeGreaterThan(150);
    },
  );

  it('GitHub deliveries (issue 44): 300 hostile deliveries render only safe tags and links', () => {
    let rendered = 0;
    fc.assert(
      fc.property(githubDelivery, ({ event, payload }) => {
        const message = renderGithubEvent(event, payload);
        // A push of no commits that created nothing is not posted; nothing else here is skipped.
        if (!message) return;
        rendered += 1;
        if (message.avatarUrl) expect(message.avatarUrl).toMatch(/^https:\/\/\S+$/);
        const body = message.text;
        expect({ body, problems: problems(renderMarkdown(body).value) }).toEqual({
          body,
          problems: [],
        });
      }),
      { numRuns: 300, seed: 20261206 },
    );
    expect(rendered).toBeGreaterThan(200);
  });
});
