package hosts

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tmux-mcp/tmux-mcp/shellquote"
)

// sshArgs is the ssh command line that runs remote on the host.
func (l *Link) sshArgs(remote string) []string {
	args := append([]string{}, l.o.SSH[1:]...)
	args = append(args, "-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3")
	if l.t.Port != 0 {
		args = append(args, "-p", strconv.Itoa(l.t.Port))
	}
	if l.t.User != "" {
		args = append(args, "-l", l.t.User)
	}
	return append(args, l.t.Host, remote)
}

// remoteCommand is the shell command line the host runs: the target's own
// command, or tmux-mcp from the PATH or from the install cache, checked
// before it runs (cache.go). The user's login shell parses it first (sh,
// bash, zsh, fish, tcsh...): shellquote's words read the same in each,
// and neither the script nor tmux-mcp's arguments hold what a csh would
// not take ("!", newline).
func (l *Link) remoteCommand() string {
	args := make([]string, len(l.o.RemoteArgs))
	for i, a := range l.o.RemoteArgs {
		args[i] = shellquote.Quote(a)
	}
	if l.t.Command != "" {
		return l.t.Command + " " + strings.Join(args, " ")
	}
	sum, _ := l.o.self.sha256() // unknown: the cache is refused
	return "sh -c " + shellquote.Quote(startScript(l.o.Install, sum)) + " tmux-mcp " + strings.Join(args, " ")
}

// connect starts ssh and initializes MCP over it, installing tmux-mcp
// first when it is missing or another version and that is allowed.
func (l *Link) connect() (*conn, error) {
	c, ver, err := l.dial()
	if err != nil && l.o.Install && (errors.Is(err, errNotInstalled) || errors.Is(err, errOtherBuild)) {
		if ierr := l.install(); ierr != nil {
			return nil, fmt.Errorf("%w; installing it: %w", err, ierr)
		}
		c, ver, err = l.dial()
	} else if err == nil && l.o.Install && l.o.Version != "" && ver != l.o.Version {
		c.end(errors.New("replaced by this version"))
		<-c.done
		if ierr := l.install(); ierr != nil {
			return nil, fmt.Errorf("remote tmux-mcp %s, this one %s; installing this one: %w", ver, l.o.Version, ierr)
		}
		c, ver, err = l.dial()
	}
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.st.RemoteVersion = ver
	l.mu.Unlock()
	if err := l.ping(c); err != nil {
		c.end(fmt.Errorf("first ping: %w", err))
		<-c.done
		return nil, c.err
	}
	return c, nil
}

var errNotInstalled = errors.New("tmux-mcp is not installed there")

// dial runs ssh with the remote tmux-mcp and initializes MCP.
func (l *Link) dial() (*conn, string, error) {
	cmd := exec.Command(l.o.SSH[0], l.sshArgs(l.remoteCommand())...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	c := &conn{cmd: cmd, done: make(chan struct{}), stderr: &tail{max: 4096}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("start %s: %w", l.o.SSH[0], err)
	}
	go func() {
		werr := cmd.Wait()
		c.setErr(exitError(werr, c.stderr.String()))
		close(c.done)
	}()
	tr := transport.NewIO(stdout, stdin, nil)
	c.c = client.NewClient(tr)
	c.c.OnNotification(l.onNotification)
	ctx, cancel := context.WithTimeout(context.Background(), l.o.StartTimeout)
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := c.c.Start(ctx); err != nil {
		c.end(err)
		<-c.done
		return nil, "", c.err
	}
	var init mcp.InitializeRequest
	// The session revision: a connection that stays open, whose ping is
	// a real round trip (2026-07-28 dropped ping; its stateless core has
	// no session to watch).
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "tmux-mcp-hop", Version: l.o.Version}
	res, err := c.c.Initialize(ctx, init)
	if err != nil {
		// ssh's exit says more than a closed stream: let it come first.
		select {
		case <-c.done:
		case <-time.After(2 * time.Second):
			c.end(fmt.Errorf("initialize: %w", err))
			<-c.done
		}
		if r := refusal(c.err); r != nil {
			return nil, "", r
		}
		if ee := c.err; ee != nil && strings.Contains(ee.Error(), "exit status 127") {
			return nil, "", fmt.Errorf("%w: %w", errNotInstalled, ee)
		}
		return nil, "", c.err
	}
	return c, res.ServerInfo.Version, nil
}

// end stops the connection: ssh is killed (its remote side sees the
// connection close, and the remote tmux-mcp its stdin end).
func (c *conn) end(why error) {
	c.setErr(why)
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
	_ = c.c.Close()
}

// exitError says how ssh ended, with the end of what it printed.
func exitError(err error, stderr string) error {
	msg := "ssh exited"
	if err != nil {
		msg = "ssh: " + err.Error()
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		// The remote tmux-mcp's own informational log says nothing of
		// why the connection ended.
		if l != "" && !strings.Contains(l, " level=INFO ") && !strings.Contains(l, " level=DEBUG ") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 0 {
		if len(lines) > 3 {
			lines = lines[len(lines)-3:]
		}
		msg += ": " + strings.Join(lines, " / ")
	}
	return errors.New(msg)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
