// The Dashboard's "Get started" checklist, live (services/web/src/features/dashboard/live.ts): a step
// done anywhere (another tab, the API, an SDK, an agent) ticks here without a reload. The server
// sends the state of the steps this person is shown; a step only ever goes from not done to done.
// The socket is the sidebar's (nav.js).
(function () {
  'use strict';
  const card = document.querySelector('.onboarding[data-workspace-id]');
  if (!card || typeof io !== 'function') return;
  const workspaceId = card.getAttribute('data-workspace-id');
  const socket = window.ferrySocket || io({ transports: ['websocket'] });
  const steps = Array.from(card.querySelectorAll('.onboarding-step[data-step]'));
  const count = card.querySelector('[data-done-count]');
  const complete = card.querySelector('.onboarding-complete');

  function tick(item) {
    if (item.getAttribute('data-done') === 'true') return;
    item.setAttribute('data-done', 'true');
    const state = item.querySelector('.step-state');
    if (state) state.textContent = 'Done';
  }

  function refresh() {
    const done = steps.filter((item) => item.getAttribute('data-done') === 'true').length;
    if (count) count.textContent = String(done);
    const all = done === steps.length;
    card.setAttribute('data-complete', String(all));
    if (complete) complete.hidden = !all;
  }

  // (Re)join on every connect: after a reconnect the server has forgotten this socket's channels.
  function join() {
    socket.emit('onboarding:join', { workspaceId }, (reply) => {
      // For people and tests alike: steps now tick without a reload.
      card.setAttribute('data-connected', String(Boolean(reply && reply.ok)));
    });
  }
  socket.on('connect', join);
  // The shared socket may have connected before this script ran.
  if (socket.connected) join();
  socket.on('disconnect', () => card.setAttribute('data-connected', 'false'));
  socket.on('onboarding:state', (event) => {
    if (!event || event.workspaceId !== workspaceId || !event.done) return;
    for (const item of steps) {
      if (event.done[item.getAttribute('data-step')] === true) tick(item);
    }
    refresh();
  });
  socket.on('onboarding:left', (event) => {
    if (event && event.workspaceId === workspaceId) card.setAttribute('data-connected', 'false');
  });
  refresh();
})();
