package hosts

import (
	"regexp"
	"strings"
)

// specStart is how a --host spec begins: a host name and '='.
var specStart = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}=`)

// SplitSpecs splits a --host value (or $TMUX_MCP_HOSTS) into its specs:
// at spaces, tabs and newlines, and at a comma that a NAME= follows. A
// comma inside a URL (a password's "u:p,w@h", which is refused) stays in
// it, so that no part of a password is read as a host or a port and
// repeated in an error.
func SplitSpecs(v string) []string {
	var out []string
	for _, w := range strings.Fields(v) {
		start := 0
		for i := 0; i < len(w); i++ {
			if w[i] == ',' && (i+1 == len(w) || specStart.MatchString(w[i+1:])) {
				if i > start {
					out = append(out, w[start:i])
				}
				start = i + 1
			}
		}
		if start < len(w) {
			out = append(out, w[start:])
		}
	}
	return out
}

// Redact returns s with the password of every URL in it replaced by
// "xxxxx", as url.URL.Redacted does, for text that repeats a value given
// to --host (a refused one too: the flag package echoes it). In each
// word (split at white space, and at a comma before NAME= as SplitSpecs
// splits), the user information ends at the word's last '@' and begins
// after "://" (else after NAME=, else at the word's start); from its
// first ':' on it is the password. What cannot be told apart is
// redacted: better a user name too many than a password.
func Redact(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !isSpace(s[i]) && (s[i] != ',' || !specStart.MatchString(s[i+1:])) {
			continue
		}
		b.WriteString(redactWord(s[start:i]))
		if i < len(s) {
			b.WriteByte(s[i])
		}
		start = i + 1
	}
	return b.String()
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// redactWord redacts the password of one word: a URL, or NAME=URL.
func redactWord(w string) string {
	at := strings.LastIndexByte(w, '@')
	if at < 0 {
		return w
	}
	from := 0
	if i := strings.Index(w[:at], "://"); i >= 0 {
		from = i + 3
	} else if i := strings.IndexByte(w[:at], '='); i >= 0 && !strings.ContainsAny(w[:i], ":@") {
		from = i + 1
	}
	colon := strings.IndexByte(w[from:at], ':')
	if colon < 0 {
		return w
	}
	return w[:from+colon+1] + "xxxxx" + w[at:]
}
