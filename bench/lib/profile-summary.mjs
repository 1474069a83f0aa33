#!/usr/bin/env node
// Summarises V8 .cpuprofile files (BENCH_CPU_PROF's): where a process's CPU went, by package
// (a node_modules package, a Ferry package or service, Node's own code, GC) and by function, as
// shares of the busy time (idle left out). Several files (one per process) add up.
//
//   node bench/lib/profile-summary.mjs /tmp/prof/*.cpuprofile [--top 30]
import console from 'node:console';
import fs from 'node:fs';
import process from 'node:process';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
const files = args.filter((arg, i) => arg.endsWith('.cpuprofile') && i !== topAt + 1);
if (!files.length) {
  console.error('usage: node bench/lib/profile-summary.mjs FILE.cpuprofile... [--top N]');
  process.exit(2);
}

/** Where a frame's code lives: a package name, a Ferry package/service, node, or V8's own. */
function placeOf(url, name) {
  if (!url) {
    if (name === '(garbage collector)') return 'GC';
    if (name === '(program)' || name === '(idle)' || name === '(root)') return name;
    return 'native (V8 builtins)';
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const own = /\/(packages|services|bench)\/([^/]+)\//.exec(url);
  if (own) return `ferry ${own[1]}/${own[2]}`;
  return url;
}

const byPlace = new Map();
const byFunction = new Map();
let busy = 0;
let idle = 0;
for (const file of files) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  for (const [id, micros] of self) {
    const { callFrame } = nodes.get(id);
    const place = placeOf(callFrame.url, callFrame.functionName);
    if (place === '(idle)') {
      idle += micros;
      continue;
    }
    busy += micros;
    byPlace.set(place, (byPlace.get(place) ?? 0) + micros);
    const where = callFrame.url
      ? `${callFrame.url.split('/').slice(-2).join('/')}:${callFrame.lineNumber + 1}`
      : '';
    const key = `${callFrame.functionName || '(anonymous)'} ${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
  }
}

const share = (micros) => `${((100 * micros) / busy).toFixed(1).padStart(5)} %`;
console.log(
  `${files.length} profile(s): busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s`,
);
console.log('\nself time by place:');
for (const [place, micros] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`  ${share(micros)}  ${place}`);
}
console.log('\nself time by function:');
for (const [name, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`  ${share(micros)}  ${name}`);
}
