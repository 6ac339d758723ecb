package diagnostics

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/shellquote"
)

// fileTimes are a file's timestamps. Age-based cleaners go by the newest
// of them; using a socket changes none of them (tmux changes the mode, and
// so the ctime, only when the attached state flips).
type fileTimes struct {
	Atime, Mtime, Ctime time.Time
}

func (t fileTimes) newest() time.Time {
	n := t.Mtime
	for _, x := range []time.Time{t.Atime, t.Ctime} {
		if x.After(n) {
			n = x
		}
	}
	return n
}

// tmpfilesRule is a systemd-tmpfiles line that ages out files under a
// path.
type tmpfilesRule struct {
	File string // the tmpfiles.d file
	Line string
	Age  time.Duration
}

// tmpfilesDirs are read in order of precedence: a file name found in an
// earlier directory masks the same name in later ones (tmpfiles.d(5)).
var tmpfilesDirs = []string{"/etc/tmpfiles.d", "/run/tmpfiles.d", "/usr/local/lib/tmpfiles.d", "/usr/lib/tmpfiles.d", "/lib/tmpfiles.d"}

// tmpfilesAge returns the rule with the shortest age that cleans path (a
// socket file), unless an x or X line excludes it.
func tmpfilesAge(m Machine, path string) (tmpfilesRule, bool) {
	seen := map[string]bool{}
	var files []string
	for _, d := range tmpfilesDirs {
		matches, _ := m.Glob(filepath.Join(d, "*.conf"))
		for _, f := range matches {
			if !seen[filepath.Base(f)] {
				seen[filepath.Base(f)] = true
				files = append(files, f)
			}
		}
	}
	var best tmpfilesRule
	found := false
	for _, file := range files {
		b, err := m.ReadFile(file)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			f := strings.Fields(line)
			if len(f) < 2 || strings.HasPrefix(f[0], "#") {
				continue
			}
			typ := strings.TrimRight(f[0], "!-=~^+")
			switch typ {
			case "x": // ignore the path and everything below it
				if underGlob(f[1], path) {
					return tmpfilesRule{}, false
				}
			case "X": // ignore the path itself only
				if ok, _ := filepath.Match(f[1], path); ok {
					return tmpfilesRule{}, false
				}
			case "d", "D", "e", "v", "q", "Q", "C":
				if len(f) < 6 || f[5] == "-" || !underGlob(f[1], filepath.Dir(path)) {
					continue
				}
				age, err := parseSystemdSpan(strings.TrimPrefix(f[5], "~"))
				if err != nil || age <= 0 {
					continue
				}
				if !found || age < best.Age {
					best, found = tmpfilesRule{File: file, Line: line, Age: age}, true
				}
			}
		}
	}
	return best, found
}

// underGlob reports whether path is pattern or lies below a path that
// matches it.
func underGlob(pattern, path string) bool {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if ok, _ := filepath.Match(pattern, p); ok {
			return true
		}
		if p == "/" || p == "." {
			return false
		}
	}
}

// spanPart matches a number and its unit, the longest unit name first.
var spanPart = regexp.MustCompile(`^(\d+)(minutes|seconds|months|minute|second|month|weeks|hours|years|usec|msec|days|week|hour|year|min|sec|day|us|ms|hr|s|m|h|d|w|M|y)?`)

// parseSystemdSpan parses a systemd time span without spaces ("10d",
// "1w", "1d12h", "30min"; a bare number is seconds).
func parseSystemdSpan(s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("diagnostics: empty time span")
	}
	units := map[string]time.Duration{
		"us": time.Microsecond, "usec": time.Microsecond, "ms": time.Millisecond, "msec": time.Millisecond,
		"": time.Second, "s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
		"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
		"h": time.Hour, "hr": time.Hour, "hour": time.Hour, "hours": time.Hour,
		"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
		"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
		"M": 30*24*time.Hour + 10*time.Hour + 30*time.Minute, "month": 30*24*time.Hour + 10*time.Hour + 30*time.Minute,
		"months": 30*24*time.Hour + 10*time.Hour + 30*time.Minute,
		"y":      365*24*time.Hour + 6*time.Hour, "year": 365*24*time.Hour + 6*time.Hour, "years": 365*24*time.Hour + 6*time.Hour,
	}
	var total time.Duration
	for rest := s; rest != ""; {
		m := spanPart.FindStringSubmatch(rest)
		if m == nil {
			return 0, fmt.Errorf("diagnostics: bad time span %q", s)
		}
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("diagnostics: bad time span %q: %w", s, err)
		}
		total += time.Duration(n) * units[m[2]]
		rest = rest[len(m[0]):]
	}
	return total, nil
}

// checkCleaner reports whether an age-based cleaner may delete the socket
// file while its server runs (tmux then prints "error connecting to ...
// (No such file or directory)" although the server is alive).
func checkCleaner(m Machine, path string, exists bool, times fileTimes, now time.Time) Check {
	c := Check{ID: "socket.cleaner", Title: "Temporary-file cleaner"}
	var age time.Duration
	var who string
	switch m.GOOS {
	case "linux":
		rule, ok := tmpfilesAge(m, path)
		if !ok {
			c.Status, c.Summary = StatusOK, "no age-based systemd-tmpfiles rule covers "+filepath.Dir(path)
			return c
		}
		c.fact("rule", rule.File+": "+rule.Line)
		age, who = rule.Age, "systemd-tmpfiles"
	case "darwin":
		days, covered, src := darwinTmpCleaner(m, path)
		if !covered {
			c.Status, c.Summary = StatusOK, "not under /private/tmp, which macOS cleans daily"
			return c
		}
		c.fact("rule", src)
		age, who = time.Duration(days)*24*time.Hour, "the macOS /tmp cleaner"
	default:
		c.Status, c.Summary = StatusSkipped, "skipped: no known cleaner on "+m.GOOS
		return c
	}
	c.fact("cleans after", roundDuration(age).String()+" without a change")
	c.Remedy = "move the socket out of the cleaned tree (tmux-mcp --socket-path $XDG_RUNTIME_DIR/tmux-mcp.sock, or TMUX_TMPDIR=$XDG_RUNTIME_DIR), or touch it periodically"
	if !exists {
		c.Status, c.Summary = StatusOK, fmt.Sprintf("%s deletes files here after %v without a change; there is no socket file now", who, roundDuration(age))
		return c
	}
	idle := now.Sub(times.newest())
	c.fact("socket unchanged for", roundDuration(idle).String())
	if idle > age/2 {
		c.Status = StatusWarn
		c.Summary = fmt.Sprintf("the socket has not changed for %v; %s deletes it after %v, and tmux then cannot reach its live server",
			roundDuration(idle), who, roundDuration(age))
		c.Commands = []string{"touch " + shellquote.Quote(path)}
		return c
	}
	c.Status = StatusOK
	c.Summary = fmt.Sprintf("%s deletes files here after %v without a change; the socket changed %v ago", who, roundDuration(age), roundDuration(idle))
	c.Remedy = ""
	return c
}
