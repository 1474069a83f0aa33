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

// Live unread counts in the sidebar (services/web/src/features/rooms/live-unread.ts). The page renders the counts
// as stored; this keeps them current: one more for each message that concerns this user, and the
// server's whole state after any of their tabs reads a room or after a reconnect. The socket is
// shared with the room page (room.js) as window.ferrySocket.
(function () {
  'use strict';
  const nav = document.querySelector('nav.sidebar[data-workspace-id]');
  if (!nav || typeof io !== 'function') return;
  const workspaceId = nav.getAttribute('data-workspace-id');
  const socket = io({ transports: ['websocket'] });
  window.ferrySocket = socket;
  const LIMIT = 100;

  function badgeOf(link) {
    return link && link.querySelector('.unread-badge');
  }

  function setCount(link, count) {
    const badge = badgeOf(link);
    if (!badge) return;
    const n = Math.max(0, Math.min(count, LIMIT));
    badge.setAttribute('data-count', String(n));
    badge.firstChild.nodeValue = n >= LIMIT ? LIMIT - 1 + '+' : String(n);
    badge.hidden = n === 0;
    if (link.hasAttribute('data-room-id')) link.classList.toggle('has-unread', n > 0);
    refreshMenuDot();
  }

  /** The folded Menu button (a phone) shows a dot while anything in the sidebar is unread. */
  function refreshMenuDot() {
    const toggle = nav.querySelector('.menu-toggle');
    const any = Array.from(nav.querySelectorAll('.unread-badge')).some((b) => !b.hidden);
    if (toggle) toggle.classList.toggle('has-unread', any);
  }

  function countOf(link) {
    const badge = badgeOf(link);
    return badge ? Number(badge.getAttribute('data-count')) || 0 : 0;
  }

  function roomLink(roomId) {
    return Array.from(nav.querySelectorAll('a[data-room-id]')).find(
      (a) => a.getAttribute('data-room-id') === roomId,
    );
  }

  /** The room page in view reads its messages itself (room.js); its count stays at zero. */
  function reading(roomId) {
    const room = document.querySelector('.room[data-room-id][data-live="true"]');
    return (
      room && room.getAttribute('data-room-id') === roomId && document.visibilityState === 'visible'
    );
  }

  socket.on('connect', () => socket.emit('unread:sync', { workspaceId }));
  socket.on('unread:message', (event) => {
    if (!event || event.workspaceId !== workspaceId || reading(event.roomId)) return;
    if (event.seated) {
      const link = roomLink(event.roomId);
      if (link) setCount(link, countOf(link) + 1);
    }
    if (event.mention) {
      const mentions = nav.querySelector('a[data-mentions]');
      setCount(mentions, countOf(mentions) + 1);
      // On the Mentions page itself: say so, with a link that shows them (and reads them).
      const arrived = document.getElementById('mentions-arrived');
      if (arrived) arrived.hidden = false;
    }
  });
  socket.on('unread:state', (state) => {
    if (!state || state.workspaceId !== workspaceId) return;
    for (const room of state.rooms || []) {
      const link = roomLink(room.id);
      if (link) setCount(link, reading(room.id) ? 0 : room.unread);
    }
    setCount(nav.querySelector('a[data-mentions]'), state.mentions);
    // For tests and people alike: the counts now match the server's.
    nav.setAttribute('data-unread-synced', 'true');
  });
})();

// A refused form comes back to its page (Post/Redirect/Get, kept-form.ts), which may be a long
// list with the form at its foot: put the cursor in the first field it refused, which scrolls
// there, unless the person has already moved on.
(function () {
  'use strict';
  const refused = document.querySelector('[aria-invalid="true"]');
  if (refused && (document.activeElement === null || document.activeElement === document.body)) {
    refused.focus();
  }
})();
