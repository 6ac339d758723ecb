package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/jobs"
	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// The tests of this file drive the built binary's MCP tasks with the
// official TypeScript SDK: testdata/taskclient/taskclient.mjs on Node 22,
// with the packages its package-lock.json pins (@modelcontextprotocol/client
// 2.4.0 and @modelcontextprotocol/ext-tasks 0.2.2 for protocol 2026-07-28,
// @modelcontextprotocol/sdk 1.32.2 for 2025-11-25), over stdio and HTTP.
//
// Node: $TMUX_MCP_NODE, else the npm package node-<os>-<cpu>@22.23.3 in
// ${XDG_CACHE_HOME:-$HOME/.cache}/tmux-mcp/node22 (scripts/conformance's
// too), installed there with npm on first use. The client's packages are
// installed with `npm ci` on first use into
// ${XDG_CACHE_HOME:-$HOME/.cache}/tmux-mcp/taskclient/<hash of the package
// files>. Without node or npm (or the registry, the first time) the tests
// skip, saying so; in CI ($CI set) they fail instead.

// nodeVersion is the Node.js the tests install when $TMUX_MCP_NODE is not
// set.
const nodeVersion = "22.23.3"

// taskClient is the installed client: node and the script it runs.
type taskClient struct {
	node, script string
}

// installed is the client of this test process, installed once.
var installed struct {
	once sync.Once
	tc   *taskClient
	skip string // why there is none: node or npm missing, npm failed
	err  error  // a wrong setting
}

// needTaskClient returns the installed client, skipping the test (failing
// it in CI) when Node or npm is missing.
func needTaskClient(t *testing.T) *taskClient {
	t.Helper()
	if testing.Short() {
		t.Skip("installs and runs Node.js")
	}
	installed.once.Do(func() { installed.tc, installed.skip, installed.err = installTaskClient() })
	switch {
	case installed.err != nil:
		t.Fatal(installed.err)
	case installed.skip != "" && os.Getenv("CI") != "":
		t.Fatalf("%s (CI is set: a skip would hide it)", installed.skip)
	case installed.skip != "":
		t.Skip(installed.skip)
	}
	return installed.tc
}

func cacheRoot() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "tmux-mcp")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "tmux-mcp")
}

// installTaskClient finds Node 22 and the client's packages, installing
// what is missing. skip says why it cannot; err is a wrong setting.
func installTaskClient() (tc *taskClient, skip string, err error) {
	tc = &taskClient{}
	root := cacheRoot()
	if node := os.Getenv("TMUX_MCP_NODE"); node != "" {
		tc.node = node
	} else if tc.node, skip = installNode(root); skip != "" {
		return nil, skip, nil
	}
	out, err := exec.Command(tc.node, "--version").Output()
	if err != nil {
		if os.Getenv("TMUX_MCP_NODE") != "" {
			return nil, "", fmt.Errorf("TMUX_MCP_NODE=%s: %v", tc.node, err)
		}
		return nil, fmt.Sprintf("%s does not run: %v", tc.node, err), nil
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "v22.") {
		return nil, "", fmt.Errorf("%s is Node.js %s, want 22 (TMUX_MCP_NODE names it, else the cache)", tc.node, v)
	}
	src := filepath.Join("testdata", "taskclient")
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		return nil, "", err
	}
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		return nil, "", err
	}
	script, err := os.ReadFile(filepath.Join(src, "taskclient.mjs"))
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(slices.Concat(pkg, []byte{0}, lock))
	dir := filepath.Join(root, "taskclient", hex.EncodeToString(sum[:8]))
	if skip := installPackages(dir, pkg, lock); skip != "" {
		return nil, skip, nil
	}
	// The script beside its node_modules, where Node's resolution finds
	// them: one file per version of it.
	sum = sha256.Sum256(script)
	tc.script = filepath.Join(dir, "taskclient-"+hex.EncodeToString(sum[:6])+".mjs")
	if b, err := os.ReadFile(tc.script); err != nil || !bytes.Equal(b, script) {
		if err := writeAtomic(tc.script, script); err != nil {
			return nil, "", err
		}
	}
	return tc, "", nil
}

