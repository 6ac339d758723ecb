package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/proc"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// machineWith is fixedMachine with more files and sysctls.
func machineWith(goos string, files map[string]string, sysctls map[string]string, launchctl string) Machine {
	m := fixedMachine()
	m.GOOS = goos
	read, glob := m.ReadFile, m.Glob
	m.ReadFile = func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return read(name)
	}
	m.Glob = func(pattern string) ([]string, error) {
		out, _ := glob(pattern)
		for name := range files {
			if ok, _ := filepath.Match(pattern, name); ok {
				out = append(out, name)
			}
		}
		return out, nil
	}
	m.Sysctl = func(name string) (string, error) {
		if v, ok := sysctls[name]; ok {
			return v, nil
		}
		return "", errors.New("no such sysctl")
	}
	m.LaunchdMaxfiles = func(context.Context) (string, error) {
		if launchctl == "" {
			return "", errors.New("no launchctl")
		}
		return launchctl, nil
	}
	return m
}

func TestParseSystemdSpan(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"10d", 10 * day, false},
		{"1w", 7 * day, false},
		{"1d12h", day + 12*time.Hour, false},
		{"30min", 30 * time.Minute, false},
		{"90", 90 * time.Second, false},
		{"", 0, true},
		{"ten", 0, true},
	}
	for _, tt := range tests {
		got, err := parseSystemdSpan(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("parseSystemdSpan(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

func TestTmpfilesAge(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		path    string
		wantAge time.Duration
		found   bool
	}{
		{"boot-only cleaning", nil, "/tmp/tmux-0/default", 0, false},
		{"ten days", map[string]string{"/usr/lib/tmpfiles.d/tmp.conf": "q /tmp 1777 root root 10d\n"},
			"/tmp/tmux-1000/default", 10 * 24 * time.Hour, true},
		{"/etc masks /usr/lib", map[string]string{"/usr/lib/tmpfiles.d/tmp.conf": "q /tmp 1777 root root 10d\n",
			"/etc/tmpfiles.d/tmp.conf": "q /tmp 1777 root root -\n"}, "/tmp/tmux-1000/default", 0, false},
		{"excluded by x", map[string]string{"/usr/lib/tmpfiles.d/tmp.conf": "q /tmp 1777 root root 10d\n",
			"/etc/tmpfiles.d/tmux.conf": "x /tmp/tmux-*\n"}, "/tmp/tmux-1000/default", 0, false},
		{"shortest of two", map[string]string{"/usr/lib/tmpfiles.d/tmp.conf": "q /tmp 1777 root root 10d\n",
			"/etc/tmpfiles.d/mine.conf": "e /tmp/tmux-1000 - - - 2d\n"}, "/tmp/tmux-1000/default", 2 * 24 * time.Hour, true},
		{"another tree", map[string]string{"/usr/lib/tmpfiles.d/tmp.conf": "q /var/tmp 1777 root root 30d\n"},
			"/tmp/tmux-1000/default", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := machineWith("linux", tt.files, nil, "")
			rule, ok := tmpfilesAge(m, tt.path)
			if ok != tt.found || rule.Age != tt.wantAge {
				t.Errorf("tmpfilesAge = %+v, %v; want age %v, found %v", rule, ok, tt.wantAge, tt.found)
			}
		})
	}
}

func TestCheckCleaner(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tenDays := map[string]string{"/etc/tmpfiles.d/tmp.conf": "q /tmp 1777 root root 10d\n"}
	tests := []struct {
		name   string
		m      Machine
		path   string
		idle   time.Duration
		status Status
	}{
		{"linux, fresh socket", machineWith("linux", tenDays, nil, ""), "/tmp/tmux-0/default", time.Hour, StatusOK},
		{"linux, socket unchanged for a week", machineWith("linux", tenDays, nil, ""), "/tmp/tmux-0/default", 7 * 24 * time.Hour, StatusWarn},
		{"linux, no rule", machineWith("linux", nil, nil, ""), "/tmp/tmux-0/default", 30 * 24 * time.Hour, StatusOK},
		{"macOS, /private/tmp after 2 days", machineWith("darwin", nil, nil, ""), "/private/tmp/tmux-502/default", 2 * 24 * time.Hour, StatusWarn},
		{"macOS, elsewhere", machineWith("darwin", nil, nil, ""), "/Users/me/.tmux.sock", 30 * 24 * time.Hour, StatusOK},
		{"macOS, cleaner off", machineWith("darwin", map[string]string{"/etc/periodic.conf": `daily_clean_tmps_enable="NO"`}, nil, ""),
			"/private/tmp/tmux-502/default", 30 * 24 * time.Hour, StatusOK},
		{"other OS", machineWith("freebsd", nil, nil, ""), "/tmp/tmux-0/default", 0, StatusSkipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := now.Add(-tt.idle)
			c := checkCleaner(tt.m, tt.path, true, fileTimes{Atime: at, Mtime: at, Ctime: at}, now)
			if c.Status != tt.status {
				t.Errorf("status = %s (%s), want %s", c.Status, c.Summary, tt.status)
			}
			if c.Status == StatusWarn && !containsStep(c.Commands, "touch "+tt.path) {
				t.Errorf("commands = %q, want touch %s", c.Commands, tt.path)
			}
		})
	}
}

