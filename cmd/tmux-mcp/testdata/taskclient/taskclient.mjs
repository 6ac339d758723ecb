// taskclient drives tmux-mcp's MCP tasks with the official TypeScript SDK,
// for cmd/tmux-mcp/tasks_e2e_test.go, which installs the packages of
// package-lock.json and runs it with Node 22.
//
// It reads one JSON object from stdin, its settings: it connects over
// stdio (it starts the server: command, args, env) or streamable HTTP (url,
// token), runs scenario (below) with the shell command shell in pane
// (run_command's timeout: timeout), and reports on stdout, one JSON object
// a line:
// events the test may act on ({"ev": "listening", ...}) and, last, what
// it saw ({"ev": "report", ...}). It asserts nothing: the Go test does.
//
// Scenarios of protocol 2026-07-28 (@modelcontextprotocol/client 2.4.0 and
// @modelcontextprotocol/ext-tasks 0.2.2, which needs a raw request path
// for the task wire shapes the Client's codecs refuse: RawChannel):
//
//	task:     run_command as a task, seen to the end by the SDK's
//	          execution.settle(); action "cancel" cancels it first
//	          (tasks/cancel), any other just waits (the test may kill
//	          tmux meanwhile: it hears "listening"). A subscriptions/listen
//	          stream for the task is open throughout.
//	latency:  runs commands that write `date +%s.%N` to a file as their
//	          last action, and reports when notifications/tasks said
//	          completed, against that stamp.
//
// Scenario of protocol 2025-11-25 (@modelcontextprotocol/sdk 1.32.2):
//
//	legacy:   client.experimental.tasks.callToolStream, to its end.
import { readFileSync } from "node:fs";

const EXT = "io.modelcontextprotocol/tasks";
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

const cfg = JSON.parse(readFileSync(0, "utf8"));
const waitMs = cfg.waitMs ?? 15000;

// now is the wall clock in milliseconds with sub-millisecond resolution,
// comparable with `date +%s.%N` on the same machine.
const now = () => performance.timeOrigin + performance.now();
const emit = (ev, fields = {}) => process.stdout.write(JSON.stringify({ ev, t: now(), ...fields }) + "\n");

