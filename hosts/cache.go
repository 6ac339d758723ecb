package hosts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// The install cache on a host: --host-install copies this binary to
// ${XDG_CACHE_HOME:-$HOME/.cache}/tmux-mcp/bin/tmux-mcp there (an
// XDG_CACHE_HOME that is not absolute is ignored, as the XDG spec says).
// Whoever can change that file or a directory above it runs code as the
// user at the next connection, so before the remote shell runs the copy
// it checks (cacheCheck):
//
//   - the file is a regular file, not a symbolic link, owned by the user
//     or root, and writable by no one else;
//   - its directory and every one above it, after symbolic links, up to
//     the home directory (to / when the cache lies outside it) belong to
//     the user or root and are writable by no one else. Only above the
//     two directories the install makes (tmux-mcp/bin), a directory owned
//     by root with the sticky bit (as /tmp) may be writable by others:
//     nobody else can rename or replace what the user made in it;
//   - its SHA-256 is this binary's: the cache holds what --host-install
//     put there and nothing else. A copy of another build (an earlier
//     --host-install by another version, or changed since) is replaced by
//     this one with --host-install; without it the host is down, saying
//     so, until --host-install or a tmux-mcp on the host's PATH.
//
// A check that fails prints a line starting with untrustedMark (the file
// and why) or otherBuildMark, and the copy does not run. The script is
// POSIX sh and find (-prune, -user, -perm, -type), no GNU-only flags, and
// holds no '!' and no newline (a csh login shell parses it first).

// Marks the remote shell prints when it refuses the cached copy.
const (
	untrustedMark  = "tmux-mcp: refusing to run "
	otherBuildMark = "tmux-mcp: another build in the install cache: "
)

var (
	errUntrusted  = errors.New("the installed tmux-mcp on the host is not safe to run")
	errOtherBuild = errors.New("the installed tmux-mcp on the host is not this binary")
)

// cacheFuncs is the shell code that finds the cache (x, c) and defines
// the checks: dirs DIR (DIR, its parent and what is above them) and
// trusted (the copy c). Two finds check every path at once, each printing
// the paths that fail (a '-o -print' stands for the '!' csh would
// expand): the install's own (the copy, bin, tmux-mcp) must belong to the
// user or root and be writable by no one else; above them a root-owned
// sticky directory may be writable.
const cacheFuncs = `x=${XDG_CACHE_HOME:-}; case $x in /*) ;; *) x=$HOME/.cache;; esac; c=$x/tmux-mcp/bin/tmux-mcp; u=$(id -u); ` +
	`bad() { echo "` + untrustedMark + `$c: $1 ($(ls -ld "$2" 2>&1)); it must belong to you (uid $u) or root and be writable by no one else" >&2; exit 126; }; ` +
	`first() { IFS= read -r l || :; echo "$l"; }; ` +
	`dirs() { d=$(cd -P "$1" 2>/dev/null && pwd -P) || bad "directory $1 cannot be entered" "$1"; p=${d%/*}; [ -n "$p" ] || p=/; ` +
	`f=$(find "$d" "$p" ${2:+"$2"} -prune \( -user "$u" -o -user 0 -o -print \) \( -perm -020 -o -perm -002 \) -print 2>/dev/null | first); ` +
	`[ -z "$f" ] || bad "$f is not safe" "$f"; h=$(cd -P "$HOME" 2>/dev/null && pwd -P) || h=; set --; q=$p; ` +
	`while :; do if [ "$q" = "$h" ] || [ "$q" = / ]; then break; fi; q=${q%/*}; [ -n "$q" ] || q=/; set -- "$@" "$q"; done; [ $# -gt 0 ] || return 0; ` +
	`f=$(find "$@" -prune \( -user "$u" -o -user 0 -o -print \) \( -perm -020 -o -perm -002 \) \( -type d -user 0 -perm -1000 -o -print \) 2>/dev/null | first); ` +
	`[ -z "$f" ] || bad "directory $f is not safe" "$f"; }; ` +
	// sum: openssl's is the fastest (SHA extensions: 0.02 s of CPU for
	// 33 MB here, coreutils' 0.15 s), then coreutils, macOS, BSD.
	`sum() { s=$(openssl dgst -sha256 "$1" 2>/dev/null | awk '{print $NF}'); ` +
	`[ "${#s}" -eq 64 ] || s=$( (sha256sum "$1" || shasum -a 256 "$1" || sha256 -q "$1") 2>/dev/null | awk '{print $1}'); echo "$s"; }; ` +
	// trusted: the copy c, by its physical path from then on (what runs
	// is what was checked, whatever a symbolic link on the way), with its
	// directories, and its checksum against w.
	`trusted() { d=$(cd -P "${c%/*}" 2>/dev/null && pwd -P) || bad "its directory cannot be entered" "${c%/*}"; c=$d/tmux-mcp; ` +
	`if [ -L "$c" ]; then bad "it is a symbolic link" "$c"; fi; [ -f "$c" ] || bad "it is not a regular file" "$c"; ` +
	`dirs "$d" "$c"; s=$(sum "$c"); ` +
	`if [ -n "$w" ] && [ "$s" = "$w" ]; then :; else echo "` + otherBuildMark + `$c has sha256 ${s:-unknown}, this tmux-mcp is ${w:-unknown}" >&2; exit 125; fi; }; `

