package proc

import (
	"context"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

func TestParseLsofUnix(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	under := func(dir string) func(string) bool {
		return func(p string) bool { return strings.HasPrefix(p, dir) }
	}
	is := func(path string) func(string) bool { return func(p string) bool { return p == path } }
	tests := []struct {
		name  string
		out   string
		match func(string) bool
		want  map[string][]int
	}{
		{"darwin: every bound path", read("lsof-U-darwin.txt"), nil, map[string][]int{
			"/private/tmp/tmux-501/default":       {512, 990},
			"/private/tmp/tmux-501/work sessions": {880},
			"/var/run/mDNSResponder":              {881},
		}},
		{"darwin: one socket", read("lsof-U-darwin.txt"), is("/private/tmp/tmux-501/default"),
			map[string][]int{"/private/tmp/tmux-501/default": {512, 990}}},
		{"darwin: a path with a space", read("lsof-U-darwin.txt"), is("/private/tmp/tmux-501/work sessions"),
			map[string][]int{"/private/tmp/tmux-501/work sessions": {880}}},
		{"linux: type suffix and state cut, abstract and unbound left out", read("lsof-U-linux.txt"), nil, map[string][]int{
			"/tmp/tmt1194798941/s": {7943, 9003},
			"/tmp/dw/s2":           {8261},
			"/run/user/1000/bus":   {9002},
		}},
		{"linux: one directory", read("lsof-U-linux.txt"), under("/tmp/tmt"),
			map[string][]int{"/tmp/tmt1194798941/s": {7943, 9003}}},
		{"no match", read("lsof-U-darwin.txt"), is("/nowhere"), nil},
		{"empty output", "", nil, nil},
		{"name before any process", "n/tmp/x\n", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseLsofUnix(tt.out, tt.match); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseLsofUnix() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLsofUnixListeners runs macOS's fallback with this machine's lsof: it
// finds a live server by its socket path, and still finds it once the
// socket file is deleted. It looks once the pane's process has run its
// command: until then the pane is the server's fork, which holds the
// listening socket too (cold7 saw two PIDs), as it should be listed.
func TestLsofUnixListeners(t *testing.T) {
	if _, err := exec.LookPath("lsof"); err != nil {
		t.Skip("no lsof")
	}
	ts := tmuxtest.New(t)
	pid := ts.Start("one")
	pane, err := strconv.Atoi(ts.MustTmux("display-message", "-p", "-t", "=one:", "#{pane_pid}"))
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the pane's command to start", func() bool { return !PaneStarting(pid, pane) })
	find := func() []int {
		return lsofUnixListeners(context.Background(), func(p string) bool { return p == ts.Socket })[ts.Socket]
	}
	if got := find(); !slices.Equal(got, []int{pid}) {
		t.Fatalf("lsof listeners of %s = %v, want [%d]", ts.Socket, got, pid)
	}
	if err := os.Remove(ts.Socket); err != nil {
		t.Fatal(err)
	}
	if got := find(); !slices.Equal(got, []int{pid}) {
		t.Errorf("lsof listeners of deleted %s = %v, want [%d]", ts.Socket, got, pid)
	}
}
