package diagnostics

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/supervisor/death"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// recordedMac is a fake macOS whose command outputs and files come from
// testdata/darwin: `launchctl limit maxfiles` (launchctl), `sysctl -n
// kern.tty.ptmx_max`, /etc/defaults/periodic.conf and the names in /dev
// (dev.txt), in the formats macOS 14 prints and ships them. They were
// written from those formats, not captured on a Mac by this project (no
// test has run on one); the parsers read nothing else.
func recordedMac(t *testing.T, launchctl string, overrides map[string]string) Machine {
	t.Helper()
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", "darwin", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	files := map[string]string{"/etc/defaults/periodic.conf": read("periodic.conf")}
	for _, name := range strings.Fields(read("dev.txt")) {
		files["/dev/"+name] = ""
	}
	for name, text := range overrides {
		files[name] = text
	}
	out := ""
	if launchctl != "" {
		out = read(launchctl)
	}
	return machineWith("darwin", files, map[string]string{"kern.tty.ptmx_max": read("sysctl-kern.tty.ptmx_max.txt")}, out)
}

// TestDarwinChecksRecorded runs each macOS check on recorded outputs.
func TestDarwinChecksRecorded(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cleaner := func(path string, idle time.Duration) func(Machine) Check {
		return func(m Machine) Check {
			at := now.Add(-idle)
			return checkCleaner(m, path, true, fileTimes{Atime: at, Mtime: at, Ctime: at}, now)
		}
	}
	fdLimit := func(m Machine) Check { return checkDarwinFDLimit(ctx, m) }
	day := 24 * time.Hour
	tests := []struct {
		name      string
		launchctl string            // testdata/darwin file
		files     map[string]string // overrides
		check     func(Machine) Check
		status    Status
		want      string // in the summary
		facts     map[string]string
	}{
		{"launchd default 256", "launchctl-limit-maxfiles-default.txt", nil, fdLimit, StatusWarn, "soft fd limit of 256",
			map[string]string{"soft": "256", "hard": "unlimited"}},
		{"launchd raised", "launchctl-limit-maxfiles-raised.txt", nil, fdLimit, StatusOK, "65536",
			map[string]string{"soft": "65536", "hard": "200000"}},
		{"12 of 511 ptys", "", nil, checkPTYs, StatusOK, "12 of 511 pseudo-terminals",
			map[string]string{"in use": "12", "kern.tty.ptmx_max": "511"}},
		{"socket in /private/tmp idle 4 days", "", nil, cleaner("/private/tmp/tmux-501/default", 4*day), StatusWarn, "", nil},
		{"socket in /private/tmp used today", "", nil, cleaner("/private/tmp/tmux-501/default", time.Hour), StatusOK, "", nil},
		{"cleaner switched off in periodic.conf.local", "",
			map[string]string{"/etc/periodic.conf.local": "daily_clean_tmps_enable=\"NO\"\n"},
			cleaner("/private/tmp/tmux-501/default", 30*day), StatusOK, "", nil},
		{"cleaner after 10 days in periodic.conf", "",
			map[string]string{"/etc/periodic.conf": "daily_clean_tmps_days=\"10\"\t\t# longer\n"},
			cleaner("/private/tmp/tmux-501/default", 4*day), StatusOK, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.check(recordedMac(t, tt.launchctl, tt.files))
			if c.Status != tt.status || !strings.Contains(c.Summary, tt.want) {
				t.Errorf("%s: %s %q, want %s containing %q", c.ID, c.Status, c.Summary, tt.status, tt.want)
			}
			got := map[string]string{}
			for _, f := range c.Evidence {
				got[f.Name] = fmt.Sprint(f.Value)
			}
			for name, want := range tt.facts {
				if got[name] != want {
					t.Errorf("%s: fact %q = %q, want %q (facts %v)", c.ID, name, got[name], want, got)
				}
			}
		})
	}
}

// TestDarwinTmpCleanerRecorded reads the cleaner's settings from the
// recorded periodic.conf.
func TestDarwinTmpCleanerRecorded(t *testing.T) {
	tests := []struct {
		name        string
		path        string
		wantDays    int
		wantCovered bool
		wantSource  string
	}{
		{"/private/tmp", "/private/tmp/tmux-501/default", 3, true, "/etc/defaults/periodic.conf: daily_clean_tmps_days=3"},
		{"/tmp, the symlink", "/tmp/tmux-501/default", 3, true, "/etc/defaults/periodic.conf: daily_clean_tmps_days=3"},
		{"home", "/Users/me/.tmux/sock", 0, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			days, covered, source := darwinTmpCleaner(recordedMac(t, "", nil), tt.path)
			if days != tt.wantDays || covered != tt.wantCovered || source != tt.wantSource {
				t.Errorf("darwinTmpCleaner(%q) = %d, %v, %q; want %d, %v, %q", tt.path, days, covered, source, tt.wantDays, tt.wantCovered, tt.wantSource)
			}
		})
	}
}

// TestDarwinNextSteps: on macOS the steps after a kill or a crash read the
// unified log and the crash reports instead of Linux's kernel log.
func TestDarwinNextSteps(t *testing.T) {
	tests := []struct {
		goos, cause string
		want        string
		notWant     string
	}{
		{"darwin", string(death.CauseKilled), "log show --predicate 'process == \"tmux\"'", "dmesg"},
		{"darwin", string(death.CauseCrashed), "~/Library/Logs/DiagnosticReports", "journalctl"},
		{"darwin", string(death.CauseUnknown), "log show", "dmesg"},
		{"linux", string(death.CauseKilled), "dmesg", "log show"},
	}
	for _, tt := range tests {
		t.Run(tt.goos+" "+tt.cause, func(t *testing.T) {
			f := &serverFacts{sock: tmux.Socket{Path: "/private/tmp/tmux-501/default"}, path: "/private/tmp/tmux-501/default",
				goos: tt.goos, ans: &answer{PID: 512}}
			steps := nextSteps(tt.cause, f)
			if !containsStep(steps, tt.want) || containsStep(steps, tt.notWant) {
				t.Errorf("nextSteps = %q, want a step with %q and none with %q", steps, tt.want, tt.notWant)
			}
		})
	}
}