// installNode returns the cache's Node 22, installing it with npm first
// if it is not there.
func installNode(root string) (node, skip string) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		return "", "no Node.js package for " + runtime.GOARCH + "; set TMUX_MCP_NODE to a Node.js 22"
	}
	name := "node-" + runtime.GOOS + "-" + arch
	dir := filepath.Join(root, "node22")
	node = filepath.Join(dir, "node_modules", name, "bin", "node")
	if _, err := os.Stat(node); err == nil {
		return node, ""
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "Node.js 22 is not in " + dir + " and npm is not installed to put it there (apt-get install npm), nor is TMUX_MCP_NODE set"
	}
	err = locked(dir+".lock", func() error {
		if _, err := os.Stat(node); err == nil {
			return nil // installed meanwhile
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return runNPM(npm, dir, "install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact", name+"@"+nodeVersion)
	})
	if err != nil {
		return "", "installing Node.js " + nodeVersion + " into " + dir + ": " + err.Error()
	}
	return node, ""
}

// installPackages installs the client's packages into dir with npm ci,
// unless they are there.
func installPackages(dir string, pkg, lock []byte) (skip string) {
	done := filepath.Join(dir, "node_modules", ".package-lock.json")
	if _, err := os.Stat(done); err == nil {
		return ""
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "the task client's packages are not in " + dir + " and npm is not installed to put them there (apt-get install npm)"
	}
	err = locked(dir+".lock", func() error {
		if _, err := os.Stat(done); err == nil {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return err
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, "package-lock.json"), lock, 0o644); err != nil {
			return err
		}
		if err := runNPM(npm, tmp, "ci", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
			return err
		}
		os.RemoveAll(dir) // a half-made one of an interrupted run
		if err := os.Chmod(tmp, 0o755); err != nil {
			return err
		}
		return os.Rename(tmp, dir)
	})
	if err != nil {
		return "installing the task client's packages into " + dir + ": " + err.Error()
	}
	return ""
}

func runNPM(npm, dir string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// locked runs fn holding an exclusive lock on the file path: test
// processes that run at once (scripts/citest) install once.
func locked(path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer f.Close() // releases the lock
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	return fn()
}

func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	if err := errors.Join(werr, tmp.Chmod(0o644), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// clientEvent is a line the client writes.
type clientEvent struct {
	Ev     string          `json:"ev"`
	TaskID string          `json:"taskId"`
	Report json.RawMessage `json:"report"`
	Error  string          `json:"error"`
}

// run runs the client with cfg (its stdin), calls on with each event,
// and decodes its report into report. It fails the test when the client
// fails or has not ended within timeout.
func (tc *taskClient) run(t *testing.T, cfg map[string]any, timeout time.Duration, on func(clientEvent), report any) {
	t.Helper()
	in, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tc.node, tc.script)
	cmd.Stdin = bytes.NewReader(in)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	defer func() {
		if !waited { // on failed the test: end the client (and the server it started) now
			cancel()
			cmd.Wait() //nolint:errcheck // killed
		}
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("client stderr (the server's too, on stdio):\n%s", stderr)
		}
	})
	var got json.RawMessage
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev clientEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Errorf("client wrote %q: %v", sc.Bytes(), err)
			continue
		}
		switch ev.Ev {
		case "report":
			got = ev.Report
		case "fatal":
			t.Errorf("client: %s", ev.Error)
		}
		if on != nil {
			on(ev)
		}
	}
	err = cmd.Wait()
	waited = true
	if ctx.Err() != nil {
		t.Fatalf("client not done within %v (killed)", timeout)
	}
	if err != nil || got == nil {
		t.Fatalf("client: %v, and no report", err)
	}
	if err := json.Unmarshal(got, report); err != nil {
		t.Fatalf("decode report %s: %v", got, err)
	}
}

