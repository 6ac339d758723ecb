#!/usr/bin/env node
// tmux-mcp launcher: runs the tmux-mcp binary that the platform package
// (tmux-mcp-<os>-<cpu>, an optional dependency) carries, with this
// process's arguments, environment, stdin, stdout and stderr, forwards
// the signals a client or a terminal sends, and ends as the binary ended:
// with its exit status, or killed by the same signal.
"use strict";

const { spawn } = require("node:child_process");
const { constants } = require("node:os");

const platformPackage = `tmux-mcp-${process.platform}-${process.arch}`;

function binaryPath() {
  try {
    return require.resolve(`${platformPackage}/bin/tmux-mcp`);
  } catch (err) {
    process.stderr.write(
      `tmux-mcp: no binary for ${process.platform}-${process.arch}: the package ${platformPackage} is not installed.\n` +
        "tmux-mcp runs on Linux and macOS, amd64 (x64) and arm64. If your platform is one of these, the optional\n" +
        "dependency was skipped: reinstall without --omit=optional / --no-optional, or use a release archive\n" +
        "(https://github.com/tmux-mcp/tmux-mcp/releases) or `go install github.com/tmux-mcp/tmux-mcp/cmd/tmux-mcp@latest`.\n",
    );
    process.exit(1);
  }
}

// The signals passed on. A terminal's Ctrl-C reaches the binary twice (it
// is in the terminal's process group too); serve takes both as one
// request to stop.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGWINCH"];

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
const handlers = new Map();
for (const sig of forwarded) {
  const h = () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        child.kill(sig);
      } catch {
        // gone already: its exit event follows.
      }
    }
  };
  handlers.set(sig, h);
  process.on(sig, h);
}

child.on("error", (err) => {
  process.stderr.write(`tmux-mcp: cannot run ${platformPackage}: ${err.message}\n`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so that whoever started us sees it.
    for (const [sig, h] of handlers) process.removeListener(sig, h);
    process.kill(process.pid, signal);
    // Still here (a signal whose default is not to terminate, or one
    // this process ignores): report it the shell's way.
    setTimeout(() => process.exit(128 + (constants.signals[signal] || 0)), 1000);
    return;
  }
  process.exit(code === null ? 1 : code);
});