// startScript is what the host runs to start tmux-mcp: from the PATH, else
// the cache (the cache first when installing is allowed: a copy put there
// replaces an older one on the PATH), checked when it is the cache's;
// sum is this binary's SHA-256 ("" when unknown: the cache is then
// refused).
func startScript(install bool, sum string) string {
	find := `b=$(command -v tmux-mcp) || b=$c; `
	if install {
		find = `if [ -e "$c" ] || [ -L "$c" ]; then b=$c; else b=$(command -v tmux-mcp) || b=$c; fi; `
	}
	return `w=` + sum + `; ` + cacheFuncs + find +
		`if [ "$b" = "$c" ]; then if [ -e "$c" ] || [ -L "$c" ]; then trusted; b=$c; else echo "tmux-mcp: not installed on this host" >&2; exit 127; fi; fi; ` +
		`exec "$b" "$@"`
}

// installScript copies its stdin into the cache, checked against the
// SHA-256 $1, after checking the directories it writes into as a start
// checks them: it never writes where another user could change the copy.
const installScript = cacheFuncs + `set -e; umask 077; mkdir -p "${c%/*}"; chmod 700 "${c%/*}"; dirs "${c%/*}"; ` +
	`n=${c%/*}/.tmux-mcp.$$; cat >"$n"; s=$(sum "$n"); ` +
	`if [ "$s" = "$1" ]; then :; else rm -f "$n"; echo "checksum mismatch: copied ${s:-unknown}" >&2; exit 1; fi; ` +
	`chmod 755 "$n"; mv -f "$n" "$c"`

// refusal classifies why the remote shell did not start tmux-mcp, from
// ssh's end (its stderr's tail): errUntrusted, errOtherBuild, or nil.
func refusal(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, untrustedMark):
		return fmt.Errorf("%w: %w", errUntrusted, err)
	case strings.Contains(msg, otherBuildMark):
		return fmt.Errorf("%w: %w", errOtherBuild, err)
	}
	return nil
}

// selfBinary is this binary's path and SHA-256, read once.
type selfBinary struct {
	path string
	once sync.Once
	sum  string
	err  error
}

func (s *selfBinary) sha256() (string, error) {
	s.once.Do(func() {
		path := s.path
		if path == "" {
			if path, s.err = os.Executable(); s.err != nil {
				return
			}
		}
		f, err := os.Open(path)
		if err != nil {
			s.err = err
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			s.err = err
			return
		}
		s.sum = hex.EncodeToString(h.Sum(nil))
	})
	return s.sum, s.err
}