// connectTo returns the client settings that reach tmux-mcp on tm's server
// over transport ("stdio": the client starts bin; "http": the test does).
func connectTo(t *testing.T, transport, bin string, tm *tmuxtest.Server) map[string]any {
	t.Helper()
	switch transport {
	case "stdio":
		env := map[string]string{}
		for _, kv := range binaryEnv(tm.Socket) {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		return map[string]any{"command": bin, "args": []string{"serve"}, "env": env}
	case "http":
		p := startHTTP(t, tm)
		return map[string]any{"url": p.URL, "token": p.Token}
	}
	t.Fatalf("no transport %q", transport)
	return nil
}

// taskServer is what a scenario runs on: its own tmux server with one
// session, and the pane and PID of it.
type taskServer struct {
	tm   *tmuxtest.Server
	pane string
	pid  int
}

func newTaskServer(t *testing.T) taskServer {
	t.Helper()
	tm := tmuxtest.New(t)
	pid := tm.Start("main")
	return taskServer{tm: tm, pane: tm.MustTmux("display-message", "-p", "-t", "=main:", "#{pane_id}"), pid: pid}
}

// taskReport is what the client saw of one task of protocol 2026-07-28.
type taskReport struct {
	Era     string `json:"era"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	TaskID  string `json:"taskId"`
	Created struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	} `json:"created"`
	Ack struct {
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
	} `json:"ack"`
	Outcome struct {
		Status            string         `json:"status"`
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Text              string         `json:"text"`
		Error             *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"outcome"`
	TerminalNotification map[string]any `json:"terminalNotification"`
	NotificationError    string         `json:"notificationError"`
	Final                map[string]any `json:"final"`
	Job                  map[string]any `json:"job"`
	Listed               bool           `json:"listed"`
	Notifications        []struct {
		Status       string `json:"status"`
		Subscription any    `json:"subscription"`
	} `json:"notifications"`
}

// taskGot is a task's life in a few words, for a table's want.
type taskGot struct {
	Created  string // the CreateTaskResult: resultType, status, and what is wrong with its shape
	Listen   string // subscriptions/listen: what was acknowledged, the first notification's status
	Notified string // the terminal notifications/tasks: status, and what it inlines
	Final    string // tasks/get at the end: resultType, status, and what it inlines
	Outcome  string // ext-tasks' settled outcome
	Job      string // get_job of the task: tool, state, task_status; and whether list_jobs lists it
}

func (r *taskReport) got() taskGot {
	var g taskGot
	c := r.Created.Result
	g.Created = fmt.Sprint(c["resultType"], " ", c["status"])
	for _, k := range []string{"taskId", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} {
		if _, ok := c[k]; !ok {
			g.Created += ", no " + k
		}
	}
	for _, k := range []string{"result", "error", "inputRequests"} {
		if _, ok := c[k]; ok {
			g.Created += ", has " + k
		}
	}
	if c["taskId"] != r.TaskID {
		g.Created += fmt.Sprintf(", taskId %v, not the handle's %s", c["taskId"], r.TaskID)
	}
	if r.Created.Error != nil {
		g.Created = fmt.Sprint("error ", r.Created.Error)
	}
	switch ids := r.Ack.Notifications.TaskIDs; {
	case slices.Equal(ids, []string{r.TaskID}):
		g.Listen = "acknowledged the task"
	default:
		g.Listen = fmt.Sprintf("acknowledged %q", ids)
	}
	if len(r.Notifications) > 0 {
		g.Listen += ", then " + r.Notifications[0].Status
	}
	for _, n := range r.Notifications {
		if n.Subscription == nil || n.Subscription == "" {
			g.Listen += ", a notification without its subscription ID"
			break
		}
	}
	if r.TerminalNotification == nil {
		g.Notified = "none: " + r.NotificationError
	} else {
		g.Notified = describeTask(r.TerminalNotification)
	}
	g.Final = fmt.Sprint(r.Final["resultType"], " ", describeTask(r.Final))
	g.Outcome = r.Outcome.Status
	if r.Outcome.IsError {
		g.Outcome += " with isError"
	}
	if r.Outcome.Error != nil {
		g.Outcome += fmt.Sprintf(" (%d)", r.Outcome.Error.Code)
	}
	if r.Job == nil {
		g.Job = "not found"
	} else {
		g.Job = fmt.Sprint(r.Job["tool"], " ", r.Job["state"], " ", r.Job["task_status"])
	}
	if !r.Listed {
		g.Job += ", not listed"
	}
	return g
}

// describeTask says a DetailedTask's status and what it inlines: a
// completed run_command's exit status and whether its output has "done",
// a failed task's error code.
func describeTask(task map[string]any) string {
	s := fmt.Sprint(task["status"])
	switch task["status"] {
	case "completed":
		res, _ := task["result"].(map[string]any)
		if res["isError"] == true {
			meta, _ := res["_meta"].(map[string]any)
			return s + fmt.Sprintf(", a tool error (isError, error_type %v)", meta["error_type"])
		}
		sc, _ := res["structuredContent"].(map[string]any)
		if sc == nil {
			return s + fmt.Sprintf(", no structuredContent in %v", res)
		}
		out, _ := sc["output"].([]any)
		s += fmt.Sprintf(", exit_status %v, output has done: %v", sc["exit_status"], slices.Contains(out, any("done")))
	case "failed":
		e, _ := task["error"].(map[string]any)
		if e == nil || e["message"] == "" {
			return s + ", no error"
		}
		s += fmt.Sprintf(", error %v", e["code"])
	}
	return s
}

// TestTasksExtension drives run_command as a task of the tasks extension
// of protocol 2026-07-28 with the official TypeScript SDK (ext-tasks'
// execution, a subscriptions/listen stream open throughout): to its end,
// cancelled, and with its tmux server killed under it.
func TestTasksExtension(t *testing.T) {
	tc := needTaskClient(t)
	bin := buildBinary(t)
	tests := []struct {
		name    string
		command string
		action  string // "cancel": tasks/cancel once the task is working; "kill": SIGKILL tmux then
		want    taskGot
	}{
		{"completes", "sleep 3; echo done; exit 3", "", taskGot{
			Created:  "task working",
			Listen:   "acknowledged the task, then working",
			Notified: "completed, exit_status 3, output has done: true",
			Final:    "complete completed, exit_status 3, output has done: true",
			Outcome:  "completed",
			Job:      "run_command exited completed",
		}},
		{"cancelled", "sleep 60", "cancel", taskGot{
			Created:  "task working",
			Listen:   "acknowledged the task, then working",
			Notified: "cancelled",
			Final:    "complete cancelled",
			Outcome:  "cancelled",
			Job:      "run_command exited cancelled",
		}},
		// A task is a job, lost when its server dies; the task fails
		// with the JSON-RPC error that says so (taskext: Control.Fail).
		{"tmux killed", "sleep 60", "kill", taskGot{
			Created:  "task working",
			Listen:   "acknowledged the task, then working",
			Notified: "failed, error -32603",
			Final:    "complete failed, error -32603",
			Outcome:  "failed (-32603)",
			Job:      "run_command lost failed",
		}},
	}
	for _, transport := range []string{"stdio", "http"} {
		for _, tt := range tests {
			t.Run(transport+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				ts := newTaskServer(t)
				cfg := connectTo(t, transport, bin, ts.tm)
				cfg["scenario"], cfg["pane"], cfg["shell"], cfg["timeout"], cfg["action"] = "task", ts.pane, tt.command, 120, tt.action
				var r taskReport
				tc.run(t, cfg, time.Minute, func(ev clientEvent) {
					if ev.Ev == "listening" && tt.action == "kill" {
						crash(t, ts.tm, ts.pid)
					}
				}, &r)
				if r.Era != "modern" || r.Version != "2026-07-28" || r.Kind != "task" {
					t.Fatalf("connected %s at %s, call answered as %q; want modern 2026-07-28 and a task", r.Era, r.Version, r.Kind)
				}
				want := tt.want
				if transport == "http" {
					// A caller of 2026-07-28 over HTTP has no session: its
					// tasks are found by ID, and listed to no one (taskext:
					// owner.go).
					want.Job += ", not listed"
				}
				if got := r.got(); got != want {
					t.Errorf("the task:\n got %+v\nwant %+v", got, want)
				}
				if tt.action == "cancel" {
					// The command stops with its task: no process is left
					// below the pane's shell.
					pid, err := strconv.Atoi(strings.TrimSpace(ts.tm.MustTmux("display-message", "-p", "-t", ts.pane, "#{pane_pid}")))
					if err != nil {
						t.Fatal(err)
					}
					deadline := time.Now().Add(10 * time.Second)
					for {
						procs, err := jobs.PaneProcesses(context.Background(), pid)
						if err != nil {
							t.Fatal(err)
						}
						if len(procs) == 0 {
							break
						}
						if time.Now().After(deadline) {
							t.Fatalf("pane %s still runs processes %v after its task was cancelled", ts.pane, procs)
						}
						time.Sleep(50 * time.Millisecond)
					}
				}
			})
		}
	}
}

