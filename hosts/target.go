package hosts

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Target is one remote host: the name tools call it by and how ssh
// reaches it.
type Target struct {
	// Name is what the tools' host argument says ("build", "gpu1").
	Name string
	// User and Host are ssh's login and destination; Port is 0 for ssh's
	// default (or the ssh config's).
	User, Host string
	Port       int
	// Command is the remote command line that starts tmux-mcp (the
	// URL's ?command=); empty: tmux-mcp from the remote PATH, else the
	// copy --host-install puts in the remote user's cache.
	Command string
}

// Reserved names: the local machine, and every host at once.
const (
	Local = "local"
	All   = "all"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$`)

// userRE admits the user names of every system ssh logs into: letters,
// digits, '_', '.', '-' and '@' (a domain account's user@domain), never a
// leading '-' or '.' (ssh would read an option), and nothing a shell or
// ssh's own %-expansion reads ($, `, ', ", ;, |, &, (, ), %, spaces,
// control characters).
var userRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.@-]{0,255}$`)

// hostRE admits host names, IPv4 and bracketed IPv6 literals; never a
// leading "-", which ssh would read as an option.
var hostRE = regexp.MustCompile(`^[A-Za-z0-9_.:%\[\]-]+$`)

// ParseTarget parses NAME=ssh://[user@]host[:port][?command=...]. Its
// errors never repeat a password the value holds (Redact).
func ParseTarget(s string) (Target, error) {
	name, raw, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return Target{}, fmt.Errorf("host %q: want NAME=ssh://[user@]host[:port]", Redact(s))
	}
	if !nameRE.MatchString(name) {
		return Target{}, fmt.Errorf("host name %q: want 1-32 letters, digits, '_', '.' or '-', starting with a letter or digit", Redact(name))
	}
	if name == Local || name == All {
		return Target{}, fmt.Errorf("host name %q is reserved (%q is this machine, %q every host)", name, Local, All)
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, password and all.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Target{}, fmt.Errorf("host %s: %q: %w", name, Redact(raw), err)
	}
	if u.Scheme != "ssh" {
		return Target{}, fmt.Errorf("host %s: %q: only ssh:// is supported", name, Redact(raw))
	}
	t := Target{Name: name, Host: u.Hostname(), Command: u.Query().Get("command")}
	if t.Host == "" || strings.HasPrefix(t.Host, "-") || !hostRE.MatchString(t.Host) {
		return Target{}, fmt.Errorf("host %s: %q is not a host name", name, u.Host)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return Target{}, fmt.Errorf("host %s: no password in the URL: tmux-mcp never handles one (use ssh keys or the ssh agent)", name)
		}
		t.User = u.User.Username()
		if !userRE.MatchString(t.User) {
			return Target{}, fmt.Errorf("host %s: %q is not a user name: want letters, digits, '_', '.', '-' or '@', "+
				"starting with a letter, digit or '_'", name, t.User)
		}
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Target{}, fmt.Errorf("host %s: port %q: want 1-65535", name, p)
		}
		t.Port = n
	}
	if u.Path != "" && u.Path != "/" {
		return Target{}, fmt.Errorf("host %s: %q: a path means nothing here (the remote command goes in ?command=)", name, Redact(u.Path))
	}
	return t, nil
}

// ParseTargets parses several targets, refusing a name given twice.
func ParseTargets(specs []string) ([]Target, error) {
	var out []Target
	seen := map[string]bool{}
	for _, s := range specs {
		t, err := ParseTarget(s)
		if err != nil {
			return nil, err
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("host %s: named twice", t.Name)
		}
		seen[t.Name] = true
		out = append(out, t)
	}
	return out, nil
}

// String is the target as given: ssh://[user@]host[:port].
func (t Target) String() string {
	u := url.URL{Scheme: "ssh", Host: t.Host}
	if t.Port != 0 {
		u.Host = t.Host + ":" + strconv.Itoa(t.Port)
	}
	if t.User != "" {
		u.User = url.User(t.User)
	}
	return u.String()
}

// ErrHostDown is the error of a call to a host that is not connected, or
// whose connection was lost during the call.
var ErrHostDown = errors.New("host unreachable")

// ErrUnknownHost is the error of a call naming a host that was not
// configured.
var ErrUnknownHost = errors.New("unknown host")
