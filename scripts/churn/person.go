package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/scripts/internal/loadtest"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// person is someone at a terminal beside the agents, using tmux itself
// (the tmux binary, never tmux-mcp): one thing at a time with short
// random pauses. Now and then it attaches a control client (`tmux -C
// attach-session`, as iTerm2's tmux integration does), reads its output
// a short while and detaches; now and then an ordinary client in a PTY;
// in between it creates, renames and kills sessions of its own, selects
// panes (anybody's), enters and leaves copy mode, sets and deletes paste
// buffers.
type person struct {
	w    *world
	pace pacing
	rng  *rand.Rand
	rec  *recorder

	control bool // attach control clients (tmux -C)
	pty     bool // attach ordinary clients in a PTY

	own []string // the person's sessions, by name
	seq int

	mu       sync.Mutex
	attaches []Attach // control clients attached, in order
	ptys     []Attach // PTY clients attached
	ptySkip  string   // why PTY clients were not attached
}

// Attach is one client the person attached.
type Attach struct {
	N       int     `json:"n"`
	Session string  `json:"session"`
	PID     int     `json:"pid"`
	Start   float64 `json:"start_s"`
	// FirstOutput is when the client's first output arrived (for a
	// control client: the %begin of the reply to its attach, the end of
	// its handshake), seconds since the harness started; 0 if none came.
	FirstOutput float64 `json:"first_output_s"`
	End         float64 `json:"end_s"`
	Lines       int     `json:"lines"`  // lines of output read
	Ending      string  `json:"ending"` // how it ended: "%exit" line, an error, "killed"
	Error       string  `json:"error,omitempty"`
}

func newPerson(w *world, pace pacing, seed uint64, rec *recorder, control, pty bool) *person {
	return &person{w: w, pace: pace, rng: newRand(seed, 0), rec: rec, control: control, pty: pty}
}

// between is a random duration in [r[0], r[1]).
func between(rng *rand.Rand, r [2]time.Duration) time.Duration {
	if r[1] <= r[0] {
		return r[0]
	}
	return r[0] + time.Duration(rng.Int64N(int64(r[1]-r[0])))
}

// run is the person's loop until ctx ends.
func (p *person) run(ctx context.Context) {
	// The first of each comes sooner, so that a short run has some.
	now := time.Now()
	nextControl := now.Add(between(p.rng, [2]time.Duration{0, p.pace.controlEvery[1]}))
	nextPTY := now.Add(between(p.rng, [2]time.Duration{0, p.pace.ptyEvery[1] / 2}))
	for ctx.Err() == nil {
		switch now := time.Now(); {
		case p.control && !now.Before(nextControl):
			p.attachControl(ctx)
			nextControl = time.Now().Add(between(p.rng, p.pace.controlEvery))
		case p.pty && !now.Before(nextPTY):
			p.attachPTY(ctx)
			nextPTY = time.Now().Add(between(p.rng, p.pace.ptyEvery))
		default:
			p.act(ctx)
		}
		sleepCtx(ctx, between(p.rng, p.pace.personPause)) //nolint:errcheck // the loop checks ctx
	}
	// A person leaves what they made behind; the run's clean-up ends it
	// with the server.
}

// tmux runs one tmux command as the person types it and records it.
func (p *person) tmux(ctx context.Context, op string, args ...string) (string, bool) {
	start := time.Now()
	out, err := p.w.runTmux(context.WithoutCancel(ctx), 10*time.Second, args...)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	p.rec.add(op, start, classOfTmux(msg), msg)
	return out, err == nil
}

// classOfTmux names the class of a tmux client's error message.
func classOfTmux(msg string) string {
	switch {
	case msg == "":
		return ""
	case strings.HasPrefix(msg, "timed out"):
		return "timeout"
	case strings.Contains(msg, "no server running"), strings.Contains(msg, "server exited"),
		strings.Contains(msg, "lost server"), strings.Contains(msg, "error connecting"):
		return "server_gone"
	case strings.Contains(msg, "can't find"), strings.Contains(msg, "not found"):
		return "not_found"
	case strings.Contains(msg, "duplicate session"):
		return "duplicate"
	}
	return "tmux_error"
}

// sessions lists the server's sessions (ID and name), without
// tmux-mcp's hidden one.
func (p *person) sessions(ctx context.Context) [][2]string {
	out, ok := p.tmux(ctx, "list-sessions", "list-sessions", "-F", "#{session_id}\t#{session_name}")
	if !ok {
		return nil
	}
	var ss [][2]string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		id, name, ok := strings.Cut(line, "\t")
		if ok && name != tmux.HiddenSession {
			ss = append(ss, [2]string{id, name})
		}
	}
	return ss
}