func TestDarwinChecks(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		check  func(Machine) Check
		m      Machine
		status Status
		want   string
	}{
		{"launchd 256", func(m Machine) Check { return checkDarwinFDLimit(ctx, m) },
			machineWith("darwin", nil, nil, "\tmaxfiles    256            unlimited      \n"), StatusWarn, "256"},
		{"launchd raised", func(m Machine) Check { return checkDarwinFDLimit(ctx, m) },
			machineWith("darwin", nil, nil, "\tmaxfiles    65536          200000         \n"), StatusOK, "65536"},
		{"launchd unlimited", func(m Machine) Check { return checkDarwinFDLimit(ctx, m) },
			machineWith("darwin", nil, nil, "\tmaxfiles    unlimited      unlimited      \n"), StatusOK, "unlimited"},
		{"launchd off macOS", func(m Machine) Check { return checkDarwinFDLimit(ctx, m) },
			machineWith("linux", nil, nil, ""), StatusSkipped, "macOS only"},
		{"launchctl fails", func(m Machine) Check { return checkDarwinFDLimit(ctx, m) },
			machineWith("darwin", nil, nil, ""), StatusSkipped, "launchctl"},
		{"ptmx nearly full", checkPTYs, machineWith("darwin", ttys(480), map[string]string{"kern.tty.ptmx_max": "511"}, ""), StatusFail, "480 of 511"},
		{"ptmx fine", checkPTYs, machineWith("darwin", ttys(12), map[string]string{"kern.tty.ptmx_max": "511"}, ""), StatusOK, "12 of 511"},
		{"ptmx unreadable", checkPTYs, machineWith("darwin", nil, nil, ""), StatusSkipped, "kern.tty.ptmx_max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.check(tt.m)
			if c.Status != tt.status || !strings.Contains(c.Summary, tt.want) {
				t.Errorf("%s: %s %q, want %s containing %q", c.ID, c.Status, c.Summary, tt.status, tt.want)
			}
		})
	}
}

// ttys makes n /dev/ttys* entries for a fake macOS.
func ttys(n int) map[string]string {
	out := map[string]string{}
	for i := 0; i < n; i++ {
		out[fmt.Sprintf("/dev/ttys%03d", i)] = ""
	}
	return out
}

func TestLinuxSystemChecks(t *testing.T) {
	m := fixedMachine()
	m.System = func() proc.Resources {
		return proc.Resources{PTYs: 3800, PTYMax: 4096, FilesAllocated: 750, FilesMax: 1000}
	}
	if c := checkPTYs(m); c.Status != StatusFail || !containsStep(c.Commands, "kernel.pty.max") {
		t.Errorf("ptys: %s %q %q, want fail with a sysctl to raise kernel.pty.max", c.Status, c.Summary, c.Commands)
	}
	if c := checkFileHandles(m); c.Status != StatusWarn {
		t.Errorf("files: %s %q, want warn at 75%%", c.Status, c.Summary)
	}
	m.System = func() proc.Resources { return proc.Resources{} }
	if c := checkPTYs(m); c.Status != StatusSkipped {
		t.Errorf("ptys without procfs: %s, want skipped", c.Status)
	}
}

