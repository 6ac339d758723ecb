package hosts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/e2etest"
)

// TestHostsPlantedBinary: on a host whose XDG_CACHE_HOME is a directory
// every user can write, another user (uid 65534) has put a tmux-mcp into
// the install cache first. Neither a start without --host-install (no
// tmux-mcp on the PATH: the cache is the one there is) nor one with it
// runs that binary or replaces it: the host is down saying why, and a
// marker the planted binary would leave is never made (issue 42). A copy
// of the user's own in a safe cache that is not this binary (changed
// since it was installed) does not run either: without --host-install
// the host is down saying so; with it, it is replaced and the host comes
// up on this binary.
func TestHostsPlantedBinary(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the planted binary belongs to another user (uid 65534)")
	}
	bin := e2etest.Binary(t)
	marker := filepath.Join(t.TempDir(), "planted-ran")
	plant := func(path string) {
		t.Helper()
		body := "#!/bin/sh\ntouch '" + marker + "'\nexec '" + bin + "' \"$@\"\n"
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("planted by another user", func(t *testing.T) {
		open := filepath.Join(t.TempDir(), "xdg")
		if err := os.Mkdir(open, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(open, 0o777); err != nil {
			t.Fatal(err)
		}
		h := startSimHostPath(t, "shared", "/usr/local/bin:/usr/bin:/bin", "XDG_CACHE_HOME="+open)
		planted := filepath.Join(open, "tmux-mcp", "bin", "tmux-mcp")
		plant(planted)
		for _, p := range []string{filepath.Join(open, "tmux-mcp"), filepath.Dir(planted), planted} {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
		before := fileSum(t, planted)
		start := oneHost(t, bin, h, "shared")
		for _, install := range []bool{false, true} {
			f := start(install)
			down := f.awaitState(t, "shared", "down", 30*time.Second)
			if !strings.Contains(down.Error, "refusing to run "+planted) || !strings.Contains(down.Error, "is not safe") ||
				!strings.Contains(down.Hint, "Another user could have put or changed") {
				t.Errorf("--host-install %v: a planted binary: %+v", install, down)
			}
			res := f.call(t, 10*time.Second, "list_sessions", map[string]any{"host": "shared"})
			if !res.IsError || !strings.Contains(e2etest.Text(res), "refusing to run") {
				t.Errorf("--host-install %v: a call to the host: %v", install, res.Content)
			}
			f.c.Close()
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the planted binary ran")
		}
		if got := fileSum(t, planted); got != before {
			t.Errorf("the planted binary was replaced: it is not ours to change")
		}
	})

	t.Run("another build of the user's", func(t *testing.T) {
		h := startSimHostPath(t, "mine", "/usr/local/bin:/usr/bin:/bin")
		cached := filepath.Join(h.dir, "home", ".cache", "tmux-mcp", "bin", "tmux-mcp")
		plant(cached)
		for _, d := range []string{filepath.Dir(filepath.Dir(cached)), filepath.Dir(cached)} {
			if err := os.Chmod(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		start := oneHost(t, bin, h, "mine")
		f := start(false)
		down := f.awaitState(t, "mine", "down", 30*time.Second)
		if !strings.Contains(down.Error, "another build in the install cache") || !strings.Contains(down.Hint, "--host-install to replace it") {
			t.Errorf("another build without --host-install: %+v", down)
		}
		f.c.Close()
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("a cached binary that is not this one ran")
		}
		f = start(true)
		if up := f.awaitUp(t, "mine", 60*time.Second); up.RemoteVer == "" {
			t.Errorf("after --host-install: %+v", up)
		}
		h.checkInstalled(t, bin)
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the replaced binary ran")
		}
	})
}
