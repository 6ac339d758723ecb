package spawn

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestSoftFDLimit(t *testing.T) {
	tests := []struct {
		name                 string
		limit, hard, ceiling uint64
		want                 uint64
	}{
		{"0 takes the hard limit", 0, 524288, 0, 524288},
		{"a limit below the hard one", 64, 524288, 0, 64},
		{"never above the hard limit", 1 << 20, 4096, 0, 4096},
		{"macOS: unlimited hard limit, capped at kern.maxfilesperproc", 0, 1<<63 - 1, 245760, 245760},
		{"macOS: a small limit stays", 24, 1<<63 - 1, 245760, 24},
		{"macOS: ceiling below the hard limit", 1 << 20, 1 << 19, 10240, 10240},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := softFDLimit(tt.limit, tt.hard, tt.ceiling); got != tt.want {
				t.Errorf("softFDLimit(%d, %d, %d) = %d, want %d", tt.limit, tt.hard, tt.ceiling, got, tt.want)
			}
		})
	}
}

// TestUlimitCommand runs the macOS way of starting a server with its own fd
// limit through this machine's /bin/sh: the program sees the limit, gets
// its arguments verbatim (none is read as shell text) and keeps the PID the
// shell had (exec).
func TestUlimitCommand(t *testing.T) {
	tests := []struct {
		name  string
		limit uint64
		args  []string
	}{
		{"plain", 64, []string{"a", "b"}},
		{"shell syntax stays literal", 100, []string{"$(echo no)", "`x`", "a b", "'q'", ";", "-n"}},
		{"no arguments", 32, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := `echo "$$"; ulimit -S -n; for a in "$@"; do echo "[$a]"; done`
			cmd := exec.Command("/bin/sh", append([]string{"-c", script, "inner"}, tt.args...)...)
			UlimitCommand(cmd, tt.limit)
			if cmd.Path != "/bin/sh" || cmd.Args[0] != "/bin/sh" {
				t.Fatalf("cmd = %q %q, want /bin/sh first", cmd.Path, cmd.Args)
			}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("run %q: %v", cmd.Args, err)
			}
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(lines) < 2 {
				t.Fatalf("output %q, want the PID and the limit", out)
			}
			if lines[0] != strconv.Itoa(cmd.Process.Pid) {
				t.Errorf("the program ran as PID %s, want the shell's %d (exec)", lines[0], cmd.Process.Pid)
			}
			if want := strconv.FormatUint(tt.limit, 10); lines[1] != want {
				t.Errorf("soft fd limit = %s, want %s", lines[1], want)
			}
			var got []string
			for _, l := range lines[2:] {
				got = append(got, strings.TrimSuffix(strings.TrimPrefix(l, "["), "]"))
			}
			if strings.Join(got, "\x00") != strings.Join(tt.args, "\x00") {
				t.Errorf("arguments = %q, want %q", got, tt.args)
			}
		})
	}
}

// TestUlimitCommandRefusesToStartWithoutTheLimit: a limit the shell cannot
// set (above the hard limit) stops the start instead of running the
// program with the inherited one.
func TestUlimitCommandRefusesToStartWithoutTheLimit(t *testing.T) {
	cmd := exec.Command("/bin/echo", "started")
	UlimitCommand(cmd, 1<<62)
	out, err := cmd.Output()
	if err == nil || strings.Contains(string(out), "started") {
		t.Errorf("output %q, error %v; want a failure before the program starts", out, err)
	}
}
