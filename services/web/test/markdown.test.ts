import { describe, expect, it } from 'vitest';
import type { Message } from '@ferry/db';
import { mentionHandles } from '@ferry/workspace';
import { renderMarkdown } from '../src/shared/markdown.js';
import {
  continuesGroup,
  GROUP_WINDOW_MS,
  messageItems,
} from '../src/features/rooms/message-views.js';

const render = (body: string): string =>
  renderMarkdown(body, mentionHandles(['Ada Lovelace', 'Bob'])).value;

/** Every tag the output opens: the proof that nothing the author typed became markup. */
function tags(out: string): string[] {
  return [...out.matchAll(/<([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase());
}

/** What a reader sees: tags removed, entities decoded, line breaks as newlines. */
function shownText(out: string): string {
  return out
    .replace(/<br\s*\/?>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&amp;/g, '&')
    .trim();
}

describe('markdown: what people type is kept', () => {
  it.each([
    '<div> is my favourite tag',
    'a<b and c>d',
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<iframe src="https://evil.test"></iframe>',
    '<style>body{display:none}</style>',
    '<div onclick="alert(1)">hi</div>',
    '<textarea>typed</textarea> after',
    'a <!-- comment --> b',
    'x < y > z & w "quoted" \'single\'',
    '<a href="javascript:alert(1)">y</a>',
    '</p><p>closing first',
  ])('shows %j as typed, with no markup of its own', (body) => {
    const out = render(body);
    expect(tags(out)).toEqual(['p']);
    expect(shownText(out)).toBe(body);
  });

  it('keeps the lines of a message that starts with a tag', () => {
    const out = render('<script>alert(1)</script>\nsecond line');
    expect(tags(out)).toEqual(['p', 'br']);
    expect(shownText(out)).toBe('<script>alert(1)</script>\nsecond line');
  });

  it('still renders markdown around and after the tags', () => {
    expect(render('<div> is my **favourite** tag')).toBe(
      '<p>&lt;div&gt; is my <strong>favourite</strong> tag</p>',
    );
    expect(render('- a\n- <b>b</b>')).toBe(
      '<ul>\n<li>a</li>\n<li>&lt;b&gt;b&lt;/b&gt;</li>\n</ul>',
    );
    expect(render('> <i>quoted</i> *tag*')).toBe(
      '<blockquote>\n<p>&lt;i&gt;quoted&lt;/i&gt; <em>tag</em></p>\n</blockquote>',
    );
    expect(render('| a | b |\n|---|---|\n| 1 | <u>2</u> |')).toContain(
      '<td>&lt;u&gt;2&lt;/u&gt;</td>',
    );
  });

  it('shows tags inside code spans and blocks as typed, once escaped', () => {
    expect(render('use `<b>x</b>` and `a<b`')).toBe(
      '<p>use <code>&lt;b&gt;x&lt;/b&gt;</code> and <code>a&lt;b</code></p>',
    );
    expect(render('```\n@ada <b>x</b>\n```')).toBe(
      '<pre><code>@ada &lt;b&gt;x&lt;/b&gt;\n</code></pre>',
    );
  });

  it.each([
    ['[x](javascript:alert(1))', 'x'],
    ['[x](JaVaScRiPt:alert(1))', 'x'],
    // Not a link in markdown at all (a tab in the URL): shown as typed.
    ['[x](java\tscript:alert(1))', '[x](java\tscript:alert(1))'],
    ['![x](javascript:alert(1))', 'x'],
    ['[x](data:text/html,hi)', 'x'],
  ])('never links %j', (body, text) => {
    const out = render(body);
    expect(out).not.toMatch(/href|<img/);
    expect(shownText(out)).toBe(text);
  });

  it('renders markdown, safe links and mentions of members only', () => {
    const out = render(
      '**bold** `@ada` see https://example.test and [docs](https://docs.test "Docs")\n' +
        'hi @ada, @BOB and @adalovelace; not @nobody or bob@ada.test <u>@bob</u>',
    );
    expect(out).toContain('<strong>bold</strong>');
    expect(out).toContain('<code>@ada</code>');
    expect(out).toContain(
      '<a href="https://example.test" rel="noopener noreferrer nofollow" target="_blank">',
    );
    expect(out).toContain('title="Docs" rel="noopener noreferrer nofollow" target="_blank"');
    expect(out).toContain('<span class="mention">@ada</span>,');
    expect(out).toContain('<span class="mention">@BOB</span>');
    expect(out).toContain('<span class="mention">@adalovelace</span>');
    expect(out).toContain('not @nobody');
    expect(out).not.toContain('<span class="mention">@ada.test');
    expect(out).toContain('&lt;u&gt;<span class="mention">@bob</span>&lt;/u&gt;');
    expect(render('<https://example.test/a?b=1>')).toContain('href="https://example.test/a?b=1"');
  });

  it('renders a body the same each time, with the mentions of the workspace it is shown in', () => {
    // Rendered bodies are kept: the same text in another workspace (other handles) must not get
    // the first one's mentions, typed or written as an entity.
    for (const body of ['hi @ada', 'hi &#64;ada', 'plain **text**']) {
      const inAda = renderMarkdown(body, mentionHandles(['Ada'])).value;
      const inBob = renderMarkdown(body, mentionHandles(['Bob'])).value;
      const inNone = renderMarkdown(body).value;
      expect(renderMarkdown(body, mentionHandles(['Ada'])).value).toBe(inAda);
      expect(inBob).not.toContain('class="mention"');
      expect(inNone).toBe(inBob);
      if (body.includes('ada')) expect(inAda).toContain('<span class="mention">@ada</span>');
      else expect(inAda).toBe(inBob);
    }
  });
});

describe('message groups', () => {
  const t0 = new Date('2026-11-24T09:00:00Z');
  let n = 0;
  function message(overrides: Partial<Message> = {}): Message {
    n += 1;
    return {
      id: `msg_01jd0000000000000000000${String(n).padStart(3, '0')}`,
      room_id: 'room_1',
      workspace_id: 'wsp_1',
      author_kind: 'member',
      author_member_id: 'mem_ada',
      author_ref: null,
      display_name: 'Ada Lovelace',
      body: `message ${n}`,
      kind: 'text',
      metadata: {},
      created_at: t0,
      ...overrides,
    };
  }
  const at = (ms: number): Date => new Date(t0.getTime() + ms);

  it('groups consecutive messages of one author within five minutes', () => {
    const first = message();
    expect(continuesGroup(message({ created_at: at(GROUP_WINDOW_MS) }), first)).toBe(true);
    expect(continuesGroup(message({ created_at: at(GROUP_WINDOW_MS + 1) }), first)).toBe(false);
    expect(continuesGroup(message(), undefined)).toBe(false);
    expect(continuesGroup(message({ author_member_id: 'mem_bob' }), first)).toBe(false);
    // Webhook posts never group (issue 42, defect 6): each is its own event from another system,
    // with its own header, badge and payload, even from one key and one name a second apart.
    const hook = message({ author_kind: 'webhook', author_member_id: null, author_ref: 'iwh_1' });
    expect(continuesGroup({ ...hook, display_name: 'CI bot' }, hook)).toBe(false);
    expect(continuesGroup(message({ ...hook, body: 'again', created_at: at(1_000) }), hook)).toBe(
      false,
    );
    // Proposals and progress chips always stand alone.
    expect(continuesGroup(message({ kind: 'proposal' }), first)).toBe(false);
    expect(continuesGroup(message(), message({ kind: 'progress' }))).toBe(false);
  });

  it('renders the header once per group, kept for screen readers on the others', () => {
    const list = [
      message({ body: 'one' }),
      message({ body: 'two', created_at: at(60_000) }),
      message({
        body: 'three',
        created_at: at(120_000),
        author_member_id: 'mem_bob',
        display_name: 'Bob',
      }),
      message({
        body: 'four',
        created_at: at(600_000),
        author_member_id: 'mem_bob',
        display_name: 'Bob',
      }),
    ];
    const items = messageItems(list, new Set()).map((item) => item.value);
    expect(items.map((item) => item.includes('class="message grouped'))).toEqual([
      false,
      true,
      false,
      false,
    ]);
    expect(items[1]).toContain('<div class="meta visually-hidden">');
    expect(items[1]).toContain('<span class="author">Ada Lovelace</span>');
    expect(items[1]).not.toContain('class="avatar ');
    // A page that starts mid-group (earlier messages) continues the group it was given.
    const continued = messageItems([list[1]!], new Set(), { before: list[0] });
    expect(continued[0]!.value).toContain('class="message grouped');
  });

  it('gives every webhook post its header, badge and own "View payload"', () => {
    const post = (body: string, ms: number) =>
      message({
        body,
        created_at: at(ms),
        author_kind: 'webhook',
        author_member_id: null,
        author_ref: 'iwh_ci',
        display_name: 'CI',
      });
    const posts = [post('Build 41 passed', 0), post('Build 42 failed', 30_000)];
    const payloads = new Map(
      posts.map((p) => [
        p.id,
        { format: 'json', payload: `{"text":"${p.body}"}`, truncated: false },
      ]),
    );
    const items = messageItems(posts, new Set(), { payloads }).map((item) => item.value);
    for (const [i, item] of items.entries()) {
      expect(item).not.toContain('class="message grouped');
      expect(item).toContain('<div class="meta">');
      expect(item).toContain('<span class="author" title="CI">CI</span>');
      expect(item).toMatch(/class="badge link"[^>]*>webhook</);
      // Its own payload, inside its own item.
      expect(item.match(/<summary>View payload<\/summary>/g)).toHaveLength(1);
      expect(item).toContain(posts[i]!.body);
    }
  });
});

describe('webhook messages from other systems (#25): the same escaping', () => {
  const hookMessage = (overrides: Partial<Message> = {}): Message => ({
    id: 'msg_01jd00000000000000000wh001',
    room_id: 'room_1',
    workspace_id: 'wsp_1',
    author_kind: 'webhook',
    author_member_id: null,
    author_ref: 'iwh_1',
    display_name: 'CI',
    body: 'Deploy',
    kind: 'text',
    metadata: {},
    created_at: new Date('2026-11-25T09:00:00Z'),
    ...overrides,
  });

  it.each([
    ['[click](<javascript:alert(1)>)', 'click'],
    ['[click](<JavaScript:alert(1)>)', 'click'],
    ['[click](<data:text/html,hi>)', 'click'],
    ['> 🟥 **[title](<javascript:alert(1)>)**', '🟥 title'],
  ])('never links the decoders %j', (body, text) => {
    const out = render(body);
    expect(out).not.toMatch(/href|<img/);
    expect(shownText(out)).toBe(text);
  });

  it('links the decoders angle-bracket destinations and keeps their tags as text', () => {
    expect(render('[build 42](<https://ci.example/42?a=1&b=(2)>)')).toContain(
      '<a href="https://ci.example/42?a=1&amp;b=(2)" rel="noopener noreferrer nofollow" target="_blank">build 42</a>',
    );
    const quoted = render(
      '> 🟩 **<img src=x onerror=alert(1)>**\n>\n> - **Env**: <script>x</script>',
    );
    expect(tags(quoted)).toEqual(['blockquote', 'p', 'strong', 'ul', 'li', 'strong']);
  });

  it('escapes the avatar emoji and the payload shown to admins; members get no payload', () => {
    const message = hookMessage({
      metadata: { webhook_id: 'iwh_1', avatar_emoji: '<img src=x onerror=alert(1)>' },
    });
    const payload = {
      format: 'json',
      payload: '{"text":"</code></pre><script>alert(1)</script>","url":"javascript:alert(1)"}',
      truncated: false,
    };
    const [admin] = messageItems([message], new Set(), {
      payloads: new Map([[message.id, payload]]),
    }).map((item) => item.value);
    expect(admin).toContain('<summary>View payload</summary>');
    expect(admin).toContain('&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(admin).toContain('class="avatar emoji"');
    expect(admin).not.toMatch(/<script|<img|href="javascript/);
    const [member] = messageItems([message], new Set()).map((item) => item.value);
    expect(member).not.toContain('View payload');
  });
});
