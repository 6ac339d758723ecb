// waitbench: side-by-side wait and read latency of MCP servers for tmux,
// driven over stdio by the official TypeScript MCP SDK (a 1.x Client).
//
//   scripts/waitbench/waitbench [--tmux /path/to/tmux] [-n 200] \
//     --server 'tmux-mcp=bin/tmux-mcp serve --socket-path {socket} --journal off' \
//     --server 'libtmux-mcp=/tmp/libtmux-go/bin/libtmux-mcp -socket-path {socket}'
//
// (scripts/waitbench/waitbench installs the pinned SDK once into a cache and
// runs this file; or `npm ci` here and `node waitbench.mjs ...`.)
//
// It starts a private tmux server (its own -S socket in a new temporary
// directory, -f /dev/null, SHELL=/bin/sh, ENV unset), one idle session and,
// per server, one session of the same shape (80x24) whose pane runs
// `cat FIFO`. Each server command runs through /bin/sh -c with {socket}
// replaced by that socket, and PATH starting with --tmux's directory.
//
// (a) Wait reaction: a wait call for a fresh marker starts, --settle-ms later
//     the harness writes the marker to the pane's FIFO (cat prints it) and
//     notes the time the write returned; the reaction is from then to the
//     call's result. Servers take turns in alternating order, with a floor
//     of our own: the same print seen as %output by a tmux -C client.
// (b, c) Reads: an MCP ping and a capture of the unchanged pane, in
//     alternating order, per server.
//
// Only the tmux server it started is killed (by its pid); the user's own tmux
// server is never addressed.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const usage = `usage: waitbench --server NAME=COMMAND [--server NAME=COMMAND ...] [options]
  --server NAME=COMMAND  an MCP server over stdio, run by /bin/sh -c; {socket} is the tmux socket
  --tmux PATH            tmux binary both servers use (its directory goes first in PATH; default: tmux on PATH)
  -n, --iterations N     wait samples per server (default 200)
  --reads N              ping/capture pairs per server (default 500; 0: none)
  --warmup N             unrecorded rounds first (default 5)
  --settle-ms MS         time from a wait call's start to the print (default 150)
  --timeout S            each wait's timeout in seconds (default 5)
  --wait-tool NAME       default wait_for_text
  --capture-tool NAME    default capture_pane
  --wait-args NAME=JSON  arguments for NAME's wait, instead of those read from its schema;
                         "{pane}", "{text}" and "{timeout}" are replaced (e.g. '{"pane_id":"{pane}",
                         "patterns":["{text}"],"timeout":"{timeout}"}')
  --capture-args NAME=JSON  the same for the capture ("{pane}")`;

const { values: opt } = parseArgs({
  options: {
    server: { type: 'string', multiple: true, default: [] },
    tmux: { type: 'string', default: 'tmux' },
    iterations: { type: 'string', short: 'n', default: '200' },
    reads: { type: 'string', default: '500' },
    warmup: { type: 'string', default: '5' },
    'settle-ms': { type: 'string', default: '150' },
    timeout: { type: 'string', default: '5' },
    'wait-tool': { type: 'string', default: 'wait_for_text' },
    'capture-tool': { type: 'string', default: 'capture_pane' },
    'wait-args': { type: 'string', multiple: true, default: [] },
    'capture-args': { type: 'string', multiple: true, default: [] },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opt.help || opt.server.length === 0) {
  console.error(usage);
  process.exit(opt.help ? 0 : 2);
}
const num = (name) => {
  const v = Number(opt[name]);
  if (!Number.isFinite(v) || v < 0) fail(`--${name}: not a number: ${opt[name]}`);
  return v;
};
const N = num('iterations'), READS = num('reads'), WARMUP = num('warmup');
const SETTLE = num('settle-ms'), TIMEOUT = num('timeout');
const named = (list, flag) => Object.fromEntries(list.map((s) => {
  const i = s.indexOf('=');
  if (i <= 0) fail(`${flag} ${s}: want NAME=...`);
  return [s.slice(0, i), s.slice(i + 1)];
}));
const waitArgs = named(opt['wait-args'], '--wait-args');
const captureArgs = named(opt['capture-args'], '--capture-args');

function fail(msg) {
  console.error(`waitbench: ${msg}`);
  process.exit(2);
}

// The tmux binary, and the environment of tmux and of the servers.
let tmuxBin = opt.tmux;
if (!tmuxBin.includes('/')) {
  try {
    tmuxBin = execFileSync('/bin/sh', ['-c', 'command -v "$0"', tmuxBin], { encoding: 'utf8' }).trim();
  } catch {
    fail(`${tmuxBin}: not found on PATH`);
  }
}
tmuxBin = path.resolve(tmuxBin);
const dir = fs.mkdtempSync(path.join('/tmp', 'wb.'));
const env = {
  PATH: `${path.dirname(tmuxBin)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  TMPDIR: dir, // the servers' temporary files go with ours
  HOME: process.env.HOME ?? os.homedir(),
  USER: process.env.USER ?? os.userInfo().username,
  LOGNAME: process.env.LOGNAME ?? os.userInfo().username,
  TERM: 'xterm-256color',
  SHELL: '/bin/sh',
  LANG: 'C.UTF-8',
};
// The SDK adds HOME, LOGNAME, PATH, SHELL, TERM, USER from this process's own
// environment to what a server is given: make them ours.
for (const k of ['TMUX', 'TMUX_PANE', 'ENV']) delete process.env[k];
Object.assign(process.env, env);

