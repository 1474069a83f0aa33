/** What feedback says about the page and the picked element (SPEC.md "Issue body" fields). */

export const MAX_PARTIALS = 40;
export const MAX_OUTER_HTML = 400;
export const MAX_TEXT = 2000;

export interface PickedElement {
  selector: string;
  tag: string;
  text: string;
  outer_html: string;
}

export interface PageContext {
  url: string;
  path: string;
  controller_action: string | null;
  viewport: { width: number; height: number };
  partials: string[];
}

export function pageContext(): PageContext {
  const meta = document.querySelector('meta[name="service-controller-action"]');
  const action = meta ? (meta.getAttribute('content') || '').trim() : '';
  return {
    url: location.href,
    path: location.pathname,
    controller_action: action || null,
    viewport: { width: window.innerWidth, height: window.innerHeight },
    partials: partials(),
  };
}

const BEGIN = /^\s*BEGIN\s+(\S+)/;

/** `<!-- BEGIN app/views/… -->` comments (Rails' annotate_rendered_view_with_filenames), in order. */
export function partials(): string[] {
  const found: string[] = [];
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_COMMENT);
  let node = walker.nextNode();
  while (node && found.length < MAX_PARTIALS) {
    const match = BEGIN.exec(node.nodeValue || '');
    if (match && match[1]) found.push(match[1]);
    node = walker.nextNode();
  }
  return found;
}

export function describeElement(el: Element): PickedElement {
  const raw = el instanceof HTMLElement ? el.innerText : el.textContent;
  return {
    selector: selectorFor(el),
    tag: el.localName.toLowerCase(),
    text: (raw || '').replace(/\s+/g, ' ').trim().slice(0, MAX_TEXT),
    outer_html: el.outerHTML.slice(0, MAX_OUTER_HTML),
  };
}

/** `#id` when the id is a plain CSS identifier naming exactly one element. */
function uniqueId(el: Element): string | null {
  const id = el.id;
  if (!id || typeof CSS === 'undefined' || typeof CSS.escape !== 'function') return null;
  if (CSS.escape(id) !== id) return null;
  try {
    return document.querySelectorAll(`#${id}`).length === 1 ? `#${id}` : null;
  } catch {
    return null;
  }
}

/**
 * A stable selector: `#id` when unique, else `tag:nth-of-type(n)` steps from the nearest
 * ancestor with a unique id (or from body), joined by ' > '.
 */
export function selectorFor(el: Element): string {
  const own = uniqueId(el);
  if (own) return own;
  const tag = el.localName.toLowerCase();
  if (el === document.body || el === document.documentElement || el === document.head) return tag;
  const steps: string[] = [];
  let node: Element | null = el;
  while (node && node !== document.body && node !== document.documentElement) {
    const anchor = node === el ? null : uniqueId(node);
    if (anchor) {
      steps.unshift(anchor);
      return steps.join(' > ');
    }
    steps.unshift(step(node));
    node = node.parentElement;
  }
  steps.unshift(node === document.body ? 'body' : 'html');
  return steps.join(' > ');
}

function step(el: Element): string {
  const name = el.localName.toLowerCase();
  let index = 1;
  for (let sibling = el.previousElementSibling; sibling; sibling = sibling.previousElementSibling) {
    if (sibling.localName === el.localName) index += 1;
  }
  return `${cssName(name)}:nth-of-type(${index})`;
}

function cssName(name: string): string {
  return typeof CSS !== 'undefined' && typeof CSS.escape === 'function' ? CSS.escape(name) : name;
}

/** A short human label: `tag#id.class.class`. */
export function elementLabel(el: Element): string {
  let label = el.localName.toLowerCase();
  if (el.id) label += `#${el.id}`;
  const classes = (el.getAttribute('class') || '').split(/\s+/).filter(Boolean).slice(0, 2);
  for (const name of classes) label += `.${name}`;
  return label.length > 60 ? `${label.slice(0, 59)}…` : label;
}
