// The workspace sidebar on a phone: its links fold behind a Menu button, opened and closed here.
// Without this script the links stay visible as a scrolling strip (app.css).
(function () {
  'use strict';
  const nav = document.querySelector('nav.sidebar');
  const toggle = nav && nav.querySelector('.menu-toggle');
  if (!nav || !toggle) return;
  nav.classList.add('js-menu');
  toggle.hidden = false;
  function setOpen(open) {
    nav.classList.toggle('open', open);
    toggle.setAttribute('aria-expanded', String(open));
  }
  toggle.addEventListener('click', function () {
    setOpen(!nav.classList.contains('open'));
  });
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && nav.classList.contains('open')) {
      setOpen(false);
      toggle.focus();
    }
  });
})();
