package agentstub

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The names of the CLIs, as scripts/agent-clis prints them.
const (
	Claude = "claude"
	Codex  = "codex"
	Gemini = "gemini"
)

// FakeKey is the API key every CLI gets; the stub accepts any key.
const FakeKey = "sk-agentstub-0123456789abcdefghijklmnopqrstuvwxyz"

// Launch is how to start one CLI against a stub.
type Launch struct {
	// Env is the whole environment (for env -i): PATH, HOME, TERM, LANG,
	// and the CLI's own settings.
	Env []string
	// Argv is the executable and its arguments.
	Argv []string
	// Dir is the working directory: an empty, trusted project directory.
	Dir string
	// Home is the CLI's home directory (HOME).
	Home string
}

// Command is the command for a tmux pane: env -i with Env, then a plain
// /bin/sh (no rc files) that runs Argv in Dir as its child, the way a
// user's shell runs an agent, and stays in the pane when the CLI exits.
func (l Launch) Command() []string {
	cmd := append([]string{"env", "-i"}, l.Env...)
	return append(cmd, "/bin/sh", "-c", `cd "$0" && "$@"; exec /bin/sh`, l.Dir)
}

// CommandArgs is Command followed by Argv, as one argument list.
func (l Launch) CommandArgs() []string {
	return append(l.Command(), l.Argv...)
}

// Launch returns how to start the CLI name (Claude, Codex or Gemini), the
// executable exe, against s: a home and project directory in t.TempDir()
// with the config that brings the CLI straight to its input prompt, in
// the permission mode that asks before running a shell command.
func (s *Stub) Launch(t testing.TB, name, exe string) Launch {
	t.Helper()
	root := t.TempDir()
	l := Launch{Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project")}
	for _, d := range []string{l.Home, l.Dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("agentstub: %v", err)
		}
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	l.Env = []string{
		"PATH=" + path,
		"HOME=" + l.Home,
		"TERM=tmux-256color",
		"LANG=C.UTF-8",
		"COLORTERM=truecolor",
		"TMPDIR=" + filepath.Join(root, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(l.Home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(l.Home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(l.Home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(l.Home, ".local", "state"),
		"NO_BROWSER=1",
		"DO_NOT_TRACK=1",
	}
	if err := os.MkdirAll(filepath.Join(root, "tmp"), 0o700); err != nil {
		t.Fatalf("agentstub: %v", err)
	}
	l.Argv = []string{exe}
	var err error
	switch name {
	case Claude:
		err = s.claude(&l)
	case Codex:
		err = s.codex(&l)
	case Gemini:
		err = s.geminiConfig(&l)
	default:
		err = fmt.Errorf("unknown CLI %q", name)
	}
	if err != nil {
		t.Fatalf("agentstub: %s: %v", name, err)
	}
	return l
}

// writeFile writes a config file (mode 0600: it may hold the fake key),
// and its directory.
func writeFile(path, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("config dir: %w", err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// writeJSONFile writes v as an indented JSON config file.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return writeFile(path, string(b)+"\n")
}

// claude configures Claude Code: ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY
// at the stub, its config in CLAUDE_CONFIG_DIR with onboarding, theme,
// release notes, the key's approval and the project's trust done.
func (s *Stub) claude(l *Launch) error {
	cfg := filepath.Join(l.Home, ".claude")
	l.Env = append(l.Env,
		"CLAUDE_CONFIG_DIR="+cfg,
		"ANTHROPIC_BASE_URL="+s.URL,
		"ANTHROPIC_API_KEY="+FakeKey,
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL=1",
		"CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1",
	)
	version := claudeVersion(l.Argv[0])
	project := map[string]any{
		"hasTrustDialogAccepted":        true,
		"hasCompletedProjectOnboarding": true,
		"projectOnboardingSeenCount":    1,
		"allowedTools":                  []string{},
	}
	state := map[string]any{
		"hasCompletedOnboarding":        true,
		"lastOnboardingVersion":         version,
		"lastReleaseNotesSeen":          version,
		"theme":                         "dark",
		"autoUpdates":                   false,
		"numStartups":                   1,
		"firstStartTime":                "2025-01-01T00:00:00.000Z",
		"customApiKeyResponses":         map[string]any{"approved": []string{FakeKey[len(FakeKey)-20:]}, "rejected": []string{}},
		"projects":                      map[string]any{l.Dir: project},
		"hasSeenTasksHint":              true,
		"shiftEnterKeyBindingInstalled": true,
		"fullscreenUpsellSeenCount":     3,
	}
	if err := writeJSONFile(filepath.Join(cfg, ".claude.json"), state); err != nil {
		return err
	}
	settings := map[string]any{
		"permissions":         map[string]any{"defaultMode": "default", "disableAutoMode": "disable"},
		"autoUpdates":         false,
		"includeCoAuthoredBy": false,
		"spinnerTipsEnabled":  false,
	}
	return writeJSONFile(filepath.Join(cfg, "settings.json"), settings)
}

// claudeVersion is the version in exe's package path
// (.../claude-code@2.1.332/...), or a high one that counts as seen.
func claudeVersion(exe string) string {
	if _, after, ok := strings.Cut(exe, "claude-code@"); ok {
		v, _, _ := strings.Cut(after, "/")
		return v
	}
	return "99.0.0"
}

// codex configures Codex CLI: CODEX_HOME/config.toml with a model provider
// at the stub (Responses API, OPENAI_API_KEY), the project trusted,
// the default approval policy (on-request: the stub's shell call asks for
// escalation, which the user must approve), no update check, no
// analytics, no app-server daemon.
func (s *Stub) codex(l *Launch) error {
	home := filepath.Join(l.Home, ".codex")
	l.Env = append(l.Env,
		"CODEX_HOME="+home,
		"OPENAI_API_KEY="+FakeKey,
	)
	cfg := fmt.Sprintf(`model = "gpt-5-codex"
model_provider = "agentstub"
check_for_update_on_startup = false

[model_providers.agentstub]
name = "agentstub"
base_url = %q
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[projects.%q]
trust_level = "trusted"

[analytics]
enabled = false

# No shared app-server daemon: it would outlive the CLI (and the test).
[features]
daemon_auto_start = false

[notice]
hide_full_access_warning = true
hide_rate_limit_model_nudge = true
`, s.URL+"/v1", l.Dir)
	return writeFile(filepath.Join(home, "config.toml"), cfg)
}

// geminiConfig configures Gemini CLI: GEMINI_API_KEY and
// GOOGLE_GEMINI_BASE_URL at the stub, ~/.gemini/settings.json with API-key
// auth chosen, no update check, usage statistics or IDE nudge, and the
// project trusted.
func (s *Stub) geminiConfig(l *Launch) error {
	l.Env = append(l.Env,
		"GEMINI_API_KEY="+FakeKey,
		"GOOGLE_GEMINI_BASE_URL="+s.URL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	)
	dir := filepath.Join(l.Home, ".gemini")
	settings := map[string]any{
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": false},
		},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true, "enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"ide":       map[string]any{"enabled": false, "hasSeenNudge": true},
		"ui":        map[string]any{"theme": "Default"},
	}
	if err := writeJSONFile(filepath.Join(dir, "settings.json"), settings); err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(dir, "trustedFolders.json"), map[string]any{l.Dir: "TRUST_FOLDER"})
}
