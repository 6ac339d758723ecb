package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/taskext"
)

// fileSpan is a span of the trace file (the SDK's stdout exporter, one
// JSON object a line).
type fileSpan struct {
	Name        string
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ TraceID, SpanID string }
	StartTime   time.Time
	EndTime     time.Time
	Attributes  []struct {
		Key   string
		Value struct{ Value any }
	}
	Status struct{ Code string }
	Events []struct{ Name string }
	Links  []struct {
		SpanContext struct{ TraceID, SpanID string }
	}
}

func (s fileSpan) attr(key string) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			return spanValue(a.Value.Value)
		}
	}
	return ""
}

func spanValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// readSpans reads the trace file at path.
func readSpans(t *testing.T, path string) []fileSpan {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var spans []fileSpan
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var s fileSpan
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("trace file line: %v: %s", err, sc.Text())
		}
		spans = append(spans, s)
	}
	return spans
}

// logLine is tmux-mcp's record of a tool call, from its stderr.
var logLine = regexp.MustCompile(`^time=(\S+) .*msg="tool call" tool=(\S+) duration_ms=([0-9.]+) task_id=(\S+) outcome=(\S+)(?: error_type=(\S+))?`)

// TestTasksTraced: a call that becomes a task is recorded to the end of
// its work, with its outcome, by its span (in the trace file) and by its
// log record, and the requests about the task (tasks/get, tasks/cancel)
// have spans of their own under the task's: a wait met by text that
// appears later (ok), a wait cancelled (cancelled), and a wait that runs
// out (a tool error of class timeout).
func TestTasksTraced(t *testing.T) {
	bin := buildBinary(t)
	ts := newTaskServer(t)
	path := filepath.Join(t.TempDir(), "spans.jsonl")
	c := startTaskClient(t, bin, binaryEnv(ts.tm.Socket, "TMUX_MCP_TRACE_FILE="+path, "TMUX_MCP_LOG_LEVEL=debug"))
	// The work's least duration is reckoned on the test's monotonic clock
	// and compared with durations only: a span's end is its start plus
	// the monotonic time since (the SDK's), so a span end set beside a
	// wall time read here is off by any step of the wall clock meanwhile
	// (a fresh machine's clock was seen to step by a few ms, and a correct
	// span "ended" 1 ms before the cancel it waited for). A call answered
	// as a task was answered at least the task budget after its span
	// began, so its span began at least that long before the answer came.
	answered := map[string]time.Time{} // when each call's task handle came
	task := func(tool string, args map[string]any) string {
		t.Helper()
		r := c.call("tools/call", map[string]any{"name": tool, "arguments": args})
		id, _ := r["taskId"].(string)
		if r["resultType"] != "task" || id == "" {
			t.Fatalf("%s: got %v, want a task (it waits past half a second)", tool, r)
		}
		answered[id] = time.Now()
		return id
	}
	// since is the least time the work of task id has run by at: the
	// budget before its answer, and the time from the answer to at.
	since := func(id string, at time.Time) time.Duration { return taskext.DefaultBudget + at.Sub(answered[id]) }

	// Met: the text appears only once the call is a task (printf's
	// command line does not hold it).
	met := task("wait_for_text", map[string]any{"pane_id": ts.pane, "patterns": []string{"MARK"}, "timeout": 30})
	printed := time.Now()
	ts.tm.MustTmux("send-keys", "-t", ts.pane, "printf 'M%sK\\n' AR", "Enter")
	if r := c.awaitTask(met); r["status"] != "completed" {
		t.Fatalf("wait_for_text task: %v, want completed", r)
	}
	cancelled := task("wait_for_text", map[string]any{"pane_id": ts.pane, "patterns": []string{"NEVER"}, "timeout": 30})
	cancelAt := time.Now()
	c.call("tasks/cancel", map[string]any{"taskId": cancelled})
	if r := c.awaitTask(cancelled); r["status"] != "cancelled" {
		t.Fatalf("cancelled task: %v, want cancelled", r)
	}
	const wait = time.Second
	timedOut := task("wait_for_channel", map[string]any{"channel": "never-signalled", "timeout": wait.Seconds()})
	if r := c.awaitTask(timedOut); r["status"] != "completed" {
		t.Fatalf("wait_for_channel task: %v, want completed (with a tool error)", r)
	}
	stderr := c.cmd.Stderr.(*syncBuffer)
	c.close() // tmux-mcp exits and writes the last spans

	spans := readSpans(t, path)
	tests := []struct {
		id, name               string
		nth                    int           // the call's span is the nth of its name
		atLeast                time.Duration // the work cannot last less
		status, errType, class string
		log                    string // outcome and error_type of the log record
	}{
		{met, "tools/call wait_for_text", 0, since(met, printed), "Unset", "", "", "ok"},
		{cancelled, "tools/call wait_for_text", 1, since(cancelled, cancelAt), "Error", "cancelled", "", "cancelled"},
		{timedOut, "tools/call wait_for_channel", 0, wait, "Error", "tool_error", "timeout", "error timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+tt.log, func(t *testing.T) {
			// The call's span: the nth of its name, as the calls were made.
			var named []fileSpan
			for _, s := range spans {
				if s.Name == tt.name {
					named = append(named, s)
				}
			}
			slices.SortFunc(named, func(a, b fileSpan) int { return a.StartTime.Compare(b.StartTime) })
			if len(named) <= tt.nth {
				t.Fatalf("%d spans %q in %d spans, want %d", len(named), tt.name, len(spans), tt.nth+1)
			}
			call := &named[tt.nth]
			if got := call.attr("tmux.task.id"); got != tt.id {
				t.Errorf("span's tmux.task.id %q, want the task's %s", got, tt.id)
			}
			if d := call.EndTime.Sub(call.StartTime); d < tt.atLeast {
				t.Errorf("span %s..%s (%v) ends before its work could (it ran at least %v)", call.StartTime, call.EndTime, d, tt.atLeast)
			}
			status := call.attr("tmux.task.status")
			got := []string{call.Status.Code, call.attr("error.type"), call.attr("tmux.error_class")}
			if want := []string{tt.status, tt.errType, tt.class}; strings.Join(got, "|") != strings.Join(want, "|") || status == "" {
				t.Errorf("span status, error.type, tmux.error_class: %q (task status %q), want %q", got, status, want)
			}
			if !slices.ContainsFunc(call.Events, func(e struct{ Name string }) bool { return e.Name == "task created" }) {
				t.Errorf("span events %v, want one when the call became a task", call.Events)
			}
			// The requests about the task: spans of their own, under it.
			methods := map[string]int{}
			for _, s := range spans {
				if s.attr("tmux.task.id") == tt.id && strings.HasPrefix(s.Name, "tasks/") {
					if s.Parent.SpanID != call.SpanContext.SpanID || s.SpanContext.TraceID != call.SpanContext.TraceID {
						t.Errorf("span %s of the task: parent %s in trace %s, want the call's span %s in %s", s.Name,
							s.Parent.SpanID, s.SpanContext.TraceID, call.SpanContext.SpanID, call.SpanContext.TraceID)
					}
					methods[s.Name]++
				}
			}
			if methods["tasks/get"] == 0 || tt.status == "cancelled" && methods["tasks/cancel"] != 1 {
				t.Errorf("spans of the task's requests: %v, want tasks/get (and tasks/cancel when cancelled)", methods)
			}
			// The log record: written at the work's end, counting it all,
			// with its outcome.
			var rec []string
			for _, l := range strings.Split(stderr.String(), "\n") {
				if m := logLine.FindStringSubmatch(l); m != nil && m[4] == tt.id {
					rec = m
				}
			}
			if rec == nil {
				t.Fatalf("no log record of task %s in:\n%s", tt.id, stderr)
			}
			ms, _ := strconv.ParseFloat(rec[3], 64)
			if d := time.Duration(ms * float64(time.Millisecond)); d < tt.atLeast.Truncate(time.Millisecond) || d > call.EndTime.Sub(call.StartTime) {
				t.Errorf("log record of %v: want it written once the work ended, of the work's time (at least %v, within its span's %v)",
					d, tt.atLeast, call.EndTime.Sub(call.StartTime))
			}
			if got := strings.TrimSpace(rec[5] + " " + rec[6]); got != tt.log {
				t.Errorf("log record's outcome: %q, want %q", got, tt.log)
			}
		})
	}
}
