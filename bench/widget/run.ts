import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { launchBrowser } from '@ferry/testing/browser';
import { buildWidget, WIDGET_SNIPPET } from '@ferry/widget';

/**
 * The widget's weight and how fast it shows: the bundle's raw and gzipped size (goal: under 15 KB
 * gzipped), and the time from the bundle's script finishing loading to the launcher being laid
 * out, over BENCH_LOADS page loads in Debian's Chromium. The ceiling, measured the same way in
 * the same run: a script of the same size that only appends a plain button (no shadow root, no
 * styles), i.e. what loading and running that much JavaScript costs by itself.
 */
const LOADS = Number(process.env.BENCH_LOADS ?? 30);
const KEY = 'pk_bench';

const build = await buildWidget();
// Same byte count, trivial work: a comment pads it to the bundle's size.
const ceilingCode = `(function(){var b=document.createElement('button');b.className='launcher';b.textContent='Feedback';document.body.appendChild(b);})();/*${'x'.repeat(Math.max(0, build.bytes - 140))}*/`;

function hostPage(src: string): string {
  const [stub] = WIDGET_SNIPPET('http://unused', KEY).split('\n');
  return `<!doctype html><html><head><meta charset="utf-8">${stub}
<script>
  window.bench = {};
  new PerformanceObserver(function (list) {
    list.getEntries().forEach(function (e) { if (/\\/(widget|ceiling)/.test(e.name)) window.bench.loaded = e.responseEnd; });
  }).observe({ type: 'resource', buffered: true });
  new MutationObserver(function (_, observer) {
    var host = document.querySelector('ferry-feedback');
    var el = host && host.shadowRoot ? host.shadowRoot.querySelector('.launcher') : document.querySelector('button.launcher');
    if (el && el.getBoundingClientRect().width > 0) { window.bench.visible = performance.now(); observer.disconnect(); }
  }).observe(document.documentElement, { childList: true, subtree: true });
</script></head><body><h1>Bench</h1>
<script src="${src}" data-key="${KEY}" async></script></body></html>`;
}

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/widget/v1.js' || path === '/ceiling.js') {
    res.writeHead(200, { 'content-type': 'application/javascript', 'cache-control': 'no-store' });
    res.end(path === '/ceiling.js' ? ceilingCode : build.code);
    return;
  }
  if (req.method === 'OPTIONS' || req.method === 'POST') {
    res.writeHead(204, { 'access-control-allow-origin': '*' });
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(hostPage(path === '/ceiling' ? '/ceiling.js' : '/widget/v1.js'));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const chrome = await launchBrowser();

async function measure(path: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await chrome.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}${path}`);
    await page.waitForFunction(() => {
      const b = (window as unknown as { bench: { loaded?: number; visible?: number } }).bench;
      return b.loaded !== undefined && b.visible !== undefined;
    });
    const { loaded, visible } = await page.evaluate(
      () => (window as unknown as { bench: { loaded: number; visible: number } }).bench,
    );
    times.push(visible - loaded);
    await context.close();
  }
  return times.sort((a, b) => a - b);
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ceiling = await measure('/ceiling');
const widget = await measure('/');
await chrome.close();
server.close();

const fmt = (n: number) => n.toFixed(1);
console.log(
  `machine: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`bundle: ${build.bytes} bytes raw, ${build.gzipBytes} bytes gzipped (goal < 15,360)`);
console.log(`script loaded -> launcher visible, ${LOADS} loads each (ms):`);
console.log(
  `  ceiling (same-size trivial script): p50 ${fmt(pct(ceiling, 50))}  p95 ${fmt(pct(ceiling, 95))}`,
);
console.log(
  `  widget:                            p50 ${fmt(pct(widget, 50))}  p95 ${fmt(pct(widget, 95))}`,
);
console.log(
  `  ratio widget / ceiling (p50): ${(pct(widget, 50) / Math.max(0.1, pct(ceiling, 50))).toFixed(2)}`,
);
