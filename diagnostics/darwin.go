package diagnostics

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The macOS checks. They read through Machine, so they compile and are
// tested everywhere; off macOS the report lists them as skipped.

// darwinTmpCleaner reports whether path lies under /private/tmp (which
// /tmp resolves to), and after how many days without access the daily
// cleaner deletes files there (daily_clean_tmps_days, 3 by default; since
// macOS 14 /usr/libexec/tmp_cleaner does the same job).
func darwinTmpCleaner(m Machine, path string) (days int, covered bool, source string) {
	if !underGlob("/private/tmp", path) && !underGlob("/tmp", path) {
		return 0, false, ""
	}
	days, source = 3, "macOS default: daily_clean_tmps_days=3"
	for _, f := range []string{"/etc/defaults/periodic.conf", "/etc/periodic.conf", "/etc/periodic.conf.local"} {
		b, err := m.ReadFile(f)
		if err != nil {
			continue
		}
		if v, ok := shellVar(string(b), "daily_clean_tmps_enable"); ok && !strings.EqualFold(v, "yes") {
			return 0, false, ""
		}
		if v, ok := shellVar(string(b), "daily_clean_tmps_days"); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				days, source = n, f+": daily_clean_tmps_days="+v
			}
		}
	}
	return days, true, source
}

// shellVar returns the last assignment NAME="value" in a shell fragment.
func shellVar(text, name string) (string, bool) {
	re := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `=["']?([^"'\s#]*)`)
	all := re.FindAllStringSubmatch(text, -1)
	if len(all) == 0 {
		return "", false
	}
	return all[len(all)-1][1], true
}

// minLaunchdFiles is the soft fd limit below which a tmux server started
// by launchd is at risk: launchd's default is 256, and a server that
// reaches its limit livelocks for good.
const minLaunchdFiles = 1024

// checkDarwinFDLimit reports the fd limit launchd gives the processes it
// starts, which a tmux server started from a launchd job (or an app
// launched by one) inherits.
func checkDarwinFDLimit(ctx context.Context, m Machine) Check {
	c := Check{ID: "macos.launchd_fd_limit", Title: "launchd fd limit (macOS)"}
	if m.GOOS != "darwin" {
		c.Status, c.Summary = StatusSkipped, "skipped: macOS only (this is "+m.GOOS+")"
		return c
	}
	out, err := m.LaunchdMaxfiles(ctx)
	if err != nil {
		c.Status, c.Summary = StatusSkipped, "skipped: cannot run launchctl: "+err.Error()
		return c
	}
	f := strings.Fields(out)
	if len(f) < 3 || f[0] != "maxfiles" {
		c.Status, c.Summary = StatusSkipped, fmt.Sprintf("skipped: cannot read `launchctl limit maxfiles` output %q", strings.TrimSpace(out))
		return c
	}
	c.fact("soft", f[1])
	c.fact("hard", f[2])
	soft, err := strconv.Atoi(f[1])
	if err != nil || soft >= minLaunchdFiles { // "unlimited" or high enough
		c.Status, c.Summary = StatusOK, "launchd gives its jobs a soft fd limit of "+f[1]
		return c
	}
	c.Status = StatusWarn
	c.Summary = fmt.Sprintf("launchd gives its jobs a soft fd limit of %d: a tmux server started from one livelocks when it reaches it", soft)
	c.Remedy = "raise the limit for launchd jobs, or start tmux from a shell with a higher ulimit -n (tmux-mcp raises the limit of servers it starts)"
	c.Commands = []string{"sudo launchctl limit maxfiles 65536 200000"}
	return c
}

// checkDarwinPTYs compares the pseudo-terminals in use (/dev/ttys*) with
// kern.tty.ptmx_max.
func checkDarwinPTYs(m Machine) Check {
	c := Check{ID: "system.ptys", Title: "Pseudo-terminals"}
	v, err := m.Sysctl("kern.tty.ptmx_max")
	if err != nil {
		c.Status, c.Summary = StatusSkipped, "skipped: cannot read kern.tty.ptmx_max: "+err.Error()
		return c
	}
	limit, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil {
		c.Status, c.Summary = StatusSkipped, fmt.Sprintf("skipped: kern.tty.ptmx_max is %q", v)
		return c
	}
	ttys, _ := m.Glob("/dev/ttys[0-9]*")
	return ptyLevel(c, uint64(len(ttys)), limit, "kern.tty.ptmx_max", "sudo sysctl -w kern.tty.ptmx_max=999")
}

// ptyLevel fills in a PTY check from the count in use and the maximum.
func ptyLevel(c Check, used, limit uint64, limitName, raise string) Check {
	c.fact("in use", used)
	c.fact(limitName, limit)
	c.Status, c.Summary = levelStatus(used, limit), fmt.Sprintf("%d of %d pseudo-terminals in use (%s)", used, limit, percent(used, limit))
	if c.Status != StatusOK {
		c.Summary += ": new panes fail with \"fork failed\" at the limit (the server stays up)"
		c.Remedy = "close panes (dead panes kept by remain-on-exit hold theirs), find processes that leak them, or raise the limit"
		c.Commands = []string{raise}
	}
	return c
}

// Thresholds, as fractions of a limit, at which a resource warns and
// fails (the supervisor's defaults: it warns at 70% and refuses new panes
// at 90%).
const (
	warnRatio = 0.7
	failRatio = 0.9
)

func levelStatus(used, limit uint64) Status {
	if limit == 0 {
		return StatusOK
	}
	r := float64(used) / float64(limit)
	switch {
	case r >= failRatio:
		return StatusFail
	case r >= warnRatio:
		return StatusWarn
	}
	return StatusOK
}