// legacyReport is what the client saw of one task of protocol 2025-11-25.
type legacyReport struct {
	Version         string         `json:"version"`
	TasksCapability map[string]any `json:"tasksCapability"`
	TaskSupport     string         `json:"taskSupport"`
	TaskID          string         `json:"taskId"`
	Messages        []struct {
		Type          string `json:"type"`
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage"`
	} `json:"messages"`
	Outcome struct {
		Status            string         `json:"status"`
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Error             map[string]any `json:"error"`
	} `json:"outcome"`
}

// TestTasksLegacy drives run_command as a task of protocol 2025-11-25
// (mcp-go's tasks) with the TypeScript SDK 1.x's experimental tasks
// client: callToolStream creates the task and polls it to its result.
func TestTasksLegacy(t *testing.T) {
	tc := needTaskClient(t)
	bin := buildBinary(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			ts := newTaskServer(t)
			cfg := connectTo(t, transport, bin, ts.tm)
			cfg["scenario"], cfg["pane"], cfg["shell"] = "legacy", ts.pane, "sleep 3; echo done; exit 3"
			var r legacyReport
			tc.run(t, cfg, time.Minute, nil, &r)
			if r.Version != "2025-11-25" || r.TasksCapability == nil || r.TaskSupport != "optional" {
				t.Fatalf("SDK at %s, server tasks capability %v, run_command taskSupport %q; want 2025-11-25, one, optional",
					r.Version, r.TasksCapability, r.TaskSupport)
			}
			var got []string
			for _, m := range r.Messages {
				s := m.Type
				if m.Status != "" {
					s += " " + m.Status
				}
				if m.Status == "cancelled" || m.Status == "failed" {
					s += ": " + m.StatusMessage
				}
				if len(got) == 0 || got[len(got)-1] != s {
					got = append(got, s) // polls of the same status are one
				}
			}
			want := []string{"taskCreated working", "taskStatus working", "taskStatus completed", "result"}
			if !slices.Equal(got, want) {
				t.Errorf("callToolStream messages (repeats folded):\n got %q\nwant %q", got, want)
			}
			out, _ := r.Outcome.StructuredContent["output"].([]any)
			if r.Outcome.Status != "completed" || r.Outcome.IsError || r.Outcome.StructuredContent["exit_status"] != 3.0 ||
				!slices.Contains(out, any("done")) {
				t.Errorf("result: %+v, want completed with exit_status 3 and output [done]", r.Outcome)
			}
		})
	}
}

