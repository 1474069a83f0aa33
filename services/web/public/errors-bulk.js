// The Errors list's bulk bar (issue 43): the header box checks every row of the page, the count
// says what a button will act on, and "All N matching" takes over from the rows when checked.
// On a bulk action's page: follows its progress until it ends. Without this script the bar's
// form still works (check rows or "all matching", press an action) and the page shows its state.

function setUpBar(bar) {
  const rows = () => [...document.querySelectorAll('input[data-bulk-row]')];
  const pageBox = bar.querySelector('input[data-bulk-page]');
  const allBox = bar.querySelector('input[data-bulk-all]');
  const count = bar.querySelector('[data-bulk-count]');
  const allLabel = allBox ? allBox.closest('label') : null;
  const matching = allLabel ? allLabel.querySelector('strong').textContent : '';

  const update = () => {
    const checked = rows().filter((box) => box.checked).length;
    const every = rows().length > 0 && checked === rows().length;
    pageBox.checked = every;
    pageBox.indeterminate = checked > 0 && !every;
    if (allBox && allBox.checked) count.textContent = 'All ' + matching + ' selected';
    else count.textContent = checked ? checked + ' selected' : 'Select groups';
    bar.classList.toggle('has-selection', checked > 0 || (allBox && allBox.checked));
  };

  pageBox.addEventListener('change', () => {
    for (const box of rows()) box.checked = pageBox.checked;
    if (allBox && !pageBox.checked) allBox.checked = false;
    update();
  });
  for (const box of rows()) {
    box.addEventListener('change', () => {
      if (allBox && !box.checked) allBox.checked = false;
      update();
    });
  }
  if (allBox) {
    allBox.addEventListener('change', () => {
      if (allBox.checked) for (const box of rows()) box.checked = true;
      update();
    });
  }
  update();
}

function follow(card) {
  const url = card.getAttribute('data-bulk-progress');
  const bar = card.querySelector('progress');
  const text = card.querySelector('[data-bulk-text]');
  const tick = async () => {
    try {
      const res = await fetch(url, {
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      });
      if (res.ok) {
        const state = await res.json();
        bar.max = Math.max(state.total, 1);
        bar.value = state.status === 'done' ? state.total : state.processed;
        text.textContent = state.text;
        text.classList.toggle('error', state.status === 'failed');
        if (state.status === 'done' || state.status === 'failed') {
          card.setAttribute('data-finished', 'yes');
          return;
        }
      }
    } catch {
      // A dropped request: the next tick tries again.
    }
    setTimeout(tick, 700);
  };
  if (card.getAttribute('data-finished') !== 'yes') setTimeout(tick, 300);
}

for (const bar of document.querySelectorAll('form[data-bulk]')) setUpBar(bar);
for (const card of document.querySelectorAll('[data-bulk-progress]')) follow(card);
