package native

import (
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestFramesRoundTrip writes frames on one end of a socket pair and reads
// them back on the other, through the reader's buffering.
func TestFramesRoundTrip(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	conns := make([]*net.UnixConn, 2)
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c.(*net.UnixConn)
		defer conns[i].Close()
	}
	big := strings.Repeat("x", maxImsgSize-imsgHeaderSize)
	var b []byte
	b = appendFrame(b, msgCommand, packArgv([]string{"display-message", "-p", "x"}))
	b = appendFrame(b, msgIdentifyDone, nil)
	b = appendFrame(b, msgWrite, []byte(big))
	if err := writeAll(conns[0], b); err != nil {
		t.Fatal(err)
	}
	conns[0].Close()
	r := newFrameReader(conns[1])
	want := []imsg{
		{msgCommand, []byte("display-message\x00-p\x00x\x00")},
		{msgIdentifyDone, []byte{}},
		{msgWrite, []byte(big)},
	}
	for _, w := range want {
		m, err := r.next()
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		if m.typ != w.typ || string(m.data) != string(w.data) {
			t.Fatalf("frame %d with %d bytes, want %d with %d bytes", m.typ, len(m.data), w.typ, len(w.data))
		}
	}
	if _, err := r.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("next after the last frame: %v, want io.EOF", err)
	}
}

func TestCommandFrameTooLong(t *testing.T) {
	if _, err := commandFrame([]string{"set-buffer", strings.Repeat("x", maxImsgSize)}); !errors.Is(err, ErrCommandTooLong) {
		t.Fatalf("commandFrame of a long argument: %v, want ErrCommandTooLong", err)
	}
}

func TestClientEnviron(t *testing.T) {
	env := []string{"HOME=/h", "DISPLAY=:0", "LANG=C.UTF-8", "API_KEY=secret", "=x", "SSH_AUTH_SOCK=/s"}
	got := clientEnviron(env)
	if want := []string{"DISPLAY=:0", "LANG=C.UTF-8", "SSH_AUTH_SOCK=/s"}; !slices.Equal(got, want) {
		t.Fatalf("clientEnviron = %q, want %q", got, want)
	}
}

func TestExitMessage(t *testing.T) {
	data := append(int32Bytes(1), cString("server exited")...)
	if status, msg := exitMessage(data); status != 1 || msg != "server exited" {
		t.Fatalf("exitMessage = %d, %q", status, msg)
	}
	if status, msg := exitMessage(nil); status != 0 || msg != "" {
		t.Fatalf("exitMessage(nil) = %d, %q", status, msg)
	}
}