const socket = path.join(dir, 's');
const tmux = (...args) => execFileSync(tmuxBin, ['-S', socket, ...args], { env, encoding: 'utf8', timeout: 10_000 }).trim();
let tmuxPid = 0, floorProc = null;
const servers = [];
const fds = [];

let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    await Promise.all(servers.map((s) => s.client?.close().catch(() => {})));
    floorProc?.stdin.end();
    for (const fd of fds) fs.closeSync(fd);
    if (tmuxPid && alive(tmuxPid)) {
      process.kill(tmuxPid, 'SIGTERM');
      for (let i = 0; i < 50 && alive(tmuxPid); i++) await sleep(20);
      if (alive(tmuxPid)) process.kill(tmuxPid, 'SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => { console.error(`waitbench: ${sig}, cleaning up`); cleanup().then(() => process.exit(130)); });
}

async function main() {
  const version = tmux('-V'); // tmux -V only prints: no server starts
  // An idle session first: a server that attaches to "the first session"
  // attaches there, not to another server's pane.
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'wb0-idle', '-x', '80', '-y', '24', 'exec cat');
  tmuxPid = Number(tmux('display-message', '-p', '-t', 'wb0-idle:', '#{pid}'));
  if (!tmuxPid) throw new Error('cannot read the tmux server pid');

  // One session of the same shape per server, whose pane runs cat on a FIFO.
  const withPane = (s, k) => {
    s.fifo = path.join(dir, `f${k}`);
    execFileSync('mkfifo', [s.fifo]);
    // O_RDWR: opening never blocks, and cat never sees EOF while we run.
    s.fd = fs.openSync(s.fifo, 'r+');
    fds.push(s.fd);
    s.session = `wb${k + 1}`;
    tmux('new-session', '-d', '-s', s.session, '-x', '80', '-y', '24', `exec cat ${s.fifo}`);
    s.pane = tmux('display-message', '-p', '-t', `${s.session}:`, '#{pane_id}');
    s.reaction = []; s.misses = []; s.reads = { ping: [], capture: [] };
    return s;
  };
  for (const [k, spec] of opt.server.entries()) {
    const i = spec.indexOf('=');
    if (i <= 0) throw new Error(`--server ${spec}: want NAME=COMMAND`);
    const s = { name: spec.slice(0, i), command: spec.slice(i + 1).replaceAll('{socket}', socket) };
    s.log = path.join(dir, `server${k}.log`);
    servers.push(withPane(s, k));
  }
  // The floor: the same print, seen by a tmux control client of our own.
  const floor = withPane({ name: '(tmux -C floor)', floor: true }, servers.length);

  console.log(`waitbench: ${version} (${tmuxBin}), socket ${socket}, tmux pid ${tmuxPid}`);
  const load0 = os.loadavg();

  for (const s of servers) await connect(s);
  for (const s of servers) console.log(`  ${s.name}: ${s.info} pane ${s.pane}: ${s.command}`);
  await attachFloor(floor);
  const waiters = [...servers, floor];

  // (a) wait reaction.
  if (N > 0) {
    for (let i = 0; i < WARMUP; i++) for (const s of waiters) await waitOnce(s, `warm${i}`);
    for (let i = 0; i < N; i++) {
      for (const s of alternate(waiters, i)) {
        const r = await waitOnce(s, i);
        if (r.ok) s.reaction.push(r.ms); else s.misses.push(r.why);
      }
    }
  }

  // (b, c) ping against a capture of the unchanged pane.
  const readers = servers.filter((s) => s.capture);
  if (READS > 0) {
    for (let i = 0; i < WARMUP + READS; i++) {
      for (const s of alternate(readers, i)) {
        for (const kind of i % 2 ? ['capture', 'ping'] : ['ping', 'capture']) {
          const t0 = performance.now();
          if (kind === 'ping') await s.client.ping({ timeout: 10_000 });
          else await call(s, s.capture.name, s.capture.args({ pane: s.pane }), 10_000);
          if (i >= WARMUP) s.reads[kind].push(performance.now() - t0);
        }
      }
    }
  }
  const load1 = os.loadavg();

  const f = (x) => x.toFixed(2).padStart(8);
  console.log(`\nload average (1, 5, 15 min): ${fmtLoad(load0)} at the start, ${fmtLoad(load1)} at the end`);
  if (N > 0) {
    console.log(`\n(a) wait reaction, ms: the marker written to the pane's FIFO -> the wait call's result`);
    console.log(`    (${N} per server, alternating, ${SETTLE} ms from each call's start to the print)`);
    console.log(`${'server'.padEnd(16)}${'p50'.padStart(8)}${'p95'.padStart(8)}${'min'.padStart(8)}${'max'.padStart(8)}  missed`);
    for (const s of waiters) {
      const q = stats(s.reaction);
      console.log(`${s.name.padEnd(16)}${f(q.p50)}${f(q.p95)}${f(q.min)}${f(q.max)}  ${s.misses.length}`);
      for (const why of [...new Set(s.misses)].slice(0, 3)) console.log(`    missed: ${why}`);
    }
  }
  if (READS > 0 && readers.length) {
    console.log(`\n(b) ${opt['capture-tool']} of an unchanged pane against an MCP ping, ms (${READS} of each per server)`);
    console.log(`${'server'.padEnd(16)}${'ping p50'.padStart(10)}${'p95'.padStart(8)}${'capture p50'.padStart(13)}${'p95'.padStart(8)}  capture/ping p50`);
    for (const s of readers) {
      const p = stats(s.reads.ping), c = stats(s.reads.capture);
      console.log(`${s.name.padEnd(16)}${f(p.p50).padStart(10)}${f(p.p95)}${f(c.p50).padStart(13)}${f(c.p95)}  ${(c.p50 / p.p50).toFixed(2)}x`);
    }
  }
  const missed = servers.filter((s) => s.misses.length > N / 10);
  if (missed.length) {
    console.error(`\nwaitbench: ${missed.map((s) => s.name).join(', ')} missed over 10% of the waits` +
      ` (a wait not yet watching when the text came? try a larger --settle-ms)`);
    process.exitCode = 1;
  }
}