// TestTasksNotificationLatency measures, over stdio and HTTP, how long
// after a command's end its task's notifications/tasks (completed)
// reaches a subscribed client: the command writes `date +%s.%N` to a file
// as its last action, and the client notes the notification's arrival on
// the wall clock as its transport hands it the message. A report, not a
// test:
//
//	TMUX_MCP_MEASURE=1 go test -run TasksNotificationLatency -v ./cmd/tmux-mcp/
//
// TMUX_MCP_MEASURE_RUNS sets the commands per transport (20).
func TestTasksNotificationLatency(t *testing.T) {
	if os.Getenv("TMUX_MCP_MEASURE") != "1" {
		t.Skip("a measurement: TMUX_MCP_MEASURE=1 runs it")
	}
	runs := 20
	if s := os.Getenv("TMUX_MCP_MEASURE_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("TMUX_MCP_MEASURE_RUNS=%q: want a positive count", s)
		}
		runs = n
	}
	tc := needTaskClient(t)
	bin := buildBinary(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			ts := newTaskServer(t)
			cfg := connectTo(t, transport, bin, ts.tm)
			// sleep: past the half second after which a call becomes a
			// task, and the listen request that follows.
			cfg["scenario"], cfg["pane"], cfg["runs"], cfg["sleep"], cfg["stampDir"] = "latency", ts.pane, runs, 1, t.TempDir()
			var r struct {
				Runs []struct {
					Ended     float64 `json:"ended"`     // the command's stamp
					Completed float64 `json:"completed"` // the task's lastUpdatedAt (whole milliseconds)
					Notified  float64 `json:"notified"`  // the notification's arrival
				} `json:"runs"`
			}
			tc.run(t, cfg, time.Duration(runs)*5*time.Second+30*time.Second, nil, &r)
			if len(r.Runs) == 0 {
				t.Fatal("no runs")
			}
			var total, server, wire []float64
			for _, run := range r.Runs {
				total = append(total, run.Notified-run.Ended)
				server = append(server, run.Completed-run.Ended)
				wire = append(wire, run.Notified-run.Completed)
			}
			t.Logf("%s, %d runs: command end to notifications/tasks at the client: %s; of which to the task's end on the server (lastUpdatedAt, whole ms): %s; and from there to the client: %s",
				transport, len(total), summary(total), summary(server), summary(wire))
		})
	}
}

// summary is the p50, p95 and max of ms.
func summary(ms []float64) string {
	s := slices.Sorted(slices.Values(ms))
	return fmt.Sprintf("p50 %.1f ms, p95 %.1f ms, max %.1f ms", nearestRank(s, 50), nearestRank(s, 95), s[len(s)-1])
}

// nearestRank is the p-th percentile of sorted by the nearest-rank method.
func nearestRank(sorted []float64, p float64) float64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}