func TestParseProbe(t *testing.T) {
	out := "S|123|3.3a|1795391418|/tmp/x\\|y\\>\\ z/s|1|0|0|off|2000>\n" +
		"C|456|1>\n" +
		"P|768|0|2000|off|0|main>\n" +
		"P|100|5|5000|on|1|__tmux_mcp>\n"
	a, err := parseProbe(out)
	if err != nil {
		t.Fatal(err)
	}
	if a.PID != 123 || a.Version != "3.3a" || a.SocketPath != "/tmp/x|y> z/s" || !on(a.ExitEmpty) || on(a.ExitUnattached) || a.HistoryLimit != 2000 {
		t.Errorf("server line parsed as %+v", a)
	}
	if len(a.Clients) != 1 || a.Clients[0].PID != 456 || !a.Clients[0].Control {
		t.Errorf("clients = %+v", a.Clients)
	}
	if len(a.Panes) != 2 || a.Panes[0].HistoryBytes != 768 || !a.Panes[1].Dead || a.Panes[1].Session != tmux.HiddenSession {
		t.Errorf("panes = %+v", a.Panes)
	}
	if _, err := parseProbe("no server running on /x\n"); !errors.Is(err, errNoServerLine) {
		t.Errorf("parseProbe(error text) = %v, want errNoServerLine", err)
	}
}

func TestExitOptionsAndHistory(t *testing.T) {
	facts := func(a *answer) *serverFacts {
		return &serverFacts{sock: tmux.Socket{Name: "x"}, path: "/tmp/tmux-0/x", ans: a}
	}
	risky := &answer{ExitEmpty: "1", ExitUnattached: "1", DestroyUnattached: "on", RemainOnExit: "off", HistoryLimit: 2000}
	if c := checkExitOptions(facts(risky)); c.Status != StatusWarn || len(c.Commands) != 2 {
		t.Errorf("exit options: %s %q %q, want warn with two fixes", c.Status, c.Summary, c.Commands)
	}
	calm := &answer{ExitEmpty: "1", ExitUnattached: "0", DestroyUnattached: "off", RemainOnExit: "on",
		Panes: []paneFacts{{Dead: true, RemainOnExit: "on"}, {RemainOnExit: "on"}}}
	if c := checkExitOptions(facts(calm)); c.Status != StatusOK || !strings.Contains(c.Summary, "1 dead pane") {
		t.Errorf("exit options: %s %q, want ok naming the dead pane", c.Status, c.Summary)
	}
	const gib = 1 << 30
	big := &answer{HistoryLimit: 1000000, Panes: make([]paneFacts, 50)}
	for i := range big.Panes {
		big.Panes[i].HistoryLimit = 1000000
	}
	if c := checkHistory(facts(big), 8*gib); c.Status != StatusWarn {
		t.Errorf("history at its limits: %s %q, want warn (50 panes x 1M lines on 8 GiB)", c.Status, c.Summary)
	}
	full := &answer{HistoryLimit: 2000, Panes: []paneFacts{{HistoryBytes: gib, HistoryLimit: 2000}}}
	if c := checkHistory(facts(full), 8*gib); c.Status != StatusWarn {
		t.Errorf("history held: %s %q, want warn (1 GiB of 8)", c.Status, c.Summary)
	}
	small := &answer{HistoryLimit: 2000, Panes: []paneFacts{{HistoryBytes: 1000, HistoryLimit: 2000}}}
	if c := checkHistory(facts(small), 8*gib); c.Status != StatusOK {
		t.Errorf("small history: %s %q, want ok", c.Status, c.Summary)
	}
}

