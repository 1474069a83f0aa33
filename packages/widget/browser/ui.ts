import type { Api } from './api';
import { describeElement, elementLabel, pageContext, type PickedElement } from './context';
import { append, h, icon, ICONS, on } from './dom';
import { evidenceSnapshot, evidenceSummary, type Evidence } from './evidence';
import { startPicker } from './picker';
import { flatten, loadCapture, openEditor, type Box } from './screenshot';

/** The server's cap on a screenshot (web refuses more with a 413). */
const SHOT_MAX_BYTES = 2 * 1024 * 1024;
const SHOT_FAILED = 'The screenshot could not be taken. Send without it, or try again.';

export interface Identity {
  label?: string;
  role?: string;
  email?: string;
}

export interface Ui {
  open(): void;
  setIdentity(identity: Identity): void;
}

const HOST_STYLE: [string, string][] = [
  ['all', 'initial'],
  ['position', 'fixed'],
  ['top', '0'],
  ['left', '0'],
  ['width', '0'],
  ['height', '0'],
  ['display', 'block'],
  ['visibility', 'visible'],
  ['opacity', '1'],
  ['overflow', 'visible'],
  ['z-index', '2147483647'],
  ['pointer-events', 'auto'],
];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const FOCUSABLE = 'button, input, textarea, select, a[href], [tabindex]:not([tabindex="-1"])';

