import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { launchBrowser } from '@ferry/testing/browser';
import { buildWidget, WIDGET_SNIPPET } from '@ferry/widget';

/**
 * What evidence capture (issue 45) costs a page, per call of each wrapped function, in Debian's
 * Chromium: 10,000 console.log lines, 1,000 fetches, 1,000 XHRs and 100 pushState calls, on a
 * page with the widget and capture on against the same page without the widget (the ceiling:
 * the browser's own cost, measured in the same run). Console is measured twice: with the real
 * console (Playwright listens over CDP, as devtools would, so each call is expensive by itself)
 * and over a no-op console.debug the page installed first, which leaves the wrapper's own cost.
 * Fetch and XHR go to a loopback endpoint one at a time; for fetch, the time until fetch()
 * returns is measured apart (the wrapper's synchronous part). Each variant runs in ROUNDS fresh
 * pages, alternating; medians reported.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const LINES = 10_000;
const CALLS = 1_000;
/** Chromium throttles the history API past ~200 calls in 10 s (it then ignores them). */
const ROUTES = 100;
const KEY = 'pk_bench';

const build = await buildWidget();

const PROBE = `
window.runStub = async function () {
  // window.fetch is the page's own stub here (the widget, when present, wraps it): no network,
  // so what is left is the wrapper's cost per call, promise chain included.
  var t = performance.now();
  for (var q = 0; q < ${CALLS}; q++) await fetch('/ping?s=' + q);
  return { fetchStub: performance.now() - t };
};
window.runBench = async function () {
  var out = {};
  var t = performance.now();
  for (var i = 0; i < ${LINES}; i++) console.log('line', i, { user: 'ada', n: i });
  out.console = performance.now() - t;
  t = performance.now();
  for (var j = 0; j < ${LINES}; j++) console.debug('line', j, { user: 'ada', n: j });
  out.consoleNoop = performance.now() - t;
  var sync = 0;
  t = performance.now();
  for (var k = 0; k < ${CALLS}; k++) {
    var s = performance.now();
    var p = fetch('/ping?i=' + k);
    sync += performance.now() - s;
    await p;
  }
  out.fetch = performance.now() - t;
  out.fetchSync = sync;
  t = performance.now();
  for (var m = 0; m < ${CALLS}; m++) {
    await new Promise(function (resolve) {
      var x = new XMLHttpRequest(); x.open('GET', '/ping?x=' + m); x.onloadend = resolve; x.send();
    });
  }
  out.xhr = performance.now() - t;
  t = performance.now();
  for (var n = 0; n < ${ROUTES}; n++) history.pushState(null, '', '/route/' + n);
  out.pushState = performance.now() - t;
  return out;
};`;

function hostPage(widget: boolean, stub: boolean, base: string): string {
  const [queue, tag] = WIDGET_SNIPPET(base, KEY).split('\n');
  // console.debug is a no-op the page installs before the widget loads: the widget wraps it
  // like every level, so calling it measures the wrapper alone.
  return `<!doctype html><html><head><meta charset="utf-8">${widget ? queue : ''}
<script>
console.debug = function () {};
${
  stub
    ? // The widget's own calls (its config) still reach the server.
      "var real = window.fetch, answer = new Response('ok'); window.fetch = function (u) { return String(u).indexOf('/widget/') >= 0 ? real.apply(this, arguments) : Promise.resolve(answer); };"
    : ''
}
${PROBE}
</script></head><body><h1>Bench</h1>${widget ? tag : ''}</body></html>`;
}

let base = '';
const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/widget/v1.js') {
    res.writeHead(200, {
      'content-type': 'application/javascript',
      'access-control-allow-origin': '*',
    });
    res.end(build.code);
    return;
  }
  if (path === '/widget/v1/config') {
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end('{"capture":true}');
    return;
  }
  if (path === '/ping') {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    res.end('ok');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(hostPage(path === '/with-widget', (req.url ?? '').includes('stub=1'), base));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const chrome = await launchBrowser();

type Times = Record<
  'console' | 'consoleNoop' | 'fetch' | 'fetchSync' | 'fetchStub' | 'xhr' | 'pushState',
  number
>;

async function once(widget: boolean, stub: boolean): Promise<Partial<Times>> {
  const context = await chrome.browser.newContext();
  const page = await context.newPage();
  // Playwright keeps every console message it hears; drop them as they come.
  page.on('console', () => undefined);
  await page.goto(`${base}${widget ? '/with-widget' : '/'}${stub ? '?stub=1' : ''}`);
  if (widget) {
    await page.waitForFunction((k) => localStorage.getItem(`ferry.capture.${k}`) === 'on', KEY, {
      timeout: 10_000,
    });
    const wrapped = await page.evaluate(
      () =>
        !String(Object.getOwnPropertyDescriptor(console, 'log')?.value).includes('[native code]'),
    );
    if (!wrapped) throw new Error('capture is not installed on the widget page');
  }
  const times = await page.evaluate((isStub) => {
    const w = window as unknown as {
      runBench(): Promise<Partial<Times>>;
      runStub(): Promise<Partial<Times>>;
    };
    return isStub ? w.runStub() : w.runBench();
  }, stub);
  await context.close();
  return times;
}

const runs: { without: Times[]; with: Times[] } = { without: [], with: [] };
for (let i = 0; i < ROUNDS; i++) {
  runs.without.push({ ...(await once(false, false)), ...(await once(false, true)) } as Times);
  runs.with.push({ ...(await once(true, false)), ...(await once(true, true)) } as Times);
}
await chrome.close();
server.close();

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const rows: [keyof Times, string, number][] = [
  ['console', 'console.log (CDP listening)', LINES],
  ['consoleNoop', 'console.debug, a no-op the page set', LINES],
  ['fetch', 'fetch, awaited one by one', CALLS],
  ['fetchSync', 'fetch() call until it returns', CALLS],
  ['fetchStub', "fetch over the page's own stub (no network)", CALLS],
  ['xhr', 'XHR open+send, awaited one by one', CALLS],
  ['pushState', 'history.pushState', ROUTES],
];
console.log(
  `machine: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${ROUNDS} rounds per variant, medians`,
);
console.log(`bundle: ${build.bytes} bytes raw, ${build.gzipBytes} bytes gzipped (budget 14,336)`);
const quartiles = (values: number[], count: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => ((sorted[Math.floor(q * (sorted.length - 1))] ?? 0) * 1000) / count;
  return `${at(0.25).toFixed(2)}–${at(0.75).toFixed(2)}`;
};
console.log(
  '| call | calls | without widget, µs/call | with capture, µs/call | overhead µs/call | p25–p75 without / with |',
);
console.log('| --- | ---: | ---: | ---: | ---: | --- |');
for (const [key, label, count] of rows) {
  const without = (median(runs.without.map((r) => r[key])) * 1000) / count;
  const withIt = (median(runs.with.map((r) => r[key])) * 1000) / count;
  console.log(
    `| ${label} | ${count.toLocaleString('en-US')} | ${without.toFixed(2)} | ${withIt.toFixed(2)} | ${(withIt - without).toFixed(2)} | ${quartiles(
      runs.without.map((r) => r[key]),
      count,
    )} / ${quartiles(
      runs.with.map((r) => r[key]),
      count,
    )} |`,
  );
}
