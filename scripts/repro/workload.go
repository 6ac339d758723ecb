package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// pollRaw is the incident's poller: one `tmux capture-pane -p` subprocess
// per tick, one at a time, at hz, until ctx ends. target is a tmux target
// (a pane ID, or session:window.pane to survive restores).
func (r *run) pollRaw(ctx context.Context, target string, hz float64) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / hz))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		start := time.Now()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_, err := r.x.Run(cctx, "capture-pane", "-p", "-t", target)
		cancel()
		r.raw.add(start, tmux.ClassName(err))
	}
}

// pollSupervised is the same poller through tmux-mcp: one capture per
// tick over MCP.
func (r *run) pollSupervised(ctx context.Context, m *mcpProc, pane string, hz float64) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / hz))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		start := time.Now()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		_, class := m.capture(cctx, pane)
		cancel()
		r.sup.add(start, class)
	}
}

// agents runs n simulated agents until ctx ends: each creates a scratch
// window in its session, runs a command there, waits for its output,
// captures the pane and closes the window, over and over.
func (r *run) agents(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.agentLoop(ctx, fmt.Sprintf("agent-%d", i))
		}()
	}
	wg.Wait()
}

func (r *run) agentLoop(ctx context.Context, session string) {
	for k := 0; ctx.Err() == nil; k++ {
		if r.agentStep(ctx, session, k) != nil {
			// A failed step (a fault in progress) is recorded; back off a
			// little rather than spin.
			sleepCtx(ctx, 250*time.Millisecond) //nolint:errcheck // the loop checks ctx
			continue
		}
		sleepCtx(ctx, 100*time.Millisecond) //nolint:errcheck // the loop checks ctx
	}
}

// agentStep is one round of an agent. Every MCP call is recorded as an
// agent call.
func (r *run) agentStep(ctx context.Context, session string, k int) error {
	m := r.m
	call := func(name string, args map[string]any) (loadtest.ToolResult, error) {
		start := time.Now()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		defer cancel()
		res, err := m.tool(cctx, name, args)
		class := res.Class
		if err != nil && class == "" {
			class = "protocol"
		}
		r.agent.add(start, class)
		if err == nil && class != "" {
			err = fmt.Errorf("%s: %s", name, class)
		}
		return res, err
	}
	res, err := call("create_window", map[string]any{"session_name": session, "window_name": fmt.Sprintf("scratch-%d", k)})
	if err != nil {
		return err
	}
	var w struct {
		WindowID string `json:"window_id"`
		Pane     string `json:"active_pane_id"`
	}
	if err := json.Unmarshal(res.Raw, &w); err != nil || w.Pane == "" {
		return fmt.Errorf("repro: create_window result: %v", err)
	}
	defer r.closeWindow(ctx, w.WindowID)
	// Wait for the shell's prompt, as an agent must: keys typed before
	// the shell reads its terminal can be lost.
	for deadline := time.Now().Add(10 * time.Second); ; {
		start := time.Now()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		text, class := m.capture(cctx, w.Pane)
		cancel()
		r.agent.add(start, class)
		if class == "" && strings.TrimSpace(text) != "" {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("repro: no prompt in %s", w.Pane)
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
	token := fmt.Sprintf("%s-%d-done", session, k)
	// printf splits the token so that the echoed command line does not
	// contain it: only the command's output does. The sleep makes the
	// output come after wait_for_text has begun, as a build's would.
	cmd := fmt.Sprintf("sleep 0.3; printf '%%s-%%s\\n' %s-%d done", session, k)
	if m.tools["send_keys"] {
		if _, err := call("send_keys", map[string]any{"pane_id": w.Pane, "keys": cmd, "enter": true}); err != nil {
			return err
		}
	} else if err := r.typeLine(ctx, w.Pane, cmd); err != nil {
		r.agent.add(time.Now(), "send_keys")
		return err
	}
	if m.tools["wait_for_text"] {
		res, err := call("wait_for_text", map[string]any{"pane_id": w.Pane, "patterns": []string{token}, "timeout": 10})
		if err != nil {
			return err
		}
		var out struct {
			Found bool `json:"found"`
		}
		if json.Unmarshal(res.Raw, &out) != nil || !out.Found {
			r.agent.add(time.Now(), "wait_not_found")
			return fmt.Errorf("repro: %s never showed in %s", token, w.Pane)
		}
	} else if err := r.pollFor(ctx, w.Pane, token); err != nil {
		return err
	}
	if m.tools["run_command"] {
		if _, err := call("run_command", map[string]any{"pane_id": w.Pane, "command": "true", "timeout": 10}); err != nil {
			return err
		}
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	_, class := m.capture(cctx, w.Pane)
	cancel()
	r.agent.add(start, class)
	return nil
}

// pollFor polls a pane's content until text shows (the agent's own wait
// loop, as agents without wait_for_text do), for at most 10 s.
func (r *run) pollFor(ctx context.Context, pane, text string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		start := time.Now()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		got, class := r.m.capture(cctx, pane)
		cancel()
		r.agent.add(start, class)
		if class == "" && strings.Contains(got, text) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("repro: %s never showed in %s", text, pane)
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// closeWindow removes an agent's scratch window: kill_window when the
// binary has it, else a raw kill-window. A failure is not recorded: the
// window may have gone with a fault.
func (r *run) closeWindow(ctx context.Context, window string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if r.m.tools["kill_window"] {
		r.m.tool(cctx, "kill_window", map[string]any{"window_id": window}) //nolint:errcheck // best effort
		return
	}
	r.x.Run(cctx, "kill-window", "-t", window) //nolint:errcheck // best effort
}
