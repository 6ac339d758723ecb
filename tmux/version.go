package tmux

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a parsed tmux version: "3.3a" is {Major: 3, Minor: 3, Patch: "a"}.
// Development builds ("next-3.6", "master") set Dev; "master" has no numbers
// and compares newer than every release.
type Version struct {
	Major, Minor int
	Patch        string // letter suffix, "" for none
	Dev          bool   // next-X.Y or master
	Raw          string
}

// ParseVersion parses the output of `tmux -V` ("tmux 3.3a") or the server's
// #{version} ("3.3a", "next-3.6", "master", "openbsd-7.5").
func ParseVersion(s string) (Version, error) {
	raw := strings.TrimSpace(s)
	v := Version{Raw: raw}
	s = strings.TrimPrefix(raw, "tmux ")
	switch {
	case s == "master":
		v.Dev, v.Major = true, 1<<30
		return v, nil
	case strings.HasPrefix(s, "next-"):
		v.Dev = true
		s = strings.TrimPrefix(s, "next-")
	case strings.HasPrefix(s, "openbsd-"):
		// OpenBSD base builds its own tmux; treat it as current.
		v.Major = 1 << 30
		return v, nil
	}
	major, rest, ok := strings.Cut(s, ".")
	if !ok {
		return Version{}, fmt.Errorf("tmux: parse version %q: no minor number", raw)
	}
	var err error
	if v.Major, err = strconv.Atoi(major); err != nil {
		return Version{}, fmt.Errorf("tmux: parse version %q: %w", raw, err)
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 {
		return Version{}, fmt.Errorf("tmux: parse version %q: no minor number", raw)
	}
	v.Minor, _ = strconv.Atoi(rest[:i])
	v.Patch = rest[i:]
	if v.Patch != "" && (len(v.Patch) != 1 || v.Patch[0] < 'a' || v.Patch[0] > 'z') {
		if !v.Dev {
			return Version{}, fmt.Errorf("tmux: parse version %q: bad suffix %q", raw, v.Patch)
		}
	}
	return v, nil
}

// AtLeast reports whether v is at least major.minor (suffix ignored). A
// next-X.Y build counts as X.Y.
func (v Version) AtLeast(major, minor int) bool {
	if v.Major != major {
		return v.Major > major
	}
	return v.Minor >= minor
}

func (v Version) String() string { return v.Raw }