/** The launcher and panel, in a shadow root on one host element appended to body. */
export function createUi(api: Api, getIdentity: () => Identity, base: string): Ui {
  const host = document.createElement('ferry-feedback');
  // Inline !important declarations beat any page rule aimed at the host (`* { all: unset }`).
  for (const [prop, value] of HOST_STYLE) host.style.setProperty(prop, value, 'important');
  const shadow = host.attachShadow({ mode: 'open' });
  applyStyles(shadow);

  const root = h('div', { class: 'root' });
  shadow.appendChild(root);

  // Launcher
  const launcher = h(
    'button',
    {
      type: 'button',
      class: 'launcher',
      'aria-label': 'Send feedback',
      'aria-haspopup': 'dialog',
      'aria-expanded': 'false',
    },
    icon(ICONS.message),
    h('span', null, 'Feedback'),
  );

  // Panel: header
  const closeButton = h(
    'button',
    { type: 'button', class: 'icon-btn', 'aria-label': 'Close' },
    icon(ICONS.close),
  );
  const heading = h('h2', { id: 'ferry-title' }, 'Send feedback');

  // Panel: form
  const note = h('textarea', {
    id: 'ferry-note',
    name: 'note',
    required: true,
    rows: 4,
    maxlength: 10000,
    placeholder: 'Describe what you saw and what you expected.',
    'aria-describedby': 'ferry-note-error',
  });
  const noteError = h('p', { id: 'ferry-note-error', class: 'field-error', hidden: true });
  const nameInput = h('input', { id: 'ferry-name', name: 'name', autocomplete: 'name' });
  const emailInput = h('input', {
    id: 'ferry-email',
    name: 'email',
    type: 'email',
    autocomplete: 'email',
    'aria-describedby': 'ferry-email-error',
  });
  const emailError = h('p', { id: 'ferry-email-error', class: 'field-error', hidden: true });
  const nameField = h(
    'div',
    { class: 'field' },
    h('label', { for: 'ferry-name' }, 'Your name'),
    nameInput,
  );
  const emailField = h(
    'div',
    { class: 'field' },
    h('label', { for: 'ferry-email' }, 'Email'),
    emailInput,
    emailError,
  );
  const reporterRow = h('div', { class: 'row' }, nameField, emailField);

  const pickButton = h(
    'button',
    { type: 'button', class: 'btn pick' },
    icon(ICONS.pointer, 16),
    'Pick an element',
  );
  const attachedLabel = h('code');
  const removeButton = h(
    'button',
    { type: 'button', class: 'btn link', 'aria-label': 'Remove attached element' },
    'Remove',
  );
  const attachedRow = h(
    'div',
    { class: 'attached', hidden: true },
    icon(ICONS.clip, 16),
    h('span', null, 'Attached: ', attachedLabel),
    removeButton,
  );

  const shotButton = h(
    'button',
    { type: 'button', class: 'btn pick shot' },
    icon(ICONS.camera, 16),
    h('span', null, 'Attach a screenshot'),
  );
  const shotThumb = h('canvas', {
    class: 'shot-thumb',
    width: 64,
    height: 40,
    'aria-hidden': 'true',
  });
  const shotLabel = h('span', null, 'Screenshot attached');
  const shotEdit = h(
    'button',
    { type: 'button', class: 'btn link', 'aria-label': 'Edit screenshot: black out areas' },
    'Edit',
  );
  const shotRemove = h(
    'button',
    { type: 'button', class: 'btn link', 'aria-label': 'Remove screenshot' },
    'Remove',
  );
  const shotRow = h(
    'div',
    { class: 'attached shot-row', hidden: true },
    shotThumb,
    shotLabel,
    shotEdit,
    shotRemove,
  );

  // The page's console and network activity (issue 45): what will go, and a way to keep it back.
  const evidenceLabel = h('span');
  const evidenceRemove = h(
    'button',
    { type: 'button', class: 'btn link', 'aria-label': 'Remove console and network activity' },
    'Remove',
  );
  const evidenceRow = h(
    'div',
    { class: 'attached evidence-row', hidden: true },
    icon(ICONS.clip, 16),
    evidenceLabel,
    evidenceRemove,
  );

  const alertText = h('p');
  const retryButton = h('button', { type: 'button', class: 'btn secondary' }, 'Try again');
  const alert = h(
    'div',
    { class: 'alert', role: 'alert', hidden: true },
    icon(ICONS.alert, 16),
    alertText,
    retryButton,
  );

  const sendLabel = h('span', null, 'Send');
  const sendButton = h('button', { type: 'submit', class: 'btn primary' }, sendLabel);
  const form = h(
    'form',
    { novalidate: true },
    h(
      'div',
      { class: 'field' },
      h(
        'label',
        { for: 'ferry-note' },
        'What happened?',
        h('span', { class: 'req', 'aria-hidden': 'true' }, '*'),
      ),
      note,
      noteError,
    ),
    reporterRow,
    h('div', null, pickButton, attachedRow),
    h('div', null, shotButton, shotRow),
    evidenceRow,
    alert,
    h(
      'div',
      { class: 'foot' },
      h('p', { class: 'muted' }, 'Page details are included.'),
      sendButton,
    ),
  );

  // Panel: confirmation
  const doneClose = h('button', { type: 'button', class: 'btn secondary' }, 'Close');
  const done = h(
    'div',
    { class: 'done', hidden: true, role: 'status' },
    h('div', { class: 'done-icon' }, icon(ICONS.check, 24)),
    h('p', null, 'Thanks! Your feedback was sent.'),
    doneClose,
  );

  const panel = h(
    'div',
    {
      class: 'panel',
      role: 'dialog',
      'aria-modal': 'true',
      'aria-labelledby': 'ferry-title',
      hidden: true,
    },
    h('div', { class: 'head' }, heading, closeButton),
    form,
    done,
  );

  append(root, [panel, launcher]);

  let picked: PickedElement | null = null;
  let pickedEl: Element | null = null;
  let shot: { canvas: HTMLCanvasElement; boxes: Box[] } | null = null;
  let evidence: Evidence | null = null;
  let evidenceRemoved = false;
  let capturing = false;
  let sending = false;
  let picking = false;

  // ---- state helpers ----------------------------------------------------------------------

  function isOpen(): boolean {
    return !panel.hidden;
  }

  function syncReporterFields(): void {
    const identity = getIdentity();
    nameField.hidden = !!identity.label;
    emailField.hidden = !!identity.email;
    reporterRow.hidden = nameField.hidden && emailField.hidden;
    reporterRow.className = nameField.hidden || emailField.hidden ? 'row single' : 'row';
  }

  function setPicked(value: PickedElement | null, label: string): void {
    picked = value;
    attachedLabel.textContent = label;
    attachedLabel.title = value ? value.selector : '';
    attachedRow.hidden = !value;
    pickButton.hidden = !!value;
  }

  function setFieldError(input: HTMLElement, message: HTMLElement, text: string | null): void {
    message.textContent = text || '';
    message.hidden = !text;
    if (text) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }

  function setSending(value: boolean): void {
    sending = value;
    // aria-disabled (not `disabled`) keeps focus on the button while it waits.
    for (const el of [
      sendButton,
      pickButton,
      removeButton,
      retryButton,
      shotButton,
      shotEdit,
      shotRemove,
      evidenceRemove,
    ]) {
      if (value) el.setAttribute('aria-disabled', 'true');
      else el.removeAttribute('aria-disabled');
    }
    note.readOnly = value;
    nameInput.readOnly = value;
    emailInput.readOnly = value;
    if (value) {
      form.setAttribute('aria-busy', 'true');
      sendButton.textContent = '';
      append(sendButton, [h('span', { class: 'spinner', 'aria-hidden': 'true' }), 'Sending…']);
    } else {
      form.removeAttribute('aria-busy');
      sendButton.textContent = '';
      sendButton.appendChild(sendLabel);
    }
  }

  function showError(message: string | null): void {
    alertText.textContent = message || '';
    alert.hidden = !message;
  }

  function setShot(value: { canvas: HTMLCanvasElement; boxes: Box[] } | null): void {
    shot = value;
    shotRow.hidden = !value;
    shotButton.hidden = !!value;
    if (!value) return;
    // The thumbnail is a canvas (no data: URL, so a host page's img-src CSP cannot block it).
    const ctx = shotThumb.getContext('2d');
    if (!ctx) return;
    shotThumb.width = 64;
    shotThumb.height = Math.max(8, Math.round((64 * value.canvas.height) / value.canvas.width));
    const scale = shotThumb.width / value.canvas.width;
    ctx.drawImage(value.canvas, 0, 0, shotThumb.width, shotThumb.height);
    ctx.fillStyle = '#000';
    for (const b of value.boxes) ctx.fillRect(b.x * scale, b.y * scale, b.w * scale, b.h * scale);
    const n = value.boxes.length;
    shotLabel.textContent = n
      ? `Screenshot attached, ${n} area${n === 1 ? '' : 's'} blacked out`
      : 'Screenshot attached';
  }

  function setEvidence(value: Evidence | null): void {
    evidence = value;
    evidenceRow.hidden = !value;
    evidenceLabel.textContent = value ? evidenceSummary(value) : '';
  }

  function resetForm(): void {
    evidenceRemoved = false;
    setEvidence(null);
    form.reset();
    setPicked(null, '');
    pickedEl = null;
    setShot(null);
    showError(null);
    setFieldError(note, noteError, null);
    setFieldError(emailInput, emailError, null);
  }

  function showView(view: 'form' | 'done'): void {
    form.hidden = view !== 'form';
    done.hidden = view !== 'done';
  }

  // ---- open / close ------------------------------------------------------------------------

  function open(): void {
    if (picking) return;
    if (!host.isConnected) document.body.appendChild(host);
    syncReporterFields();
    // What is sent is what the summary says: the snapshot taken as the panel opens.
    if (!evidenceRemoved && !sending) setEvidence(evidenceSnapshot());
    panel.hidden = false;
    launcher.setAttribute('aria-expanded', 'true');
    (done.hidden ? note : doneClose).focus();
  }

  function close(): void {
    panel.hidden = true;
    launcher.setAttribute('aria-expanded', 'false');
    if (!done.hidden) showView('form'); // the confirmation is shown once
    launcher.focus();
  }

  on(launcher, 'click', () => (isOpen() ? close() : open()));
  on(closeButton, 'click', close);
  on(doneClose, 'click', close);

  // Focus trap and Escape, for as long as the panel is open.
  on(panel, 'keydown', (event) => {
    if (event.key === 'Escape' || event.key === 'Esc') {
      event.preventDefault();
      event.stopPropagation();
      close();
      return;
    }
    if (event.key !== 'Tab') return;
    const items = Array.prototype.filter.call(
      panel.querySelectorAll<HTMLElement>(FOCUSABLE),
      (el: HTMLElement) => el.getClientRects().length > 0 && !(el as HTMLButtonElement).disabled,
    ) as HTMLElement[];
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    const active = shadow.activeElement;
    const inside = items.indexOf(active as HTMLElement) >= 0;
    if (event.shiftKey && (active === first || !inside)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !inside)) {
      event.preventDefault();
      first.focus();
    }
  });

  // ---- picking -----------------------------------------------------------------------------

  on(pickButton, 'click', (event) => {
    if (sending || picking) return;
    picking = true;
    panel.hidden = true;
    launcher.hidden = true;
    startPicker(host, shadow, (el) => {
      picking = false;
      launcher.hidden = false;
      if (el) setPicked(describeElement(el), elementLabel(el));
      if (el) pickedEl = el;
      open();
      if (!el) pickButton.focus();
      else if (note.value.trim()) sendButton.focus();
    });
    // From the keyboard (no pointer click), focus goes to the hint's Cancel button.
    const cancel = shadow.querySelector<HTMLElement>('.hint .btn');
    if (cancel && event.detail === 0) cancel.focus();
  });
  on(removeButton, 'click', () => {
    if (sending) return;
    setPicked(null, '');
    pickedEl = null;
    pickButton.focus();
  });

  // ---- screenshot ---------------------------------------------------------------------------

  /** The redaction step over the panel; back in the panel, focus lands on what comes next. */
  function edit(canvas: HTMLCanvasElement, boxes: Box[]): void {
    panel.hidden = true;
    launcher.hidden = true;
    openEditor(root, canvas, boxes, (result) => {
      launcher.hidden = false;
      panel.hidden = false;
      setShot(result ? { canvas, boxes: result } : null);
      (result ? shotEdit : shotButton).focus();
    });
  }

  on(shotButton, 'click', async () => {
    if (sending || capturing) return;
    capturing = true;
    showError(null);
    shotButton.setAttribute('aria-disabled', 'true');
    const label = shotButton.lastChild as HTMLElement;
    label.textContent = 'Capturing the page…';
    try {
      const capture = await loadCapture(base);
      const canvas = await capture.capture(host, pickedEl);
      edit(canvas, []);
    } catch {
      showError(SHOT_FAILED);
    } finally {
      capturing = false;
      label.textContent = 'Attach a screenshot';
      shotButton.removeAttribute('aria-disabled');
    }
  });
  on(shotEdit, 'click', () => {
    if (shot && !sending) edit(shot.canvas, shot.boxes);
  });
  on(shotRemove, 'click', () => {
    if (sending) return;
    setShot(null);
    shotButton.focus();
  });

  on(evidenceRemove, 'click', () => {
    if (sending) return;
    evidenceRemoved = true;
    setEvidence(null);
    note.focus();
  });

  // ---- sending -----------------------------------------------------------------------------

  function validate(): boolean {
    const noteText = note.value.trim();
    setFieldError(note, noteError, noteText ? null : 'Tell us what happened.');
    const email = emailField.hidden ? '' : emailInput.value.trim();
    const emailOk = !email || EMAIL.test(email);
    setFieldError(emailInput, emailError, emailOk ? null : 'Enter a valid email address.');
    if (!noteText) note.focus();
    else if (!emailOk) emailInput.focus();
    return !!noteText && emailOk;
  }

  function payload(screenshot: string | null): Record<string, unknown> {
    const identity = getIdentity();
    const reporter: Record<string, string> = {};
    const label = identity.label || (nameField.hidden ? '' : nameInput.value.trim());
    const email = identity.email || (emailField.hidden ? '' : emailInput.value.trim());
    if (label) reporter.label = label;
    if (identity.role) reporter.role = identity.role;
    if (email) reporter.email = email;
    const body: Record<string, unknown> = { note: note.value.trim(), page: pageContext() };
    if (Object.keys(reporter).length) body.reporter = reporter;
    if (picked) body.element = picked;
    if (screenshot) body.screenshot = screenshot;
    if (evidence) body.evidence = evidence;
    return body;
  }

  async function send(): Promise<void> {
    if (sending || !validate()) return;
    showError(null);
    // The boxes are burnt into the pixels sent: what is blacked out never leaves the page.
    const image = shot ? flatten(shot.canvas, shot.boxes, SHOT_MAX_BYTES) : null;
    if (shot && !image) {
      showError('The screenshot is too large to send (over 2 MB): remove it and try again.');
      if (isOpen()) shotRemove.focus();
      return;
    }
    setSending(true);
    const result = await api.sendFeedback(payload(image));
    setSending(false);
    if (result.ok) {
      resetForm();
      showView('done');
      if (isOpen()) doneClose.focus();
    } else {
      showError(result.message);
      if (isOpen()) retryButton.focus();
    }
  }

  on(form, 'submit', (event) => {
    event.preventDefault();
    return send();
  });
  on(retryButton, 'click', send);
  on(note, 'keydown', (event) => {
    if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) {
      event.preventDefault();
      return send();
    }
    return undefined;
  });
  on(note, 'input', () => {
    if (note.value.trim()) setFieldError(note, noteError, null);
  });
  on(emailInput, 'input', () => setFieldError(emailInput, emailError, null));

  document.body.appendChild(host);

  return {
    open,
    setIdentity: syncReporterFields,
  };
}

/** Read once: `__WIDGET_CSS__` is replaced by the whole stylesheet wherever it appears. */
const STYLES: string = __WIDGET_CSS__;

/** Styles live in the shadow root; constructable sheets when available (no CSP style-src needed). */
function applyStyles(shadow: ShadowRoot): void {
  try {
    if ('adoptedStyleSheets' in shadow && typeof CSSStyleSheet === 'function') {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLES);
      shadow.adoptedStyleSheets = [sheet];
      return;
    }
  } catch {
    // Older engines: fall back to a <style> element below.
  }
  shadow.appendChild(h('style', null, STYLES));
}