// panes lists every pane on the server outside tmux-mcp's session.
func (p *person) panes(ctx context.Context) []string {
	out, ok := p.tmux(ctx, "list-panes", "list-panes", "-a", "-F", "#{session_name}\t#{pane_id}")
	if !ok {
		return nil
	}
	var ps []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		sess, pane, ok := strings.Cut(line, "\t")
		if ok && sess != tmux.HiddenSession {
			ps = append(ps, pane)
		}
	}
	return ps
}

// act does one ordinary thing, picked at random.
func (p *person) act(ctx context.Context) {
	switch k := p.rng.IntN(10); {
	case k < 2 || len(p.own) == 0:
		if len(p.own) >= 3 {
			p.killOwn(ctx)
			return
		}
		p.seq++
		name := fmt.Sprintf("p-%d", p.seq)
		if _, ok := p.tmux(ctx, "new-session", "new-session", "-d", "-s", name, "-x", "100", "-y", "30"); ok {
			p.own = append(p.own, name)
		}
	case k < 3:
		i := p.rng.IntN(len(p.own))
		p.seq++
		name := fmt.Sprintf("p-%d-r", p.seq)
		if _, ok := p.tmux(ctx, "rename-session", "rename-session", "-t", "="+p.own[i], name); ok {
			p.own[i] = name
		}
	case k < 4:
		p.killOwn(ctx)
	case k < 6:
		if ps := p.panes(ctx); len(ps) > 0 {
			p.tmux(ctx, "select-pane", "select-pane", "-t", ps[p.rng.IntN(len(ps))])
		}
	case k < 8:
		if ps := p.panes(ctx); len(ps) > 0 {
			pane := ps[p.rng.IntN(len(ps))]
			if _, ok := p.tmux(ctx, "copy-mode", "copy-mode", "-t", pane); ok {
				sleepCtx(ctx, between(p.rng, [2]time.Duration{200 * time.Millisecond, time.Second})) //nolint:errcheck // leaves copy mode anyway
				p.tmux(ctx, "copy-mode-cancel", "send-keys", "-t", pane, "-X", "cancel")
			}
		}
	case k < 9:
		p.seq++
		name := fmt.Sprintf("person-%d", p.seq)
		if _, ok := p.tmux(ctx, "set-buffer", "set-buffer", "-b", name, "a note "+name); ok {
			p.tmux(ctx, "delete-buffer", "delete-buffer", "-b", name)
		}
	default:
		p.sessions(ctx)
	}
}

// killOwn kills one of the person's sessions.
func (p *person) killOwn(ctx context.Context) {
	if len(p.own) == 0 {
		return
	}
	i := p.rng.IntN(len(p.own))
	p.tmux(ctx, "kill-session", "kill-session", "-t", "="+p.own[i])
	p.own = slices.Delete(p.own, i, i+1)
}

// attachControl attaches a control client with tmux's own client to a
// session picked at random (anybody's), reads its output for a short
// random while, and detaches.
func (p *person) attachControl(ctx context.Context) {
	ss := p.sessions(ctx)
	if len(ss) == 0 {
		return
	}
	s := ss[p.rng.IntN(len(ss))]
	cmd := p.w.tmuxCmd(context.Background(), "-C", "attach-session", "-t", s[0])
	stdin, err := cmd.StdinPipe()
	if err != nil {
		p.rec.add("control-attach", time.Now(), "harness", err.Error())
		return
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		p.rec.add("control-attach", time.Now(), "harness", err.Error())
		return
	}
	var stderr loadtest.SyncBuffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		p.rec.add("control-attach", start, "harness", err.Error())
		return
	}
	p.w.track(loadtest.RefOf(cmd.Process.Pid))
	p.mu.Lock()
	a := Attach{N: len(p.attaches) + 1, Session: s[1], PID: cmd.Process.Pid, Start: p.w.since(start)}
	p.attaches = append(p.attaches, a)
	idx := len(p.attaches) - 1
	p.mu.Unlock()

	readDone := make(chan struct{})
	var lines int
	var exitLine string
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
		answered := false
		for sc.Scan() {
			l := sc.Text()
			// The first %begin opens the reply to the attach: the
			// handshake is over.
			if !answered && strings.HasPrefix(l, "%begin") {
				answered = true
				now := time.Now()
				p.mu.Lock()
				p.attaches[idx].FirstOutput = p.w.since(now)
				p.mu.Unlock()
			}
			lines++
			if strings.HasPrefix(l, "%exit") {
				exitLine = l
			}
		}
		io.Copy(io.Discard, stdout) //nolint:errcheck // drain to the end
	}()
	exited := make(chan error, 1)
	go func() { <-readDone; exited <- cmd.Wait() }()

	stay := between(p.rng, p.pace.controlStay)
	ending := ""
	var werr error
	select {
	case werr = <-exited:
		ending = "ended by itself"
	case <-ctx.Done():
		io.WriteString(stdin, "detach-client\n") //nolint:errcheck // it may be gone
		var how string
		how, werr = waitOrKill(cmd, stdin, exited)
		ending = "detached at the end of the churn" + how
	case <-time.After(stay):
		// A person detaching: iTerm2 sends detach-client, then closes.
		io.WriteString(stdin, "detach-client\n") //nolint:errcheck // it may be gone
		var how string
		how, werr = waitOrKill(cmd, stdin, exited)
		ending = "detached" + how
	}
	stdin.Close()
	if exitLine != "" {
		ending += ": " + exitLine
	}
	class, msg := "", ""
	switch {
	case strings.Contains(exitLine, "server exited") || strings.Contains(exitLine, "lost server"):
		class, msg = "server_gone", exitLine
	case werr != nil:
		msg = strings.TrimSpace(loadtest.FirstLine(stderr.String()))
		if msg == "" {
			msg = werr.Error()
		}
		class = classOfTmux(msg)
	}
	p.rec.add("control-attach", start, class, msg)
	p.mu.Lock()
	p.attaches[idx].End = p.w.since(time.Now())
	p.attaches[idx].Lines = lines
	p.attaches[idx].Ending = ending
	p.attaches[idx].Error = msg
	p.mu.Unlock()
}