// within rejects when p has not settled in ms: no step waits unbounded.
function within(p, ms, what) {
  let timer;
  return Promise.race([
    p,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// RawChannel sends JSON-RPC requests on a connected transport under IDs
// of its own (strings, which the SDK's numeric IDs never are) and takes
// their responses before the Client sees them: the rawDispatch that
// ext-tasks needs for 2026-07-28. It also shows every inbound frame to
// onFrame, first: the earliest point at which this process has a message.
class RawChannel {
  constructor(transport, onFrame) {
    this.transport = transport;
    this.pending = new Map();
    this.seq = 0;
    this.responses = []; // {method, result} or {method, error}, in order
    const prev = transport.onmessage;
    transport.onmessage = (msg, extra) => {
      onFrame(msg);
      if (typeof msg.id === "string" && this.pending.has(msg.id) && !("method" in msg)) {
        const { resolve, method, timer } = this.pending.get(msg.id);
        clearTimeout(timer);
        this.pending.delete(msg.id);
        this.responses.push({ method, ...(msg.error ? { error: msg.error } : { result: msg.result }) });
        resolve(msg.error ? { kind: "error", error: msg.error } : { kind: "result", result: msg.result });
        return;
      }
      prev?.(msg, extra);
    };
    const prevClose = transport.onclose;
    transport.onclose = () => {
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer);
        reject(new Error("connection closed"));
      }
      this.pending.clear();
      prevClose?.();
    };
  }

  dispatch = (request, options) =>
    new Promise((resolve, reject) => {
      const id = `taskclient-${++this.seq}`;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${request.method}: no response within ${waitMs} ms`));
      }, waitMs);
      this.pending.set(id, { resolve, reject, method: request.method, timer });
      const msg = { jsonrpc: "2.0", id, method: request.method, ...(request.params ? { params: request.params } : {}) };
      // The transport derives Mcp-Method and Mcp-Name (HTTP) from the
      // framed body; ext-tasks adds its own headers through context.
      const headers = options?.context?.headers;
      this.transport.send(msg, headers ? { headers } : {}).catch((err) => {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(err);
      });
    });
}

async function modern() {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const { createTaskSessionFromClient } = await import("@modelcontextprotocol/ext-tasks/client");
  const clientInfo = { name: "tmux-mcp-taskclient", version: "0" };
  const capabilities = { extensions: { [EXT]: {} } };
  const transport = cfg.url
    ? new StreamableHTTPClientTransport(new URL(cfg.url), {
        requestInit: { headers: { Authorization: `Bearer ${cfg.token}` } },
      })
    : new StdioClientTransport({ command: cfg.command, args: cfg.args, env: cfg.env, stderr: "inherit" });
  const client = new Client(clientInfo, { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await within(client.connect(transport), waitMs, "connect");
  const frames = []; // notifications/tasks and acknowledgements, with arrival times
  const waiters = new Set();
  const channel = new RawChannel(transport, (msg) => {
    if (msg.method !== "notifications/tasks" && msg.method !== "notifications/subscriptions/acknowledged") return;
    const f = { at: now(), method: msg.method, params: msg.params };
    frames.push(f);
    for (const w of waiters) w(f);
  });
  // nextFrame resolves with the first frame (from now on) that pred likes.
  const nextFrame = (pred, ms, what) => {
    let w;
    return within(
      new Promise((resolve) => {
        w = (f) => pred(f) && resolve(f);
        waiters.add(w);
      }),
      ms,
      what,
    ).finally(() => waiters.delete(w));
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: "tmux-mcp-taskclient",
    rawDispatch: channel.dispatch,
    v2RequestFraming: { protocolVersion: client.getNegotiatedProtocolVersion(), clientInfo, clientCapabilities: capabilities },
  });
  const close = async () => {
    await session.close().catch(() => {});
    await client.close().catch(() => {});
  };
  return { client, session, channel, frames, nextFrame, close, era: client.getProtocolEra(), version: client.getNegotiatedProtocolVersion() };
}

// jobRow returns get_job's view of job id (null for a tool error), and
// whether list_jobs lists it.
async function jobRow(client, id) {
  const got = await within(client.callTool({ name: "get_job", arguments: { job_id: id } }), waitMs, "get_job");
  const res = await within(client.callTool({ name: "list_jobs", arguments: {} }), waitMs, "list_jobs");
  const listed = (res.structuredContent?.jobs ?? []).some((j) => j.job_id === id);
  return { job: got.isError ? null : (got.structuredContent ?? null), listed };
}

async function taskScenario() {
  const m = await modern();
  const report = { era: m.era, version: m.version };
  try {
    const ex = await m.session.callTool("run_command", { pane_id: cfg.pane, command: cfg.shell, timeout: cfg.timeout ?? 30 });
    report.kind = ex.kind;
    report.created = m.channel.responses.find((r) => r.method === "tools/call") ?? null;
    if (ex.kind !== "task") {
      report.outcome = await within(ex.result(), waitMs, "immediate result");
      return report;
    }
    const id = ex.handle.taskId;
    report.taskId = id;
    const terminal = m.nextFrame((f) => f.method === "notifications/tasks" && f.params.taskId === id && TERMINAL.has(f.params.status), waitMs, "a terminal notifications/tasks");
    terminal.catch(() => {}); // awaited below, or reported missing
    const sub = await within(m.client.listen({ taskIds: [id] }), waitMs, "subscriptions/listen");
    report.ack = m.frames.find((f) => f.method === "notifications/subscriptions/acknowledged")?.params ?? null;
    emit("listening", { taskId: id });
    if (cfg.action === "cancel") {
      await within(ex.cancel(), waitMs, "tasks/cancel");
    }
    const settled = await ex.settle({ signal: AbortSignal.timeout(waitMs) });
    report.outcome = outcomeOf(settled.outcome);
    try {
      report.terminalNotification = (await terminal).params;
    } catch (err) {
      report.terminalNotification = null;
      report.notificationError = String(err);
    }
    // What tasks/get says now: the server's word, not the SDK's (which
    // settles a cancelled execution as soon as tasks/cancel is answered).
    report.final = (await within(m.session.task(id).snapshot(), waitMs, "tasks/get")).raw;
    ({ job: report.job, listed: report.listed } = await jobRow(m.client, id));
    await sub.close().catch(() => {});
  } finally {
    report.notifications = m.frames.filter((f) => f.method === "notifications/tasks").map((f) => ({ status: f.params.status, subscription: f.params._meta?.["io.modelcontextprotocol/subscriptionId"] ?? null }));
    await m.close();
  }
  return report;
}

// outcomeOf is an ext-tasks TaskOutcome as JSON.
function outcomeOf(o) {
  const out = { status: o.status };
  if (o.status === "completed") {
    out.isError = o.result?.isError ?? false;
    out.structuredContent = o.result?.structuredContent ?? null;
    out.text = (o.result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  }
  if (o.status === "failed") out.error = { code: o.error?.code, message: o.error?.message };
  return out;
}

async function latencyScenario() {
  const m = await modern();
  const runs = [];
  try {
    for (let i = 0; i < cfg.runs; i++) {
      const stamp = `${cfg.stampDir}/stamp-${i}`;
      const ex = await m.session.callTool("run_command", { pane_id: cfg.pane, command: `sleep ${cfg.sleep}; date +%s.%N >'${stamp}'`, timeout: 30 });
      if (ex.kind !== "task") throw new Error(`run ${i}: the call answered at once, not as a task: raise sleep (${cfg.sleep} s)`);
      const id = ex.handle.taskId;
      const done = m.nextFrame((f) => f.method === "notifications/tasks" && f.params.taskId === id && TERMINAL.has(f.params.status), waitMs, "a terminal notifications/tasks");
      done.catch(() => {});
      const sub = await within(m.client.listen({ taskIds: [id] }), waitMs, "subscriptions/listen");
      const f = await done;
      if (f.params.status !== "completed") throw new Error(`run ${i}: task ${f.params.status}: ${JSON.stringify(f.params)}`);
      const ended = parseFloat(readFileSync(stamp, "utf8")) * 1000;
      // lastUpdatedAt: when the server ended the task (milliseconds).
      runs.push({ ended, completed: Date.parse(f.params.lastUpdatedAt), notified: f.at, ms: f.at - ended });
      await ex.settle({ signal: AbortSignal.timeout(waitMs) }).catch(() => {});
      await sub.close().catch(() => {});
    }
  } finally {
    await m.close();
  }
  return { runs };
}

async function legacyScenario() {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { LATEST_PROTOCOL_VERSION } = await import("@modelcontextprotocol/sdk/types.js");
  const transport = cfg.url
    ? new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers: { Authorization: `Bearer ${cfg.token}` } } })
    : new StdioClientTransport({ command: cfg.command, args: cfg.args, env: cfg.env, stderr: "inherit" });
  const client = new Client({ name: "tmux-mcp-taskclient-v1", version: "0" }, { capabilities: {} });
  const report = { version: LATEST_PROTOCOL_VERSION, messages: [] };
  try {
    await within(client.connect(transport), waitMs, "connect");
    report.tasksCapability = client.getServerCapabilities()?.tasks ?? null;
    const { tools } = await within(client.listTools(), waitMs, "tools/list");
    report.taskSupport = tools.find((t) => t.name === "run_command")?.execution?.taskSupport ?? null;
    const stream = client.experimental.tasks.callToolStream(
      { name: "run_command", arguments: { pane_id: cfg.pane, command: cfg.shell, timeout: cfg.timeout ?? 30 } },
      undefined,
      { timeout: waitMs },
    );
    const deadline = AbortSignal.timeout(waitMs);
    for await (const msg of stream) {
      if (msg.type === "taskCreated" || msg.type === "taskStatus") {
        report.messages.push({ type: msg.type, status: msg.task.status, statusMessage: msg.task.statusMessage ?? "" });
        report.taskId ??= msg.task.taskId;
      } else if (msg.type === "result") {
        report.messages.push({ type: "result" });
        report.outcome = { status: "completed", isError: msg.result.isError ?? false, structuredContent: msg.result.structuredContent ?? null };
      } else if (msg.type === "error") {
        report.messages.push({ type: "error" });
        report.outcome = { status: "error", error: { code: msg.error?.code, message: msg.error?.message } };
      }
      if (deadline.aborted) throw new Error(`callToolStream: no end within ${waitMs} ms`);
    }
  } finally {
    await client.close().catch(() => {});
  }
  return report;
}

// The last line is written before the process exits (a pipe may be
// asynchronous): whatever the SDK left open (an HTTP keep-alive) does not
// keep it.
const scenarios = { task: taskScenario, latency: latencyScenario, legacy: legacyScenario };
let last, code;
try {
  const run = scenarios[cfg.scenario];
  if (!run) throw new Error(`unknown scenario ${JSON.stringify(cfg.scenario)}`);
  [last, code] = [{ ev: "report", report: await run() }, 0];
} catch (err) {
  [last, code] = [{ ev: "fatal", error: String(err?.stack ?? err) }, 1];
}
process.stdout.write(JSON.stringify({ ...last, t: now() }) + "\n", () => process.exit(code));