// connect starts one server, lists its tools and works out the arguments.
async function connect(s) {
  const log = fs.openSync(s.log, 'w');
  const transport = new StdioClientTransport({ command: '/bin/sh', args: ['-c', `exec ${s.command}`], env, stderr: log });
  s.client = new Client({ name: 'waitbench', version: '1.0.0' });
  s.closed = false;
  transport.onclose = () => { s.closed = true; };
  try {
    await s.client.connect(transport, { timeout: 20_000 });
    const { tools } = await s.client.listTools(undefined, { timeout: 20_000 });
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    const wait = byName[opt['wait-tool']];
    if (!wait) throw new Error(`no tool ${opt['wait-tool']} (it has: ${tools.map((t) => t.name).join(' ')}); see --wait-tool`);
    s.wait = { name: wait.name, args: argsFor(s, wait, 'wait', waitArgs[s.name]) };
    const capture = byName[opt['capture-tool']];
    if (capture) s.capture = { name: capture.name, args: argsFor(s, capture, 'capture', captureArgs[s.name]) };
    else if (READS > 0) console.error(`waitbench: ${s.name} has no tool ${opt['capture-tool']}: no reads for it`);
    const v = s.client.getServerVersion();
    s.info = `${v?.name ?? '?'} ${v?.version ?? ''}`.trim() + ',';
  } catch (e) {
    throw new Error(`${s.name}: ${e.message}${tail(s.log)}`);
  }
}

