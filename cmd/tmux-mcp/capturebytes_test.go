package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// TestCaptureResultBytes measures what a client receives for capture_pane
// of a 40-line pane: the bytes of the JSON-RPC result as the binary writes
// it on stdout, logged (go test -v -run TestCaptureResultBytes
// ./cmd/tmux-mcp). It checks what each kind of client reads: a client
// that reads the text block gets the screen as plain text, one that reads
// the structured content (Claude Code, Codex) gets it under "result", and
// neither gets it twice.
func TestCaptureResultBytes(t *testing.T) {
	bin := buildBinary(t)
	tm := tmuxtest.New(t)
	tm.Start("main")
	tm.MustTmux("resize-window", "-t", "=main:", "-x", "80", "-y", "40")
	pane := tm.MustTmux("display-message", "-p", "-t", "=main:", "#{pane_id}")
	tm.MustTmux("respawn-pane", "-k", "-t", pane,
		`seq -f 'line %02g of forty, as long as a line of ordinary command output' 1 40; exec sleep 600`)
	tmuxtest.WaitFor(t, 10*time.Second, "40 lines on the pane", func() bool {
		return strings.Contains(tm.MustTmux("capture-pane", "-p", "-t", pane), "line 40 of forty")
	})
	screen := strings.TrimRight(tm.MustTmux("capture-pane", "-p", "-t", pane), "\n")

	cmd := exec.Command(bin, "serve")
	cmd.Env = binaryEnv(tm.Socket)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	lines := bufio.NewReader(stdout)
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// reply returns the raw result of the response with id.
	reply := func(id int) json.RawMessage {
		t.Helper()
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading the reply %d: %v", id, err)
			}
			var r struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &r) != nil || r.ID == nil || *r.ID != id {
				continue // a notification
			}
			if r.Error != nil {
				t.Fatalf("reply %d: error %s", id, r.Error)
			}
			return r.Result
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bytes","version":"0"}}}`)
	reply(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"capture_pane","arguments":{"pane_id":%q}}}`, pane))
	raw := reply(2)
	t.Logf("capture_pane of a 40-line pane (%d bytes of text): JSON-RPC result %d bytes", len(screen), len(raw))

	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Structured map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range res.Content {
		texts = append(texts, c.Text)
	}
	if len(texts) != 1 || texts[0] != screen {
		t.Errorf("text blocks = %q, want the screen once:\n%s", texts, screen)
	}
	if got, _ := res.Structured["result"].(string); got != screen {
		t.Errorf("structured result = %q, want the screen", got)
	}
	for k, v := range res.Structured {
		if s, ok := v.(string); ok && k != "result" && strings.Contains(s, "line 01 of forty") {
			t.Errorf("structured content carries the screen again in %q", k)
		}
	}
}
