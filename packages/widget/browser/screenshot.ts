import type { CaptureModule } from './capture-types';
import { h, on } from './dom';

/**
 * "Attach a screenshot" (issue 28): loads the capture chunk on first use, then lets the visitor
 * black out private areas by dragging boxes (mouse, pen or touch) before it is sent. The boxes
 * are burnt into the image sent; the page never sees any of it.
 */

let loading: Promise<CaptureModule> | null = null;

/** The chunk beside v1.js, as a classic script (same CSP rules as the bundle, no global). */
export function loadCapture(base: string): Promise<CaptureModule> {
  if (!loading) {
    loading = new Promise<CaptureModule>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = base + __CAPTURE_PATH__;
      script.async = true;
      script.crossOrigin = 'anonymous';
      script.addEventListener('ferry-capture', (event) => {
        resolve((event as CustomEvent<CaptureModule>).detail);
      });
      script.addEventListener('error', () => {
        loading = null;
        reject(new Error('The screenshot code could not be loaded.'));
      });
      (document.head || document.documentElement).appendChild(script);
    });
  }
  return loading;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The capture with its black boxes, as the data URL sent (PNG, else JPEG when too big). */
export function flatten(base: HTMLCanvasElement, boxes: Box[], maxBytes: number): string | null {
  const out = document.createElement('canvas');
  out.width = base.width;
  out.height = base.height;
  const ctx = out.getContext('2d');
  if (!ctx) return null;
  ctx.drawImage(base, 0, 0);
  ctx.fillStyle = '#000';
  for (const b of boxes) ctx.fillRect(b.x, b.y, b.w, b.h);
  // base64 is 4/3 of the bytes.
  for (const [type, quality] of [
    ['image/png', undefined],
    ['image/jpeg', 0.85],
    ['image/jpeg', 0.6],
  ] as const) {
    const url = out.toDataURL(type, quality);
    if (url.length * 0.75 < maxBytes) return url;
  }
  return null;
}

/**
 * The redaction step: the capture at the panel's size, drag to draw a black box; Undo, Remove
 * screenshot (also the keyboard way out), Done. Calls `done` with the boxes, or null to remove.
 */
export function openEditor(
  root: HTMLElement,
  base: HTMLCanvasElement,
  initial: Box[],
  done: (boxes: Box[] | null) => void,
): void {
  const boxes = initial.slice();
  const view = h('canvas', {
    class: 'shot-canvas',
    width: base.width,
    height: base.height,
    role: 'img',
    'aria-label': 'Screenshot of this page. Drag over anything private to black it out.',
  });
  const undo = h('button', { type: 'button', class: 'btn secondary' }, 'Undo');
  const remove = h('button', { type: 'button', class: 'btn link' }, 'Remove screenshot');
  const finish = h('button', { type: 'button', class: 'btn primary' }, 'Done');
  const status = h('p', { class: 'muted', 'aria-live': 'polite' });
  const editor = h(
    'div',
    {
      class: 'shot-editor',
      role: 'dialog',
      'aria-modal': 'true',
      'aria-labelledby': 'ferry-shot-title',
    },
    h(
      'div',
      { class: 'shot-box' },
      h('h2', { id: 'ferry-shot-title' }, 'Hide anything private'),
      h(
        'p',
        { class: 'muted' },
        'Drag over names, emails or numbers to black them out. The picked element is outlined.',
      ),
      h('div', { class: 'shot-frame' }, view),
      status,
      h('div', { class: 'shot-actions' }, remove, h('span', { class: 'grow' }), undo, finish),
    ),
  );
  root.appendChild(editor);
  const ctx = view.getContext('2d');

  function paint(extra?: Box): void {
    if (!ctx) return;
    ctx.drawImage(base, 0, 0);
    ctx.fillStyle = '#000';
    for (const b of extra ? boxes.concat(extra) : boxes) ctx.fillRect(b.x, b.y, b.w, b.h);
    undo.hidden = !boxes.length;
    status.textContent = boxes.length
      ? `${boxes.length} area${boxes.length === 1 ? '' : 's'} blacked out.`
      : '';
  }

  /** Pointer position in image pixels (the canvas is shown scaled down). */
  function at(event: PointerEvent): { x: number; y: number } {
    const rect = view.getBoundingClientRect();
    const x = ((event.clientX - rect.left) / rect.width) * base.width;
    const y = ((event.clientY - rect.top) / rect.height) * base.height;
    return {
      x: Math.max(0, Math.min(base.width, x)),
      y: Math.max(0, Math.min(base.height, y)),
    };
  }

  let start: { x: number; y: number } | null = null;
  let current: Box | null = null;
  const boxFrom = (a: { x: number; y: number }, b: { x: number; y: number }): Box => ({
    x: Math.round(Math.min(a.x, b.x)),
    y: Math.round(Math.min(a.y, b.y)),
    w: Math.round(Math.abs(a.x - b.x)),
    h: Math.round(Math.abs(a.y - b.y)),
  });
  on(view as unknown as HTMLElement, 'pointerdown', (event) => {
    event.preventDefault();
    start = at(event);
    current = null;
    if (view.setPointerCapture) view.setPointerCapture(event.pointerId);
  });
  on(view as unknown as HTMLElement, 'pointermove', (event) => {
    if (!start) return;
    current = boxFrom(start, at(event));
    paint(current);
  });
  const end = (event: PointerEvent) => {
    if (!start) return;
    const box = boxFrom(start, at(event));
    start = null;
    current = null;
    if (box.w >= 4 && box.h >= 4) boxes.push(box);
    paint();
  };
  on(view as unknown as HTMLElement, 'pointerup', end);
  on(view as unknown as HTMLElement, 'pointercancel', () => {
    start = null;
    paint();
  });

  function close(result: Box[] | null): void {
    if (editor.parentNode) editor.parentNode.removeChild(editor);
    done(result);
  }
  on(undo, 'click', () => {
    boxes.pop();
    paint();
    (boxes.length ? undo : finish).focus();
  });
  on(remove, 'click', () => close(null));
  on(finish, 'click', () => close(boxes));
  on(editor, 'keydown', (event) => {
    if (event.key === 'Escape' || event.key === 'Esc') {
      event.preventDefault();
      event.stopPropagation();
      close(boxes);
    } else if (event.key === 'Tab') {
      // Keep focus inside the step: Remove, Undo (when shown), Done.
      const items = [remove, undo, finish].filter((el) => !el.hidden);
      const active = (root.getRootNode() as ShadowRoot).activeElement as HTMLElement | null;
      const i = active ? items.indexOf(active as HTMLButtonElement) : -1;
      const next = items[(i + (event.shiftKey ? items.length - 1 : 1)) % items.length];
      if (next) {
        event.preventDefault();
        next.focus();
      }
    }
  });
  paint();
  finish.focus();
}
