package e2etest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// PaneConns is how many MCP clients, one after the other, may connect to
// the binary a pane runs.
const PaneConns = 4

// PaneBinary runs the built binary inside a new pane (session "agent") of
// tm's server, supervising that same server at the destructive tier, with
// the extra environment (KEY=VALUE, no quotes or white space), and
// returns the pane and a function that connects an MCP client to it (h,
// when not nil, answers elicitations; legacy: the 2025-11-25 handshake).
// The pane's script runs the binary up to PaneConns times, each over its
// own pair of fifos, as a grandchild of the pane's shell (as an agent's
// MCP server is). With keepEnv false, TMUX and TMUX_PANE are removed from
// its environment: only the process ancestry can tell it where it runs.
func PaneBinary(t *testing.T, tm *tmuxtest.Server, bin string, keepEnv bool, extra ...string) (string, func(h client.ElicitationHandler, legacy bool) *client.Client) {
	t.Helper()
	dir := t.TempDir()
	for i := 1; i <= PaneConns; i++ {
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
`, dir, PaneConns, env, bin)
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	pane := tm.MustTmux("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "agent", "sh "+script)
	// The binaries the pane runs write into dir (the journal, stderr):
	// they end before it is removed, not when the server's end hangs the
	// pane up.
	pid, err := strconv.Atoi(tm.MustTmux("display-message", "-p", "-t", pane, "#{pane_pid}"))
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.Reap(t, pid)
	n := 0
	connect := func(h client.ElicitationHandler, legacy bool) *client.Client {
		t.Helper()
		n++
		if n > PaneConns {
			t.Fatalf("more than %d connections", PaneConns)
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
