package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A hostile tmux server: what another local user can put on a socket that
// tmux-mcp might connect to. It speaks enough of tmux's imsg protocol to
// read a client's identification (and report every
// MSG_IDENTIFY_ENVIRON, where a tmux client sends its environment) and to
// answer it as a server may: MSG_SHELL (the client execs the program the
// server names) or MSG_READY and MSG_EXEC (the client runs a command
// through a shell of the server's choosing once it has left). It runs as
// a child of the test, as another uid: the test binary itself, started
// with fakeServerEnv set (see TestMain).

// The fake server's settings, in its environment.
const (
	fakeServerEnv  = "TMUX_MCP_FAKE_TMUX_SOCKET" // socket path to listen on
	fakeServerMode = "TMUX_MCP_FAKE_TMUX_MODE"   // "shell" or "exec"
	fakeServerRun  = "TMUX_MCP_FAKE_TMUX_RUN"    // program the server tells clients to run
)

// imsg message types (tmux-protocol.h) the fake server reads or sends.
const (
	fakeMsgIdentifyEnviron = 105
	fakeMsgIdentifyDone    = 106
	fakeMsgExited          = 204
	fakeMsgExiting         = 205
	fakeMsgReady           = 207
	fakeMsgShell           = 209
	fakeMsgExec            = 217
)

// runFakeServer is the child's main: it listens on the socket, prints
// "listening", then one line per event ("connect", "msg N", "environ
// "NAME=value"") until its stdin closes, and exits.
func runFakeServer(path string) int {
	ln, err := net.Listen("unix", path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake tmux server:", err)
		return 1
	}
	// Connectable by anyone, as a socket meant to be found is.
	if err := os.Chmod(path, 0o777); err != nil {
		fmt.Fprintln(os.Stderr, "fake tmux server:", err)
		return 1
	}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf(format+"\n", args...)
	}
	say("listening")
	go func() {
		io.Copy(io.Discard, os.Stdin) //nolint:errcheck // EOF or error: stop either way
		mu.Lock()                     // let a line being written finish
		os.Exit(0)
	}()
	mode, run := os.Getenv(fakeServerMode), os.Getenv(fakeServerRun)
	for {
		c, err := ln.Accept()
		if err != nil {
			say("accept: %v", err)
			return 1
		}
		say("connect")
		go fakeServe(c.(*net.UnixConn), mode, run, say)
	}
}

// fakeServe reads one client's frames and answers its identification.
func fakeServe(c *net.UnixConn, mode, run string, say func(string, ...any)) {
	defer c.Close()
	ne := binary.NativeEndian
	send := func(typ uint32, data []byte) {
		h := make([]byte, 16, 16+len(data))
		ne.PutUint32(h[0:], typ)
		ne.PutUint32(h[4:], uint32(16+len(data))) // len, and flags 0 before tmux 3.6
		ne.PutUint32(h[8:], 8)                    // PROTOCOL_VERSION
		ne.PutUint32(h[12:], uint32(os.Getpid()))
		c.Write(append(h, data...)) //nolint:errcheck // the client may be gone
	}
	var buf []byte
	chunk := make([]byte, 65536)
	oob := make([]byte, syscall.CmsgSpace(4*16))
	for {
		n, oobn, _, _, err := c.ReadMsgUnix(chunk, oob)
		if oobn > 0 {
			closeFDs(oob[:oobn])
		}
		if n == 0 || err != nil {
			return
		}
		buf = append(buf, chunk[:n]...)
		for len(buf) >= 16 {
			typ := ne.Uint32(buf[0:])
			size := ne.Uint32(buf[4:]) &^ 0x80000000 // tmux 3.6 marks a passed descriptor in len
			if size > 16384 {
				size = uint32(ne.Uint16(buf[4:])) // before 3.6: len u16, then flags
			}
			if size < 16 || uint32(len(buf)) < size {
				break
			}
			data := buf[16:size]
			buf = buf[size:]
			say("msg %d", typ)
			switch typ {
			case fakeMsgIdentifyEnviron:
				say("environ %s", strconv.Quote(strings.TrimSuffix(string(data), "\x00")))
			case fakeMsgIdentifyDone:
				if mode == "exec" {
					send(fakeMsgReady, nil)
					send(fakeMsgExec, []byte(run+"\x00/bin/sh\x00"))
				} else {
					send(fakeMsgShell, []byte(run+"\x00"))
				}
			case fakeMsgExiting:
				send(fakeMsgExited, nil)
			}
		}
	}
}

// closeFDs closes the descriptors a client passed (its stdin and stdout).
func closeFDs(oob []byte) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return
	}
	for _, m := range msgs {
		if fds, err := syscall.ParseUnixRights(&m); err == nil {
			for _, fd := range fds {
				syscall.Close(fd) //nolint:errcheck // not ours
			}
		}
	}
}

// fakeServer is a running fake server, seen from the test.
type fakeServer struct {
	cmd   *exec.Cmd
	stdin io.Closer
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

// startFakeServer runs bin (a copy of the test binary that uid can run)
// as uid on socket, telling clients to run the program run by the way
// mode names, and waits until it listens.
func startFakeServer(t *testing.T, bin string, uid int, socket, mode, run string) *fakeServer {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "TMPDIR=" + filepath.Dir(run),
		fakeServerEnv + "=" + socket, fakeServerMode + "=" + mode, fakeServerRun + "=" + run}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the fake server as uid %d: %v", uid, err)
	}
	f := &fakeServer{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		defer close(f.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "listening" {
				close(ready)
				continue
			}
			f.mu.Lock()
			f.lines = append(f.lines, sc.Text())
			f.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		f.stop()
		cmd.Process.Kill() //nolint:errcheck // our child; it may have exited
		cmd.Wait()         //nolint:errcheck // its status does not matter here
	})
	select {
	case <-ready:
	case <-f.done:
		t.Fatalf("the fake server on %s exited before listening", socket)
	case <-time.After(10 * time.Second):
		t.Fatalf("the fake server on %s did not listen within 10s", socket)
	}
	return f
}

// stop ends the server (its stdin closes) and returns every line it
// printed: all it saw, since it prints before it answers.
func (f *fakeServer) stop() []string {
	f.stdin.Close()
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lines...)
}
