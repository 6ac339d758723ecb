package httpmcp

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// minTokenLen is the shortest bearer token tmux-mcp accepts from a file or
// the environment: shorter ones can be guessed.
const minTokenLen = 16

// givenToken returns the bearer token the options give (from
// --http-token-file or $TMUX_MCP_HTTP_TOKEN), or "" when none is given and
// one is to be generated.
func givenToken(o Options) (string, error) {
	switch {
	case o.TokenFile != "" && o.Token != "":
		return "", errors.New("give --http-token-file or $TMUX_MCP_HTTP_TOKEN, not both")
	case o.Token != "":
		if len(o.Token) < minTokenLen {
			return "", fmt.Errorf("$TMUX_MCP_HTTP_TOKEN: want at least %d characters", minTokenLen)
		}
		return o.Token, nil
	case o.TokenFile != "":
		return readTokenFile(o.TokenFile)
	}
	return "", nil
}

// readTokenFile reads a bearer token from a file that only its owner may
// read, as ssh does with keys.
func readTokenFile(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("--http-token-file: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("--http-token-file %s: mode %04o lets others read it; chmod 600 it", path, perm)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--http-token-file: %w", err)
	}
	token := strings.TrimSpace(string(b))
	if len(token) < minTokenLen || strings.ContainsAny(token, " \t\r\n") {
		return "", fmt.Errorf("--http-token-file %s: want one token of at least %d characters without spaces", path, minTokenLen)
	}
	return token, nil
}

// newToken returns 256 random bits, base64url-encoded.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// tokenDir is where generated tokens go: $XDG_RUNTIME_DIR/tmux-mcp (per
// user, private, gone at logout), else $XDG_STATE_HOME/tmux-mcp, else
// ~/.local/state/tmux-mcp.
func tokenDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "tmux-mcp"), nil
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "tmux-mcp"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "tmux-mcp"), nil
	}
	return "", errors.New("no XDG_RUNTIME_DIR, XDG_STATE_HOME or HOME for the generated token; give --http-token-file")
}

// tokenFileName names the generated token of one listener after its
// address, so that servers on different addresses keep apart.
func tokenFileName(addr string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, strings.TrimPrefix(addr, "/"))
	if len(name) > 200 {
		name = name[len(name)-200:]
	}
	return "http-" + name + ".token"
}

// writeToken writes token into dir/name with mode 0600, through a
// temporary file renamed into place: no reader sees half a token, and a
// symbolic link planted at the name is replaced, not followed.
func writeToken(dir, name, token string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("token directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".http-token-*")
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	defer os.Remove(f.Name()) // after a successful rename there is nothing left to remove
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return "", fmt.Errorf("token file: %w", err)
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("token file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	path := filepath.Join(dir, name)
	if err := os.Rename(f.Name(), path); err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	return path, nil
}
