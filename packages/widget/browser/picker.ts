import { elementLabel } from './context';
import { h, on } from './dom';
import { safe } from './errors';

/** Pointer events a pick swallows so the page never sees the click that picks. */
const BLOCKED = [
  'pointerdown',
  'mousedown',
  'pointerup',
  'mouseup',
  'click',
  'dblclick',
  'auxclick',
];

/**
 * "Pick an element": outlines what the pointer is over; a click picks it (the page never sees
 * that click), Escape or the hint's Cancel gives up. Calls `done` once with the element or null.
 */
export function startPicker(
  host: HTMLElement,
  root: ShadowRoot,
  done: (picked: Element | null) => void,
): () => void {
  const tag = h('div', { class: 'pick-tag' });
  const box = h('div', { class: 'pick-box', hidden: true }, tag);
  const cancel = h('button', { type: 'button', class: 'btn' }, 'Cancel');
  const hint = h(
    'div',
    { class: 'hint', role: 'status' },
    h('span', null, 'Click an element to attach it · Esc to cancel'),
    cancel,
  );
  root.appendChild(box);
  root.appendChild(hint);

  let current: Element | null = null;
  let frame = 0;
  let finished = false;

  const under = (x: number, y: number): Element | null => {
    const list =
      typeof document.elementsFromPoint === 'function'
        ? document.elementsFromPoint(x, y)
        : [document.elementFromPoint(x, y)];
    for (const el of list) {
      if (el && el !== host && !host.contains(el) && el !== document.documentElement) return el;
    }
    return document.body;
  };

  const draw = (): void => {
    frame = 0;
    if (!current || !current.isConnected) {
      box.hidden = true;
      return;
    }
    const rect = current.getBoundingClientRect();
    box.hidden = false;
    box.style.transform = `translate(${Math.round(rect.left)}px, ${Math.round(rect.top)}px)`;
    box.style.width = `${Math.max(Math.round(rect.width), 4)}px`;
    box.style.height = `${Math.max(Math.round(rect.height), 4)}px`;
    box.className = rect.top < 28 ? 'pick-box low' : 'pick-box';
    tag.textContent = elementLabel(current);
  };
  const schedule = (): void => {
    if (!frame) frame = requestAnimationFrame(safe(draw));
  };

  const ours = (event: Event): boolean =>
    typeof event.composedPath === 'function' && event.composedPath().indexOf(host) >= 0;

  const onMove = safe((event: MouseEvent) => {
    if (ours(event)) return;
    const el = under(event.clientX, event.clientY);
    if (el !== current) {
      current = el;
      schedule();
    }
  });
  const onBlocked = safe((event: MouseEvent) => {
    if (ours(event)) return; // the hint's own Cancel button
    event.preventDefault();
    event.stopImmediatePropagation();
    if (event.type === 'click') finish(under(event.clientX, event.clientY) || current);
  });
  const onKey = safe((event: KeyboardEvent) => {
    if (event.key !== 'Escape' && event.key !== 'Esc') return;
    event.preventDefault();
    event.stopImmediatePropagation();
    finish(null);
  });
  const onScroll = safe(schedule);

  const listeners: [string, EventListener, AddEventListenerOptions][] = [
    ['mousemove', onMove as EventListener, { capture: true, passive: true }],
    ['keydown', onKey as EventListener, { capture: true }],
    ['scroll', onScroll, { capture: true, passive: true }],
    ['resize', onScroll, { passive: true }],
  ];
  for (const type of BLOCKED) listeners.push([type, onBlocked as EventListener, { capture: true }]);
  for (const [type, listener, options] of listeners)
    window.addEventListener(type, listener, options);

  function finish(picked: Element | null): void {
    if (finished) return;
    finished = true;
    for (const [type, listener, options] of listeners) {
      window.removeEventListener(type, listener, options);
    }
    if (frame) cancelAnimationFrame(frame);
    if (box.parentNode) box.parentNode.removeChild(box);
    if (hint.parentNode) hint.parentNode.removeChild(hint);
    done(picked);
  }

  on(cancel, 'click', () => finish(null));
  return () => finish(null);
}
