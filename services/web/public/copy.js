// Copy buttons: <button data-copy="#selector"> copies that element's text. The Clipboard API needs
// a secure context; elsewhere the text is selected and copied the old way, and at worst left
// selected so the person can press Ctrl+C themselves.
(function () {
  'use strict';

  function selectText(el) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function copied(button, label) {
    const original = button.textContent;
    button.textContent = label;
    setTimeout(function () {
      button.textContent = original;
    }, 2000);
  }

  document.addEventListener('click', function (event) {
    const button = event.target.closest('[data-copy]');
    if (!button) return;
    const target = document.querySelector(button.getAttribute('data-copy'));
    if (!target) return;
    const text = target.textContent.trim();
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
