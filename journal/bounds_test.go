package journal

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

func TestCapFields(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	s := &Snapshot{Server: Server{Socket: "/" + long(maxPathBytes), Version: "3.3a", Binary: "/usr/bin/tmux"}, Sessions: []Session{{
		Name: long(1 << 20), Group: "g",
		Windows: []Window{{Name: strings.Repeat("é", maxNameBytes), Layout: long(maxLayoutBytes + 1), VisibleLayout: "v",
			Panes: []Pane{
				{Title: long(1 << 20), Path: "/" + long(1<<20), StartPath: "/ok", StartCommand: long(maxCommandBytes + 1),
					Command: "vim", Argv: []string{"vim", long(maxCommandBytes)}},
				{Title: "t", Path: "/p", StartCommand: "sh", Argv: make([]string, maxArgs+1)},
				{Title: "t", Path: "/p", StartCommand: "sh -c x", Argv: []string{"sh", "-c", "x"}},
			}}},
	}}}
	s.capFields()
	w := s.Sessions[0].Windows[0]
	p := w.Panes
	for _, tt := range []struct {
		name      string
		got, want string
	}{
		{"socket", s.Server.Socket, ""},
		{"version", s.Server.Version, "3.3a"},
		{"session name", s.Sessions[0].Name, long(maxNameBytes)},
		{"window name", w.Name, strings.Repeat("é", maxNameBytes/2)}, // cut on a rune boundary
		{"layout", w.Layout, ""},
		{"visible layout", w.VisibleLayout, "v"},
		{"title", p[0].Title, long(maxNameBytes)},
		{"path", p[0].Path, ""},
		{"start path", p[0].StartPath, "/ok"},
		{"start command", p[0].StartCommand, ""},
		{"argv bytes", strings.Join(p[0].Argv, " "), ""},
		{"argv count", strings.Join(p[1].Argv, " "), ""},
		{"small argv", strings.Join(p[2].Argv, " "), "sh -c x"},
		{"small start command", p[2].StartCommand, "sh -c x"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: %d bytes (%.20q...), want %d bytes (%.20q)", tt.name, len(tt.got), tt.got, len(tt.want), tt.want)
		}
	}
}

func TestCapCreated(t *testing.T) {
	big := strings.Repeat("v", maxCreatedBytes)
	tests := []struct {
		name string
		in   Created
		want func(Created) bool
	}{
		{"small", Created{Argv: []string{"sh"}, Cwd: "/d", Env: []string{"A=1"}},
			func(c Created) bool { return c.Env[0] == "A=1" && c.Argv[0] == "sh" && c.Cwd == "/d" }},
		{"big value", Created{Argv: []string{"sh"}, Cwd: "/d", Env: []string{"A=" + big}},
			func(c Created) bool { return c.Env[0] == "A" && c.Argv[0] == "sh" && c.Cwd == "/d" }},
		{"big argv", Created{Argv: []string{"sh", big}, Cwd: "/d", Env: []string{"A=1"}},
			func(c Created) bool { return c.Env[0] == "A" && c.Argv == nil && c.Cwd == "/d" }},
	}
	for _, tt := range tests {
		c := tt.in
		c.Env = append([]string(nil), c.Env...)
		capCreated(&c)
		if !tt.want(c) {
			t.Errorf("%s: capCreated gave argv %d, env %.20q, cwd %q", tt.name, len(c.Argv), c.Env, c.Cwd)
		}
	}
}

// TestSnapshotTooLarge: a snapshot over MaxSnapshotBytes is not stored
// and says so; the one before it stays the latest.
func TestSnapshotTooLarge(t *testing.T) {
	j, _ := mustOpen(t, "", nil)
	if _, err := j.storeSnapshot(testSock, testSnapshotN(1)); err != nil {
		t.Fatal(err)
	}
	big := testSnapshotN(2)
	panes := big.Sessions[0].Windows[0].Panes
	for i := 0; i < MaxSnapshotBytes/maxNameBytes+1; i++ {
		p := panes[0]
		p.ID, p.Title = tmux.PaneID("%"+strconv.Itoa(1000+i)), strings.Repeat("t", maxNameBytes)
		big.Sessions[0].Windows[0].Panes = append(big.Sessions[0].Windows[0].Panes, p)
	}
	if stored, err := j.storeSnapshot(testSock, big); stored || !errors.Is(err, ErrSnapshotTooLarge) {
		t.Fatalf("storeSnapshot(%d panes) = %v, %v; want not stored, ErrSnapshotTooLarge", len(big.Sessions[0].Windows[0].Panes), stored, err)
	}
	got, err := j.Snapshot(testSock, 0)
	if err != nil || got.Sessions[0].Windows[0].Panes[0].Title != "title 1" {
		t.Errorf("latest snapshot after the refusal: %v, %v; want the first one", got, err)
	}
}

// TestFileBound: four servers store 50 MiB of snapshots into a journal
// bounded at 8 MiB. The file never grows past the bound plus one bbolt
// growth step and one write, and every server keeps its latest snapshot.
// Without the bound, retention alone (50 snapshots a server) keeps all
// of it.
func TestFileBound(t *testing.T) {
	const maxBytes = 8 << 20
	j, logs := mustOpen(t, "", &Options{MaxBytes: maxBytes})
	socks := []tmux.Socket{{Path: "/tmp/b/0"}, {Path: "/tmp/b/1"}, {Path: "/tmp/b/2"}, {Path: "/tmp/b/3"}}
	const perSnapshot = 256 << 10
	last := map[string]string{}
	largest := int64(0)
	for n := 0; n < 200; n++ {
		sock := socks[n%len(socks)]
		s := testSnapshotN(n)
		title := strconv.Itoa(n) + strings.Repeat("t", maxNameBytes-8)
		for i := 0; i < perSnapshot/maxNameBytes; i++ {
			p := s.Sessions[0].Windows[0].Panes[0]
			p.ID, p.Title = tmux.PaneID("%"+strconv.Itoa(100+i)), title
			s.Sessions[0].Windows[0].Panes = append(s.Sessions[0].Windows[0].Panes, p)
		}
		if stored, err := j.storeSnapshot(sock, s); !stored || err != nil {
			t.Fatalf("snapshot %d: stored %v, %v", n, stored, err)
		}
		last[sock.Path] = title
		fi, err := os.Stat(j.Path())
		if err != nil {
			t.Fatal(err)
		}
		largest = max(largest, fi.Size())
	}
	if limit := int64(maxBytes + 16<<20 + perSnapshot*2); largest > limit {
		t.Errorf("the file reached %d bytes, want at most %d (bound %d)", largest, limit, maxBytes)
	}
	t.Logf("largest file: %d bytes for a bound of %d", largest, maxBytes)
	for _, sock := range socks {
		s, err := j.Snapshot(sock, 0)
		if err != nil {
			t.Fatalf("%s: %v", sock, err)
		}
		panes := s.Sessions[0].Windows[0].Panes
		if got := panes[len(panes)-1].Title; got != last[sock.Path] {
			t.Errorf("%s: latest snapshot's title %.8q..., want %.8q...", sock, got, last[sock.Path])
		}
	}
	if !strings.Contains(logs.String(), "the oldest records were dropped") {
		t.Errorf("no warning that records were dropped:\n%s", logs.String())
	}
}
