// The Errors list, live (services/web/src/features/errors/live.ts): new occurrences that this list's filter
// shows are counted in one line above the list, "3 new errors arrived: show them", as the Mentions
// page says new mentions arrived. The rows never move under the reader's cursor; the link opens the
// list again, with the same filter. The server sends at most one event a second, and each only
// rewrites that line's text. The socket is the sidebar's (nav.js).
(function () {
  'use strict';
  const view = document.querySelector('.errors-view[data-live-errors][data-workspace-id]');
  const notice = document.getElementById('errors-arrived');
  const link = notice && notice.querySelector('a');
  if (!view || !link || typeof io !== 'function') return;
  const workspaceId = view.getAttribute('data-workspace-id');
  const filter = { status: view.getAttribute('data-status') || 'unresolved' };
  for (const name of ['source', 'environment', 'q']) {
    const value = view.getAttribute('data-' + name);
    if (value) filter[name] = value;
  }
  const socket = window.ferrySocket || io({ transports: ['websocket'] });
  const format = new Intl.NumberFormat('en-US');
  let occurrences = 0;
  let newGroups = 0;

  function plural(n, one, many) {
    return format.format(n) + ' ' + (n === 1 ? one : many);
  }

  function render() {
    const groups = newGroups ? ' (' + plural(newGroups, 'new group', 'new groups') + ')' : '';
    link.textContent =
      plural(occurrences, 'new error', 'new errors') +
      ' arrived' +
      groups +
      ': show ' +
      (occurrences === 1 ? 'it' : 'them');
    notice.hidden = false;
    view.setAttribute('data-new-errors', String(occurrences));
  }

  // (Re)join on every connect: after a reconnect the server has forgotten this socket's channels.
  function join() {
    socket.emit('errors:join', { workspaceId, filter }, (reply) => {
      // For people and tests alike: new errors are now counted without a reload.
      view.setAttribute('data-connected', String(Boolean(reply && reply.ok)));
    });
  }
  socket.on('connect', join);
  // The shared socket may have connected before this script ran.
  if (socket.connected) join();
  socket.on('disconnect', () => view.setAttribute('data-connected', 'false'));
  socket.on('errors:new', (event) => {
    if (!event || event.workspaceId !== workspaceId) return;
    const n = Number(event.occurrences);
    if (!(n > 0)) return;
    occurrences += n;
    newGroups += Math.max(0, Number(event.newGroups) || 0);
    render();
  });
  socket.on('errors:left', (event) => {
    if (event && event.workspaceId === workspaceId) view.setAttribute('data-connected', 'false');
  });
})();
