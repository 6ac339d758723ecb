package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/diagnostics"
	"github.com/tmux-mcp/tmux-mcp/supervisor"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// realDiagnoser runs package diagnostics, as cmd/tmux-mcp's does, and
// records the queries it got.
type realDiagnoser struct {
	sup *supervisor.Supervisor
	mu  sync.Mutex
	got []DiagnoseQuery
}

func (d *realDiagnoser) Diagnose(ctx context.Context, q DiagnoseQuery) (DiagnoseResult, error) {
	d.mu.Lock()
	d.got = append(d.got, q)
	d.mu.Unlock()
	o := diagnostics.Options{Since: q.Since, Health: healthOf{d.sup}, Self: true}
	if q.Socket != (tmux.Socket{}) {
		o.Sockets = []tmux.Socket{q.Socket}
	}
	o.All = q.All
	r, err := diagnostics.Run(ctx, o)
	if err != nil {
		return DiagnoseResult{}, err
	}
	b, err := json.Marshal(r)
	return DiagnoseResult{Report: b, Markdown: r.Markdown()}, err
}

type healthOf struct{ sup *supervisor.Supervisor }

func (h healthOf) Health(path string) (supervisor.Health, bool) {
	for _, s := range h.sup.Servers() {
		if s.Socket().ResolvedPath() == path {
			return s.Health(), true
		}
	}
	return supervisor.Health{}, false
}

func TestDiagnoseTool(t *testing.T) {
	d := &realDiagnoser{}
	e := newEnv(t, Readonly, func(deps *Deps) { deps.Diagnoser = d })
	d.sup = e.sup
	// The supervisor adopts the server first, so its figures are in the
	// report.
	e.ok("list_sessions", nil, nil)

	var report struct {
		SchemaVersion int    `json:"schema_version"`
		Status        string `json:"status"`
		Servers       []struct {
			Path   string `json:"path"`
			State  string `json:"state"`
			Checks []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"checks"`
		} `json:"servers"`
		System []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"system"`
	}
	res := e.ok("diagnose", map[string]any{"since": "2h"}, &report)
	if report.SchemaVersion != diagnostics.SchemaVersion || len(report.Servers) != 1 {
		t.Fatalf("report = %+v, want schema %d and one server", report, diagnostics.SchemaVersion)
	}
	sr := report.Servers[0]
	if sr.Path != e.tm.Socket || sr.State != "answering" {
		t.Errorf("server = %s %q, want %s answering", sr.Path, sr.State, e.tm.Socket)
	}
	statusOf := func(id string) string {
		for _, c := range sr.Checks {
			if c.ID == id {
				return c.Status
			}
		}
		for _, c := range report.System {
			if c.ID == id {
				return c.Status
			}
		}
		return ""
	}
	if got := statusOf("supervisor"); got != "ok" {
		t.Errorf("supervisor check = %q, want ok (the tool runs inside tmux-mcp)", got)
	}
	if got := statusOf("tmux_mcp.self"); got != "ok" {
		t.Errorf("tmux_mcp.self check = %q, want ok", got)
	}
	if md := text(res); !strings.HasPrefix(md, "# tmux diagnosis") || !strings.Contains(md, "## Likely causes") {
		t.Errorf("text content is not the Markdown report:\n%s", md)
	}
	if len(d.got) != 1 || d.got[0].Socket != (tmux.Socket{Path: e.tm.Socket}) || d.got[0].Since != 2*time.Hour || d.got[0].All {
		t.Errorf("queries = %+v, want the default server over 2h", d.got)
	}

	e.fails("diagnose", map[string]any{"since": "soon"}, "argument since")
	e.fails("diagnose", map[string]any{"socket_name": "a/b"}, "argument socket_name")
}

func TestDiagnoseToolUnavailable(t *testing.T) {
	e := newEnv(t, Readonly)
	e.fails("diagnose", nil, "not available", "tmux-mcp diagnose")
}