func TestKnownBadVersions(t *testing.T) {
	tests := []struct {
		version string
		clients []clientFacts
		status  Status
	}{
		{"3.7b", nil, StatusWarn},
		{"3.7c", nil, StatusWarn},
		{"3.6a", nil, StatusOK},
		{"3.3a", nil, StatusOK},
		{"3.2a", nil, StatusWarn},
		{"3.2a", []clientFacts{{PID: 1, Control: true}}, StatusWarn},
		{"3.3a", []clientFacts{{PID: 1, Control: true}}, StatusWarn}, // init is no tmux-mcp
		{"3.3a", []clientFacts{{PID: 1, Control: false}}, StatusOK},
		{"3.6a", []clientFacts{{PID: 1, Control: true}}, StatusWarn}, // the handshake crash
		{"3.7c", []clientFacts{{PID: 1, Control: true}}, StatusWarn}, // the spin regressions
		{"master", nil, StatusOK},
		{"master", []clientFacts{{PID: 1, Control: true}}, StatusOK},
	}
	for _, tt := range tests {
		f := &serverFacts{ans: &answer{Version: tt.version, Clients: tt.clients}}
		if c := checkServerKnownBad(f); c.Status != tt.status {
			t.Errorf("%s with clients %+v: %s (%s), want %s", tt.version, tt.clients, c.Status, c.Summary, tt.status)
		}
	}
	// The control-mode clients of other programs are named with what they
	// can do to the version: they are what can crash it.
	for _, tt := range []struct {
		version string
		says    []string
		not     []string
	}{
		{"3.2a", []string{deadPaneOutputCrash, identifyingClientCrash, "leaks every capture-pane", "(PIDs 1)"}, nil},
		{"3.3a", []string{identifyingClientCrash, "leaks every capture-pane", "(PIDs 1)"}, []string{deadPaneOutputCrash}},
		{"3.6b", []string{identifyingClientCrash, "(PIDs 1)"}, []string{deadPaneOutputCrash, "leaks every capture-pane"}},
		{"3.7c", []string{spinRegressions}, []string{identifyingClientCrash, "(PIDs 1)"}},
	} {
		f := &serverFacts{ans: &answer{Version: tt.version, Clients: []clientFacts{{PID: 1, Control: true}}}}
		c := checkServerKnownBad(f)
		for _, s := range tt.says {
			if !strings.Contains(c.Summary, s) {
				t.Errorf("%s with a control client of another program: %q, want it to say %q", tt.version, c.Summary, s)
			}
		}
		for _, s := range tt.not {
			if strings.Contains(c.Summary, s) {
				t.Errorf("%s with a control client of another program: %q, want it not to say %q", tt.version, c.Summary, s)
			}
		}
	}
	for _, tt := range []struct {
		raw    string
		status Status
		says   string
	}{
		{"tmux 3.7a", StatusWarn, spinRegressions},
		{"tmux 3.1c", StatusWarn, "older than 3.2"},
		{"tmux 3.6b", StatusOK, ""},
		{"tmux 3.3a", StatusOK, ""},
		{"tmux 3.2a", StatusWarn, deadPaneOutputCrash},
	} {
		v, err := tmux.ParseVersion(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		if c := checkBinary("tmux", "/usr/bin/tmux", v, nil); c.Status != tt.status || !strings.Contains(c.Summary, tt.says) {
			t.Errorf("binary %s: %s (%s), want %s saying %q", tt.raw, c.Status, c.Summary, tt.status, tt.says)
		}
	}
	if c := checkBinary("tmux", "", tmux.Version{}, errors.New("not found")); c.Status != StatusFail {
		t.Errorf("no binary: %s, want fail", c.Status)
	}
}

// TestKnownCrashesOf: a crashed server's known crashes come from the
// version the journal recorded for that server process, and from the tmux
// binary only when the journal has none (an upgrade can leave the binary
// newer than the server that crashed).
func TestKnownCrashesOf(t *testing.T) {
	ver := func(raw string) tmux.Version {
		v, err := tmux.ParseVersion(raw)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	snap := func(pid int, version string) *journalFacts {
		return &journalFacts{hasSnap: true, snap: SnapshotInfo{PID: pid, Version: version}}
	}
	tests := []struct {
		name    string
		client  tmux.Version
		journal *journalFacts
		want    []string // each reason ends with one of these, in order
		says    string   // and names whose version it is
	}{
		{"binary only", ver("tmux 3.3a"), nil, []string{identifyingClientCrash}, "the tmux binary is tmux 3.3a"},
		{"binary newer than the recorded server", ver("tmux 3.7c"), snap(42, "3.2a"),
			[]string{deadPaneOutputCrash, identifyingClientCrash}, "server PID 42 running tmux 3.2a"},
		{"binary older than the recorded server", ver("tmux 3.3a"), snap(42, "3.7c"), nil, ""},
		{"snapshot of another process", ver("tmux 3.7c"), snap(7, "3.3a"), nil, ""},
		{"nothing known", tmux.Version{}, nil, nil, ""},
	}
	for _, tt := range tests {
		f := &serverFacts{client: tt.client, journal: tt.journal, zombie: &zombie{PID: 42}}
		got := knownCrashesOf(f)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %q, want %d reasons", tt.name, got, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			if !strings.HasSuffix(got[i], w) || !strings.Contains(got[i], tt.says) {
				t.Errorf("%s: reason %d = %q, want it to name %q and end with %.40q", tt.name, i, got[i], tt.says, w)
			}
		}
	}
}
