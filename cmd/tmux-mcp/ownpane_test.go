package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// paneConns is how many MCP clients, one after the other, may connect to
// the binary a pane runs.
const paneConns = 4

// paneBinary runs the built binary inside a new pane (session "agent") of
// tm's server, supervising that same server at the destructive tier, and
// returns the pane and a function that connects an MCP client to it.
// The pane's script runs the binary up to paneConns times, each over its
// own pair of fifos, as a grandchild of the pane's shell (as an agent's
// MCP server is). With keepEnv false, TMUX and TMUX_PANE are removed from
// its environment: only the process ancestry can tell it where it runs.
func paneBinary(t *testing.T, tm *tmuxtest.Server, bin string, keepEnv bool) (string, func(h client.ElicitationHandler, legacy bool) *client.Client) {
	t.Helper()
	return paneBinaryEnv(t, tm, bin, keepEnv)
}

// paneBinaryEnv is paneBinary with more environment for the binary
// (KEY=VALUE, no quotes or white space).
func paneBinaryEnv(t *testing.T, tm *tmuxtest.Server, bin string, keepEnv bool, extra ...string) (string, func(h client.ElicitationHandler, legacy bool) *client.Client) {
	t.Helper()
	dir := t.TempDir()
	for i := 1; i <= paneConns; i++ {
		for _, n := range []string{"in", "out"} {
			if err := syscall.Mkfifo(filepath.Join(dir, n+"."+strconv.Itoa(i)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := "env"
	if !keepEnv {
		env += " -u TMUX -u TMUX_PANE"
	}
	for _, kv := range append([]string{"TMUX_MCP_SOCKET_PATH=" + tm.Socket, "TMUX_MCP_TMUX_CONFIG=/dev/null",
		"TMUX_MCP_JOURNAL=" + filepath.Join(dir, "journal.db"), "TMUX_MCP_SAFETY=destructive",
		"TMUX_MCP_TMUX_BIN=" + tmuxtest.Binary(t)}, extra...) {
		env += " '" + kv + "'"
	}
	script := filepath.Join(dir, "agent.sh")
	body := fmt.Sprintf(`d='%s'
i=0
while [ $i -lt %d ]; do
	i=$((i+1))
	sh -c '%s "$0" serve; exit $?' '%s' <"$d/in.$i" >"$d/out.$i" 2>>"$d/stderr"
done
exec cat
`, dir, paneConns, env, bin)
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	pane := tm.MustTmux("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "agent", "sh "+script)
	n := 0
	connect := func(h client.ElicitationHandler, legacy bool) *client.Client {
		t.Helper()
		n++
		if n > paneConns {
			t.Fatalf("more than %d connections", paneConns)
		}
		c := connectFifos(t, filepath.Join(dir, "in."+strconv.Itoa(n)), filepath.Join(dir, "out."+strconv.Itoa(n)), h, legacy)
		t.Cleanup(func() {
			if t.Failed() {
				b, _ := os.ReadFile(filepath.Join(dir, "stderr"))
				t.Logf("tmux-mcp stderr:\n%s", b)
			}
		})
		return c
	}
	return pane, connect
}

// connectFifos connects an MCP client to a binary that reads in and
// writes out, and initializes it: with the 2025-11-25 handshake if legacy,
// else as mcp-go's client prefers. h, if set, answers elicitations (and
// the client then declares the capability).
func connectFifos(t *testing.T, in, out string, h client.ElicitationHandler, legacy bool) *client.Client {
	t.Helper()
	// The pane's shell opens in, then out: the write end of in opens once
	// the shell has opened its read end.
	var w *os.File
	tmuxtest.WaitFor(t, 10*time.Second, "tmux-mcp in the pane to open "+in, func() bool {
		f, err := os.OpenFile(in, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			w = f
		} else if !errors.Is(err, syscall.ENXIO) {
			t.Fatal(err)
		}
		return err == nil
	})
	opened := make(chan *os.File, 1)
	go func() {
		r, err := os.Open(out)
		if err != nil {
			t.Error(err)
		}
		opened <- r
	}()
	var r *os.File
	select {
	case r = <-opened:
	case <-time.After(10 * time.Second):
		// Let the blocked open return before failing.
		if f, err := os.OpenFile(out, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		(<-opened).Close()
		w.Close()
		t.Fatalf("tmux-mcp in the pane did not open %s", out)
	}
	var opts []client.ClientOption
	if h != nil {
		opts = append(opts, client.WithElicitationHandler(h))
	}
	c := client.NewClient(transport.NewIO(r, w, io.NopCloser(strings.NewReader(""))), opts...)
	t.Cleanup(func() {
		c.Close()
		r.Close()
	})
	// The transport answers the server's requests (elicitation/create)
	// in the context it was started with.
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if legacy {
		init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	}
	init.Params.ClientInfo = mcp.Implementation{Name: "in-pane", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if got := c.ProtocolVersion(); mcp.IsModernProtocol(got) == legacy {
		t.Fatalf("protocol %s, want legacy %v", got, legacy)
	}
	return c
}

// answer answers every elicitation with one action and keeps the
// questions.
type answer struct {
	action mcp.ElicitationResponseAction
	mu     sync.Mutex
	asked  []string
}

func (a *answer) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req.Params.Message)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: a.action}}, nil
}

func (a *answer) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

// marked returns the id field and is_caller of every row of a listing
// ("null" when is_caller is null).
func marked(t *testing.T, c *client.Client, tool, idField string) map[string]string {
	t.Helper()
	res := callTool(t, c, tool, nil)
	var out struct {
		Result []map[string]any `json:"result"`
	}
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		raw, _ = json.Marshal(res.StructuredContent)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	got := map[string]string{}
	for _, r := range out.Result {
		got[fmt.Sprint(r[idField])] = fmt.Sprint(r["is_caller"])
	}
	return got
}

// checkMarks requires a listing to mark exactly want as the caller.
func checkMarks(t *testing.T, c *client.Client, tool, idField, want string) {
	t.Helper()
	got := marked(t, c, tool, idField)
	if len(got) < 2 {
		t.Errorf("%s = %v, want at least two rows", tool, got)
	}
	for id, b := range got {
		if w := strconv.FormatBool(id == want); b != w {
			t.Errorf("%s: %s is_caller = %s, want %s", tool, id, b, w)
		}
	}
}

// TestOwnPaneInsideTmux runs the binary inside a pane of a test server
// it supervises, found both with TMUX_PANE in its environment and without
// (by its process ancestry). Listings mark the pane, its window and its
// session; typing into, respawning and killing the pane, and killing its
// window, session and server, are refused; a client with elicitation is
// asked, and send_keys goes ahead when the user accepts and not when the
// user declines (the first client on protocol 2026-07-28, retrying with
// the answer; the second on 2025-11-25, sent elicitation/create).
func TestOwnPaneInsideTmux(t *testing.T) {
	bin := buildBinary(t)
	for _, keepEnv := range []bool{true, false} {
		t.Run(map[bool]string{true: "TMUX_PANE", false: "ancestry"}[keepEnv], func(t *testing.T) {
			tm := tmuxtest.New(t)
			tm.Start("main")
			tm.MustTmux("new-window", "-d", "-t", "=main:")
			pane, connect := paneBinary(t, tm, bin, keepEnv)
			win := tm.MustTmux("display-message", "-p", "-t", pane, "#{window_id}")
			sess := tm.MustTmux("display-message", "-p", "-t", pane, "#{session_id}")
			pid := tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_pid}")

			c := connect(nil, false)
			checkMarks(t, c, "list_panes", "pane_id", pane)
			checkMarks(t, c, "list_windows", "window_id", win)
			checkMarks(t, c, "list_sessions", "session_id", sess)
			snap := callTool(t, c, "snapshot_pane", map[string]any{"pane_id": pane})
			if b, _ := json.Marshal(snap.StructuredContent); !strings.Contains(string(b), `"is_caller":true`) {
				t.Errorf("snapshot_pane(%s) = %s, want is_caller true", pane, b)
			}
			for _, tt := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"send_keys", map[string]any{"pane_id": pane, "keys": "refused"}, "Refusing to type into the pane running this MCP server"},
				{"respawn_pane", map[string]any{"pane_id": pane}, "Refusing to respawn the pane running this MCP server."},
				{"kill_pane", map[string]any{"pane_id": pane}, "Refusing to kill the pane running this MCP server."},
				{"clear_pane", map[string]any{"pane_id": pane}, "Refusing to clear the pane running this MCP server"},
				{"enter_copy_mode", map[string]any{"pane_id": pane}, "Refusing to change copy mode of the pane running this MCP server"},
				{"kill_window", map[string]any{"window_id": win}, "Refusing to kill the window containing this MCP server's pane."},
				{"kill_session", map[string]any{"session_id": sess}, "Refusing to kill the session containing this MCP server's pane."},
				{"kill_server", nil, "Refusing to kill the tmux server while this MCP server is running inside it."},
			} {
				toolFails(t, c, tt.tool, tt.args, tt.want, "[refused]", "elicitation", "--allow-own-pane")
			}
			if got := tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_pid}"); got != pid {
				t.Errorf("pane %s's process is %s after the refusals, want %s", pane, got, pid)
			}
			if got := tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_in_mode}"); got != "0" {
				t.Errorf("pane %s in a mode (%s) after enter_copy_mode was refused", pane, got)
			}
			// Leaving copy mode is refused too when the person scrolled
			// the pane: it would end their scrolling.
			tm.MustTmux("copy-mode", "-t", pane)
			toolFails(t, c, "exit_copy_mode", map[string]any{"pane_id": pane},
				"Refusing to change copy mode of the pane running this MCP server", "[refused]")
			if got := tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_in_mode}"); got != "1" {
				t.Errorf("pane %s left copy mode (in mode %s) though exit_copy_mode was refused", pane, got)
			}
			tm.MustTmux("send-keys", "-X", "-t", pane, "cancel")

			c.Close() // the binary exits; the pane's script starts the next

			yes := &answer{action: mcp.ElicitationResponseActionAccept}
			cy := connect(yes, false)
			callTool(t, cy, "send_keys", map[string]any{"pane_id": pane, "keys": "typed-after-yes", "enter": false})
			tmuxtest.WaitFor(t, 10*time.Second, "the accepted keys on the pane", func() bool {
				return strings.Contains(tm.MustTmux("capture-pane", "-p", "-t", pane), "typed-after-yes")
			})
			if q := yes.questions(); len(q) != 1 || !strings.Contains(q[0], "would type into pane "+pane) {
				t.Errorf("questions = %q, want one about typing into %s", q, pane)
			}

			cy.Close()

			no := &answer{action: mcp.ElicitationResponseActionDecline}
			cn := connect(no, true)
			toolFails(t, cn, "send_keys", map[string]any{"pane_id": pane, "keys": "typed-after-no", "enter": false},
				"Refusing to type into the pane running this MCP server", "The user declined when asked.")
			if q := no.questions(); len(q) != 1 {
				t.Errorf("questions = %q, want one", q)
			}
			// The refusal came before anything was sent: a capture now
			// would show keys typed before it.
			if s := tm.MustTmux("capture-pane", "-p", "-t", pane); strings.Contains(s, "typed-after-no") || strings.Contains(s, "refused") {
				t.Errorf("pane %s shows refused keys:\n%s", pane, s)
			}
		})
	}

	// TMUX and TMUX_PANE alone, the binary not in the pane: the pane they
	// name is the caller's.
	t.Run("environment only", func(t *testing.T) {
		tm := tmuxtest.New(t)
		tm.Start("main")
		tm.MustTmux("new-session", "-d", "-s", "other")
		pane := tm.MustTmux("display-message", "-p", "-t", "=main:", "#{pane_id}")
		c, _, _ := startStdio(t, bin, binaryEnv(tm.Socket, "TMUX_MCP_SAFETY=destructive",
			"TMUX="+tm.Socket+","+strconv.Itoa(tm.PID())+",0", "TMUX_PANE="+pane))
		t.Cleanup(func() { c.Close() })
		checkMarks(t, c, "list_panes", "pane_id", pane)
		checkMarks(t, c, "list_sessions", "session_name", "main")
		toolFails(t, c, "kill_session", map[string]any{"session_name": "main"}, "Refusing to kill the session containing this MCP server's pane.")
		callTool(t, c, "kill_session", map[string]any{"session_name": "other"})
	})
}