// argsFor builds a tool's arguments from its input schema (pane_id or
// paneId; patterns or pattern; timeout in seconds or ms), or from a template.
function argsFor(s, tool, kind, template) {
  if (template) {
    let parsed;
    try { parsed = JSON.parse(template); } catch (e) { throw new Error(`--${kind}-args ${s.name}: ${e.message}`); }
    const fill = (x, v) => {
      if (typeof x === 'string') return x === '{timeout}' ? v.timeout : x.replaceAll('{pane}', v.pane).replaceAll('{text}', v.text ?? '');
      if (Array.isArray(x)) return x.map((y) => fill(y, v));
      if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, fill(y, v)]));
      return x;
    };
    return (v) => fill(parsed, { ...v, timeout: TIMEOUT });
  }
  const props = tool.inputSchema?.properties ?? {};
  const pick = (...names) => names.find((n) => n in props);
  const hint = `; pass --${kind}-args '${s.name}={...}'`;
  const pane = pick('pane_id', 'paneId', 'pane', 'target');
  if (!pane) throw new Error(`${tool.name}: no pane parameter among ${Object.keys(props).join(' ')}${hint}`);
  if (kind === 'capture') return (v) => ({ [pane]: v.pane });
  const list = pick('patterns'), one = pick('pattern', 'text');
  if (!list && !one) throw new Error(`${tool.name}: no patterns parameter among ${Object.keys(props).join(' ')}${hint}`);
  const secs = pick('timeout', 'timeoutSeconds', 'timeout_seconds'), ms = pick('timeout_ms', 'timeoutMs');
  return (v) => ({
    [pane]: v.pane,
    ...(list ? { [list]: [v.text] } : { [one]: v.text }),
    ...(secs ? { [secs]: TIMEOUT } : ms ? { [ms]: TIMEOUT * 1000 } : {}),
  });
}

function call(s, name, args, timeout) {
  return s.client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, { timeout })
    .then((r) => {
      if (r.isError) throw new Error(`${s.name}: ${name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
      return r;
    })
    .catch((e) => {
      if (s.closed) e.message += tail(s.log);
      throw e;
    });
}

// attachFloor attaches a control client (tmux -C) to the floor's session:
// s.seen(text) resolves when tmux reports the text as the pane's %output.
async function attachFloor(s) {
  s.proc = spawn(tmuxBin, ['-S', socket, '-C', 'attach-session', '-t', `${s.session}:`], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  floorProc = s.proc;
  let want = null, buf = '', attached;
  const ready = new Promise((resolve) => { attached = resolve; });
  s.proc.stdout.setEncoding('utf8').on('data', (chunk) => {
    attached();
    const now = performance.now();
    buf += chunk;
    const lines = buf.split('\n');
    buf = lines.pop();
    for (const l of lines) if (want && l.startsWith(`%output ${s.pane} `) && l.includes(want.text)) { want.resolve(now); want = null; }
  });
  s.seen = (text) => new Promise((resolve) => { want = { text, resolve }; });
  const late = sleep(10_000).then(() => { throw new Error('tmux -C attach-session: no answer in 10 s'); });
  await Promise.race([ready, late]);
}

// waitOnce starts a wait for a fresh marker, prints the marker SETTLE ms
// later, and measures from the print to the result.
async function waitOnce(s, i) {
  const text = `wb-${s.pane.slice(1)}-${i}-${Math.random().toString(36).slice(2, 8)}`;
  let done = 0;
  const result = (s.floor
    ? Promise.race([s.seen(text), sleep((TIMEOUT + 10) * 1000).then(() => { throw new Error('tmux -C saw nothing'); })])
    : call(s, s.wait.name, s.wait.args({ pane: s.pane, text }), (TIMEOUT + 10) * 1000)
  ).then((r) => { done = performance.now(); return r; });
  result.catch(() => {});
  await sleep(SETTLE);
  if (done) {
    await result;
    return { ok: false, why: 'returned before the text was printed' };
  }
  fs.writeSync(s.fd, `${text}\n`);
  const printed = performance.now();
  const r = await result;
  if (s.floor) return { ok: true, ms: r - printed };
  const body = JSON.stringify(r);
  if (!body.includes(text) || /"(timed_out|timedOut)":true|"outcome":"timeout"|"found":false/.test(body)) {
    return { ok: false, why: `no match in ${(done - printed).toFixed(0)} ms: ${body.slice(0, 200)}` };
  }
  return { ok: true, ms: done - printed };
}

const alternate = (list, i) => (i % 2 ? [...list].reverse() : list);
function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => (s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] : NaN);
  return { p50: at(0.5), p95: at(0.95), min: s[0] ?? NaN, max: s.at(-1) ?? NaN };
}
// alive: the process exists and is not a zombie (a daemon's parent may be
// slow to reap it).
function alive(pid) {
  if (fs.existsSync('/proc/self')) {
    try { return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return false; }
  }
  try { process.kill(pid, 0); return true; } catch { return false; }
}
const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(', ');
function tail(file) {
  try {
    const t = fs.readFileSync(file, 'utf8').trim().split('\n').slice(-5).join('\n    ');
    return t ? `\n  its stderr ends:\n    ${t}` : '';
  } catch { return ''; }
}

let status = 0;
try {
  await main();
} catch (e) {
  if (!cleaning) console.error(`waitbench: ${e.message}`); // else: interrupted
  status = 1;
}
await cleanup();
process.exit(status || process.exitCode || 0);
