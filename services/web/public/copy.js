// Copy buttons: <button data-copy="#selector"> copies that element's text. The Clipboard API needs
// a secure context; elsewhere the text is selected and copied the old way, and at worst left
// selected so the person can press Ctrl+C themselves.
(function () {
  'use strict';
  // A page may load this twice (its own copy button and the Dispatch card's): one handler only.
  if (window.ferryCopyBound) return;
  window.ferryCopyBound = true;

  function selectText(el) {
    // A read-only field (an invite link) selects its value; anything else its text.
    if (typeof el.select === 'function' && 'value' in el) {
      el.focus();
      el.select();
      return;
    }
    const range = document.createRange();
    range.selectNodeContents(el);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  // The button's own name stays "Copy the …" (aria-label), so screen readers hear the outcome
  // through one polite status region instead.
  let status = null;
  function announce(text) {
    if (!status) {
      status = document.createElement('span');
      status.className = 'visually-hidden';
      status.setAttribute('role', 'status');
      document.body.appendChild(status);
    }
    status.textContent = '';
    setTimeout(function () {
      status.textContent = text;
    }, 50);
  }

  // For two seconds the button says what happened ("Copied"), in its text and its name alike.
  function copied(button, label) {
    if (!button.hasAttribute('data-text')) {
      button.setAttribute('data-text', button.textContent);
      button.setAttribute('data-name', button.getAttribute('aria-label') || '');
    }
    button.textContent = label;
    if (button.getAttribute('data-name')) button.setAttribute('aria-label', label);
    announce(label === 'Copied' ? 'Copied to the clipboard' : 'Selected: press Ctrl+C to copy');
    window.clearTimeout(Number(button.getAttribute('data-timer')));
    const timer = setTimeout(function () {
      button.textContent = button.getAttribute('data-text');
      const name = button.getAttribute('data-name');
      if (name) button.setAttribute('aria-label', name);
    }, 2000);
    button.setAttribute('data-timer', String(timer));
  }

  document.addEventListener('click', function (event) {
    const button = event.target.closest('[data-copy]');
    if (!button) return;
    const target = document.querySelector(button.getAttribute('data-copy'));
    if (!target) return;
    const text = ('value' in target ? String(target.value) : target.textContent).trim();
    const clipboard = window.navigator.clipboard;
    if (clipboard && window.isSecureContext) {
      clipboard.writeText(text).then(
        function () {
          copied(button, 'Copied');
        },
        function () {
          selectText(target);
          copied(button, 'Press Ctrl+C');
        },
      );
      return;
    }
    selectText(target);
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    copied(button, ok ? 'Copied' : 'Press Ctrl+C');
  });
})();
