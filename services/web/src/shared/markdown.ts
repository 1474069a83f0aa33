import { Marked, type Tokens } from 'marked';
import sanitizeHtml from 'sanitize-html';
import { MENTION, type MentionHandles } from '@ferry/workspace';
import { escapeHtml, raw, type SafeHtml } from './html.js';

/**
 * Message bodies are stored as the author typed them and rendered here at read time, so a fix to
 * the renderer or the sanitizer applies to every message ever posted.
 *
 * Two layers: marked's renderer turns raw HTML into the text typed and drops unsafe links as it
 * writes, then sanitize-html keeps only an allowlist of tags, attributes and URL schemes. The
 * second layer is the one that guarantees safety; the first keeps the output readable (link text
 * instead of an empty <a>) and keeps what people type: `a<b and c>d` or a message about `<div>`
 * is shown as typed, as in Slack, never rendered and never silently dropped.
 */

const SAFE_URL = /^(?:https?:\/\/|mailto:)/i;

function safeUrl(href: string): boolean {
  // Browsers ignore control characters and spaces inside a scheme ("java\tscript:").
  const compact = [...href].filter((c) => c.charCodeAt(0) > 0x20).join('');
  return SAFE_URL.test(compact);
}

const marked = new Marked({
  gfm: true,
  // Chat, not documents: a single newline is a line break.
  breaks: true,
  tokenizer: {
    // A message starting with a tag (`<div> is my favourite tag`, `<script>`) is a paragraph like
    // any other, so the markdown in it still renders and its tags come out as text (below).
    // CommonMark would make it an HTML block, shown raw or, as here before, lost.
    html(src) {
      if (!this.rules.block.html.test(src)) return false;
      return (this.paragraph(src) as Tokens.HTML | undefined) ?? false;
    },
  },
  renderer: {
    // Raw HTML inside text is shown as the text typed, never rendered.
    html: (token) => escapeHtml(token.text),
    link(token) {
      const text = this.parser.parseInline(token.tokens);
      if (!safeUrl(token.href)) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
      return `<a href="${escapeHtml(token.href)}"${title}>${text}</a>`;
    },
    // No inline images (tracking pixels, layout breakage): a link to the image instead.
    image(token) {
      const label = escapeHtml(token.text || token.href);
      if (!safeUrl(token.href)) return label;
      return `<a href="${escapeHtml(token.href)}">${label}</a>`;
    },
  },
});

/** Tags whose text is never scanned for mentions: code, and links (their text is the link). */
const NO_MENTIONS = new Set(['code', 'pre', 'a']);

function sanitizeOptions(handles: MentionHandles): sanitizeHtml.IOptions {
  return {
    allowedTags: [
      'p',
      'br',
      'strong',
      'em',
      'del',
      's',
      'code',
      'pre',
      'blockquote',
      'ul',
      'ol',
      'li',
      'a',
      'h1',
      'h2',
      'h3',
      'h4',
      'h5',
      'h6',
      'hr',
      'table',
      'thead',
      'tbody',
      'tr',
      'th',
      'td',
      'span',
    ],
    allowedAttributes: {
      a: ['href', 'title', 'rel', 'target'],
      code: ['class'],
      span: ['class'],
      ol: ['start'],
      th: ['align'],
      td: ['align'],
    },
    allowedClasses: { code: [/^language-[\w-]+$/], span: ['mention'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesAppliedToAttributes: ['href'],
    allowProtocolRelative: false,
    // script, style, textarea...: dropped with their content, never shown as text.
    disallowedTagsMode: 'discard',
    transformTags: {
      a: (tagName, attribs) => ({
        tagName,
        attribs: { ...attribs, rel: 'noopener noreferrer nofollow', target: '_blank' },
      }),
    },
    // `text` arrives already escaped; only `@handle` (letters, digits, _.-) is wrapped, so no
    // markup from the author can get in through here.
    textFilter: (text, tagName) => {
      if (handles.size === 0 || NO_MENTIONS.has(tagName) || !text.includes('@')) return text;
      return text.replace(MENTION, (match, before: string, handle: string) =>
        handles.has(handle.toLowerCase())
          ? `${before}<span class="mention">@${handle}</span>`
          : match,
      );
    },
  };
}

/** Markdown -> sanitized HTML, with `@handle` of workspace members highlighted. */
export function renderMarkdown(body: string, handles: MentionHandles = new Set()): SafeHtml {
  const key = cacheKey(body, handles);
  const cached = rendered.get(key);
  if (cached !== undefined) {
    // Most recently used last, so the oldest unused go first.
    rendered.delete(key);
    rendered.set(key, cached);
    return raw(cached);
  }
  const unsafe = marked.parse(body, { async: false });
  const out = sanitizeHtml(unsafe, sanitizeOptions(handles)).trim();
  remember(key, out);
  return raw(out);
}

/**
 * Rendered bodies, most recently used last. A room page shows the same latest messages to every
 * reader on every view and every refused form, and parsing then sanitizing each was most of
 * its cost. The output is a pure function of the body and the handles that may match, so it is
 * kept; a change to the renderer ships with a restart, which empties this. Bounded in characters.
 */
const rendered = new Map<string, string>();
const CACHE_CHARS = 4_000_000;
let cachedChars = 0;

function remember(key: string, out: string): void {
  const size = key.length + out.length;
  if (size > CACHE_CHARS / 100) return;
  rendered.set(key, out);
  cachedChars += size;
  for (const [oldKey, oldOut] of rendered) {
    if (cachedChars <= CACHE_CHARS) break;
    rendered.delete(oldKey);
    cachedChars -= oldKey.length + oldOut.length;
  }
}

/**
 * The handles can only change a text that holds an `@`, typed or written as an entity (`&#64;`):
 * other bodies render alike in every workspace, keyed by the body alone. The rest are keyed by the
 * body and the handle set too (its sorted contents, worked out once per set: a page passes one set
 * to all its messages).
 */
function cacheKey(body: string, handles: MentionHandles): string {
  if (handles.size === 0 || !/[@&]/.test(body)) return `\u0000${body}`;
  return `${handlesKey(handles)}\u0000${body}`;
}

const handleKeys = new WeakMap<MentionHandles, string>();
function handlesKey(handles: MentionHandles): string {
  let key = handleKeys.get(handles);
  if (key === undefined) {
    key = [...handles].sort().join(' ');
    handleKeys.set(handles, key);
  }
  return key;
}
