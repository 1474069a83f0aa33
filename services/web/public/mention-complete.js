// The composer's @-autocomplete: typing `@` and the start of a name offers the room's people and
// agents (data-mentions on the textarea, from roomMentionSuggestions). Keyboard first: arrow keys
// choose, Enter or Tab inserts `@handle `, Escape closes; a click inserts too. The textarea keeps
// focus throughout (aria-activedescendant points at the chosen option) and a status line says how
// many match. Without this script, typing `@handle` by hand works the same.

function mentionComplete() {
  const form = document.getElementById('composer');
  const box = document.getElementById('message-body');
  const list = document.getElementById('mention-list');
  const status = document.getElementById('mention-status');
  if (!form || !box || !list || !status) return;
  let people = [];
  try {
    people = JSON.parse(box.getAttribute('data-mentions') || '[]');
  } catch {
    return;
  }
  if (!Array.isArray(people) || !people.length) return;

  // The same rule as the server's MENTION: an @ after a non-word character, then handle characters.
  const TYPING = /(^|[^\p{L}\p{N}_])@([\p{L}\p{N}_.-]{0,40})$/u;
  const MAX_SHOWN = 8;
  let shown = [];
  let active = -1;
  let typed = null; // { start, end } of "@query" in the textarea

  box.setAttribute('aria-autocomplete', 'list');
  box.setAttribute('aria-controls', 'mention-list');

  function close() {
    if (list.hidden) return;
    list.hidden = true;
    list.replaceChildren();
    shown = [];
    active = -1;
    typed = null;
    box.removeAttribute('aria-activedescendant');
    status.textContent = '';
  }

  function matches(query) {
    const q = query.toLowerCase();
    return people
      .filter(
        (p) =>
          p.handle.startsWith(q) ||
          p.name
            .toLowerCase()
            .split(/\s+/)
            .some((word) => word.startsWith(q)),
      )
      .slice(0, MAX_SHOWN);
  }

  function choose(index) {
    active = index;
    Array.from(list.children).forEach((option, i) => {
      option.setAttribute('aria-selected', String(i === index));
    });
    const option = list.children[index];
    if (option) {
      box.setAttribute('aria-activedescendant', option.id);
      option.scrollIntoView({ block: 'nearest' });
    }
  }

  function render() {
    list.replaceChildren(
      ...shown.map((person, i) => {
        const option = document.createElement('li');
        option.id = 'mention-option-' + i;
        option.setAttribute('role', 'option');
        option.setAttribute('aria-selected', 'false');
        const name = document.createElement('span');
        name.className = 'mention-name';
        name.textContent = person.name;
        name.title = person.name;
        const handle = document.createElement('span');
        handle.className = 'mention-handle';
        handle.textContent = '@' + person.handle + (person.kind === 'agent' ? ' · agent' : '');
        option.append(name, handle);
        // mousedown would take the focus from the textarea (and close the list on blur).
        option.addEventListener('mousedown', (event) => event.preventDefault());
        option.addEventListener('click', () => insert(i));
        return option;
      }),
    );
    list.hidden = false;
    choose(0);
    status.textContent =
      shown.length === 1
        ? '1 person to mention: ' + shown[0].name + '. Enter inserts.'
        : shown.length + ' people to mention. Arrow keys choose, Enter inserts.';
  }

  function update() {
    const caret = box.selectionStart;
    if (caret !== box.selectionEnd) return close();
    const before = box.value.slice(0, caret);
    const match = TYPING.exec(before);
    if (!match) return close();
    const query = match[2];
    const found = matches(query);
    if (!found.length) return close();
    typed = { start: caret - query.length - 1, end: caret };
    const same =
      found.length === shown.length && found.every((p, i) => p.handle === shown[i].handle);
    shown = found;
    if (!same || list.hidden) render();
  }

  function insert(index) {
    const person = shown[index];
    if (!person || !typed) return;
    const text = '@' + person.handle + ' ';
    const { start, end } = typed;
    box.setRangeText(text, start, end, 'end');
    close();
    box.focus();
    // Other listeners (drafts, resizing) hear about the change as if it were typed.
    box.dispatchEvent(new window.Event('input', { bubbles: true }));
  }

  box.addEventListener('input', update);
  box.addEventListener('click', update);
  box.addEventListener('keyup', (event) => {
    if (
      event.key === 'ArrowLeft' ||
      event.key === 'ArrowRight' ||
      event.key === 'Home' ||
      event.key === 'End'
    )
      update();
  });
  box.addEventListener('blur', close);

  // On the form, in the capture phase: these keys must not reach room.js's Enter-sends handler.
  form.addEventListener(
    'keydown',
    (event) => {
      if (event.target !== box || list.hidden || event.isComposing) return;
      const keys = {
        ArrowDown: () => choose((active + 1) % shown.length),
        ArrowUp: () => choose((active - 1 + shown.length) % shown.length),
        Enter: () => insert(active),
        Tab: () => insert(active),
        Escape: close,
      };
      const act = keys[event.key];
      if (!act || (event.key === 'Enter' && event.shiftKey)) return;
      event.preventDefault();
      event.stopPropagation();
      act();
    },
    true,
  );
}

mentionComplete();
