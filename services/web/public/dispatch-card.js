// The Dispatch card: polls the agents' status every 5 s and redraws the list, so an agent that
// connects or drops shows without a reload. Text goes in through textContent only.

function statusNodes(agent) {
  const nodes = [];
  const state = document.createElement('span');
  state.className = 'agent-state ' + (agent.online ? 'online' : 'offline');
  state.textContent = agent.online ? 'Online' : 'Not connected';
  nodes.push(state);
  if (agent.online) {
    const age = document.createElement('span');
    age.className = 'muted';
    age.textContent = ' · heartbeat ' + (agent.heartbeatAgeSeconds ?? 0) + ' s ago';
    nodes.push(age);
    if (agent.cli) {
      const cli = document.createElement('span');
      cli.className = 'agent-cli muted';
      cli.textContent = ' · ' + agent.cli;
      nodes.push(cli);
    }
    if (agent.activity) {
      const activity = document.createElement('span');
      activity.className = 'agent-activity';
      activity.textContent = ' · ' + agent.activity;
      nodes.push(activity);
    }
  }
  return nodes;
}

function render(card, agents) {
  const list = card.querySelector('.agent-list');
  if (!list || !agents.length) return;
  const configure = card.getAttribute('data-configure') === 'true';
  const rows = agents.map((agent) => {
    const li = document.createElement('li');
    li.className = 'agent-row';
    li.setAttribute('data-agent-id', agent.id);
    const name = document.createElement('a');
    name.className = 'agent-name';
    name.href = card.getAttribute('data-room-url') + '/' + encodeURIComponent(agent.roomId);
    name.textContent = '@' + agent.name;
    const status = document.createElement('span');
    status.className = 'agent-status';
    status.append(...statusNodes(agent));
    li.append(name, ' ', status);
    if (configure) {
      const link = document.createElement('a');
      link.className = 'agent-configure';
      link.href = card.getAttribute('data-agents-url') + '/' + encodeURIComponent(agent.id);
      link.textContent = 'Configure';
      li.append(' ', link);
    }
    return li;
  });
  list.replaceChildren(...rows);
}

function poll(card) {
  const url = card.getAttribute('data-status-url');
  const tick = async () => {
    try {
      const res = await fetch(url, {
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      });
      if (res.ok) render(card, (await res.json()).agents || []);
    } catch {
      // Offline for a moment: keep what is shown and try again at the next tick.
    }
  };
  setInterval(tick, 5000);
}

for (const card of document.querySelectorAll('.dispatch-card[data-status-url]')) {
  if (!card.hasAttribute('data-polling')) {
    card.setAttribute('data-polling', 'true');
    poll(card);
  }
}
