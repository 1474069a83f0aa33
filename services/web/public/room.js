// The room page, enhanced: send without a reload, receive new messages live. Without this script
// the page still works (form POST, redirect back); with it, the same form posts through fetch.
// Messages arrive twice for the sender (fetch answer and socket event): both carry the message id
// and an id already on the page is never added again. Edited messages are replaced in place and
// deleted ones removed (`message:updated`, `message:deleted`).

function main() {
  const room = document.querySelector('.room[data-room-id]');
  if (!room) return;
  const roomId = room.getAttribute('data-room-id');
  const live = room.getAttribute('data-live') === 'true';
  const list = document.getElementById('messages');
  const form = document.getElementById('composer');
  const box = document.getElementById('message-body');
  const error = document.getElementById('message-body-error');
  const notice = room.querySelector('.room-notice');
  const button = form.querySelector('button[type="submit"]');
  const csrf = document.querySelector('meta[name="csrf-token"]').getAttribute('content');
  const ID = /^msg_[0-9a-z]{26}$/;

  function nearBottom() {
    return list.scrollHeight - list.scrollTop - list.clientHeight < 80;
  }

  function scrollToBottom() {
    list.scrollTop = list.scrollHeight;
  }

  /** Adds a server-rendered <li class="message">, in id order (ids sort by time), once. */
  function insert(id, markup) {
    if (!live || !ID.test(id) || list.querySelector('[data-id="' + id + '"]')) return;
    const template = document.createElement('template');
    template.innerHTML = markup.trim();
    const item = template.content.firstElementChild;
    if (!item || item.getAttribute('data-id') !== id) return;
    const stick = nearBottom();
    const empty = list.querySelector('.empty-room');
    if (empty) empty.remove();
    const later = Array.from(list.querySelectorAll('li.message')).find(
      (li) => li.getAttribute('data-id') > id,
    );
    list.insertBefore(item, later || null);
    if (stick) scrollToBottom();
  }

  /** Replaces a message already on the page with its new rendering (an edit), same id only. */
  function replace(id, markup) {
    if (!live || !ID.test(id)) return;
    const current = list.querySelector('li.message[data-id="' + id + '"]');
    if (!current) return;
    const template = document.createElement('template');
    template.innerHTML = markup.trim();
    const item = template.content.firstElementChild;
    if (!item || item.getAttribute('data-id') !== id) return;
    current.replaceWith(item);
  }

  /** Removes a deleted message from the page. */
  function remove(id) {
    if (!ID.test(id)) return;
    const current = list.querySelector('li.message[data-id="' + id + '"]');
    if (current) current.remove();
  }

  function showError(text) {
    error.textContent = text;
    error.hidden = !text;
    form.classList.toggle('has-error', Boolean(text));
    if (text) box.setAttribute('aria-invalid', 'true');
    else box.removeAttribute('aria-invalid');
  }

  function showNotice(text) {
    notice.textContent = text;
    notice.hidden = false;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = box.value;
    if (!body.trim()) {
      showError('Write a message.');
      box.focus();
      return;
    }
    button.disabled = true;
    try {
      const res = await fetch(form.action, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-csrf-token': csrf,
        },
        body: JSON.stringify({ body }),
        credentials: 'same-origin',
      });
      const data = await res.json().catch(() => ({}));
      if (res.ok && data.message) {
        // Only what was sent: text typed while it was on its way stays in the box.
        if (box.value === body) box.value = '';
        showError('');
        if (live) {
          insert(data.message.id, data.message.html);
          scrollToBottom();
        } else {
          // Posted from an earlier page: show it where it belongs, with the latest messages.
          location.href = location.pathname;
        }
      } else {
        const problem = data.error || {};
        showError(
          (problem.fields && problem.fields.body) ||
            problem.message ||
            'The message could not be sent. Try again.',
        );
      }
    } catch {
      showError('The message could not be sent: the connection failed. Try again.');
    } finally {
      button.disabled = false;
      box.focus();
    }
  });

  // Enter sends, Shift+Enter starts a new line (not while an input method is composing).
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // Relative times ("3 minutes ago") kept fresh without a reload.
  const UNITS = [
    [60, 'second'],
    [60, 'minute'],
    [24, 'hour'],
    [30, 'day'],
    [12, 'month'],
    [Infinity, 'year'],
  ];
  function refreshTimes() {
    for (const time of list.querySelectorAll('time[datetime]')) {
      const seconds = Math.round((Date.now() - Date.parse(time.getAttribute('datetime'))) / 1000);
      // Rounded to the nearest unit, as views/format.ts relativeAmount does.
      let value = Math.max(0, seconds);
      let label = 'second';
      for (const [size, unit] of UNITS) {
        label = unit;
        if (Math.round(value) < size) break;
        value /= size;
      }
      value = Math.round(value);
      time.textContent =
        seconds < 5 ? 'just now' : value + ' ' + label + (value === 1 ? '' : 's') + ' ago';
    }
    setTimeout(refreshTimes, 30000);
  }
  setTimeout(refreshTimes, 30000);

  scrollToBottom();

  if (typeof io !== 'function') return;
  // The sidebar's socket (nav.js) when there is one. WebSocket only: with several web processes
  // behind the proxy, long-polling would need sticky sessions; a single upgraded connection does
  // not.
  const socket = window.ferrySocket || io({ transports: ['websocket'] });

  function newestId() {
    const rendered = list.querySelectorAll('li.message[data-id]');
    const last = rendered.length ? rendered[rendered.length - 1].getAttribute('data-id') : null;
    return last && ID.test(last) ? last : null;
  }

  // What arrives while the page is in view is read: the sidebar's count for this room stays at
  // zero, in every tab. Hidden, it counts up, and is read when the page is looked at again.
  let readTimer = null;
  function readSoon() {
    if (!live || document.visibilityState !== 'visible' || readTimer) return;
    readTimer = setTimeout(() => {
      readTimer = null;
      const last = newestId();
      if (last && socket.connected) socket.emit('room:read', { roomId, messageId: last });
    }, 300);
  }
  document.addEventListener('visibilitychange', readSoon);

  // (Re)join on every connect: after a reconnect the server has forgotten this socket's rooms.
  // `after`: the newest message on the page, so what was posted before the join still arrives.
  function joinRoom() {
    const last = newestId();
    const join = last ? { roomId, after: last } : { roomId };
    socket.emit('room:join', join, (reply) => {
      if (!reply || !reply.ok) {
        showNotice('Live updates are off for this room. Reload the page to see new messages.');
      } else {
        notice.hidden = true;
        // The page read the room when it was rendered: tell the user's other tabs too.
        readSoon();
      }
      // For people and tests alike: new messages now arrive without a reload.
      room.setAttribute('data-connected', String(Boolean(reply && reply.ok)));
    });
  }
  socket.on('connect', joinRoom);
  // The shared socket may have connected before this script ran.
  if (socket.connected) joinRoom();
  socket.on('message:new', (event) => {
    if (!event || event.roomId !== roomId) return;
    insert(event.id, event.html);
    readSoon();
  });
  // An incoming webhook edited or deleted one of its messages (Discord's Edit/Delete Webhook
  // Message): the page follows without a reload.
  socket.on('message:updated', (event) => {
    if (!event || event.roomId !== roomId) return;
    replace(event.id, event.html);
  });
  socket.on('message:deleted', (event) => {
    if (!event || event.roomId !== roomId) return;
    remove(event.id);
  });
  socket.on('disconnect', () => room.setAttribute('data-connected', 'false'));
  socket.on('room:left', (event) => {
    if (!event || event.roomId !== roomId) return;
    showNotice('You are no longer in this room. New messages will not appear here.');
    box.disabled = true;
    button.disabled = true;
  });
}

main();
