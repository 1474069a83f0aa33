// The Ops page: every 5 s, fetch the figures (the same keys the page was rendered with) and swap
// in each number's text and each chart's paths and label, so the page stays live without a reload.

const SVG = 'http://www.w3.org/2000/svg';

function drawChart(svg, chart) {
  svg.setAttribute('aria-label', chart.label);
  const paths = svg.querySelectorAll('path');
  chart.paths.forEach((d, i) => {
    let path = paths[i];
    if (!path) {
      path = document.createElementNS(SVG, 'path');
      path.setAttribute('class', 'series-' + i);
      svg.append(path);
    }
    path.setAttribute('d', d);
  });
}

function render(root, figures) {
  for (const node of root.querySelectorAll('[data-figure]')) {
    const text = figures.text[node.getAttribute('data-figure')];
    if (typeof text === 'string' && node.textContent !== text) node.textContent = text;
  }
  for (const svg of root.querySelectorAll('svg[data-chart]')) {
    const chart = figures.charts[svg.getAttribute('data-chart')];
    if (chart) drawChart(svg, chart);
  }
}

function poll(root) {
  const url = root.getAttribute('data-figures-url');
  const tick = async () => {
    try {
      const res = await fetch(url, {
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      });
      if (res.ok) render(root, await res.json());
    } catch {
      // Offline for a moment: keep what is shown and try again at the next tick.
    }
  };
  setInterval(tick, 5000);
}

for (const root of document.querySelectorAll('.ops[data-figures-url]')) poll(root);