// attachPTY attaches an ordinary client in a pseudo-terminal to a
// session picked at random, lets it draw a short random while, and
// detaches with the prefix key (C-b d).
func (p *person) attachPTY(ctx context.Context) {
	ss := p.sessions(ctx)
	if len(ss) == 0 {
		return
	}
	s := ss[p.rng.IntN(len(ss))]
	cmd := p.w.tmuxCmd(context.Background(), "attach-session", "-t", s[0])
	cmd.Env = append(slices.Clone(cmd.Env), "TERM=xterm-256color")
	start := time.Now()
	t, err := startInPTY(cmd, 40, 120)
	if err != nil {
		p.mu.Lock()
		p.ptySkip = err.Error()
		p.pty = false
		p.mu.Unlock()
		return
	}
	p.w.track(loadtest.RefOf(cmd.Process.Pid))
	first := make(chan struct{}, 1)
	var n int
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32*1024)
		for {
			k, err := t.Read(buf)
			if k > 0 {
				if n == 0 {
					first <- struct{}{}
				}
				n += k
			}
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	firstAt := 0.0
	select {
	case <-first:
		firstAt = p.w.since(time.Now())
	case <-time.After(5 * time.Second):
	case <-ctx.Done():
	case werr := <-exited:
		exited <- werr
	}
	ending := "detached"
	var werr error
	select {
	case werr = <-exited:
		ending = "ended by itself"
	case <-ctx.Done():
		t.Write([]byte{0x02, 'd'}) //nolint:errcheck // C-b d; it may be gone
		var how string
		how, werr = waitOrKill(cmd, nil, exited)
		ending = "detached at the end of the churn" + how
	case <-time.After(between(p.rng, p.pace.ptyStay)):
		t.Write([]byte{0x02, 'd'}) //nolint:errcheck // C-b d; it may be gone
		var how string
		how, werr = waitOrKill(cmd, nil, exited)
		ending += how
	}
	t.Close()
	<-readDone
	msg := ""
	if werr != nil {
		msg = werr.Error()
	}
	p.rec.add("pty-attach", start, classOfTmux(msg), msg)
	p.mu.Lock()
	p.ptys = append(p.ptys, Attach{N: len(p.ptys) + 1, Session: s[1], PID: cmd.Process.Pid, Start: p.w.since(start),
		FirstOutput: firstAt, End: p.w.since(time.Now()), Lines: n, Ending: ending, Error: msg})
	p.mu.Unlock()
}

// result returns the clients the person attached.
func (p *person) result() PersonStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	ps := PersonStats{ControlEnabled: p.control, PTYSkipped: p.ptySkip, Control: append([]Attach(nil), p.attaches...),
		PTY: append([]Attach(nil), p.ptys...)}
	ps.ControlAttaches, ps.PTYAttaches = len(ps.Control), len(ps.PTY)
	var hs []float64
	for _, a := range ps.Control {
		if a.FirstOutput > 0 {
			hs = append(hs, (a.FirstOutput-a.Start)*1000)
		}
	}
	ps.Handshake = loadtest.Summarise(hs)
	return ps
}

// waitOrKill waits up to 3 s for a client told to detach, then closes
// its stdin (if it has one) and waits 2 s more, then kills it by PID
// (our own child). It returns "" or what it took, and how Wait ended.
func waitOrKill(cmd *exec.Cmd, stdin io.Closer, exited chan error) (string, error) {
	select {
	case err := <-exited:
		return "", err
	case <-time.After(3 * time.Second):
	}
	if stdin != nil {
		stdin.Close()
		select {
		case err := <-exited:
			return " (after its stdin closed)", err
		case <-time.After(2 * time.Second):
		}
	}
	cmd.Process.Kill() //nolint:errcheck // our own child, by PID
	return " (killed)", <-exited
}
