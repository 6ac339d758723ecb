package packaging

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// mcpbCLI returns the pinned mcpb CLI (MCPB, which make release-check
// sets), skipping or failing like requireFile when it is not there.
func mcpbCLI(t *testing.T) string {
	t.Helper()
	p := os.Getenv("MCPB")
	if p == "" {
		if os.Getenv(releaseCheckEnv) == "1" {
			t.Fatal("MCPB (the mcpb CLI) not set")
		}
		t.Skip("MCPB (the mcpb CLI) not set: run make release-check")
	}
	return requireFile(t, p, "mcpb")
}

// bundleManifest is the part of an MCPB manifest these tests read.
type bundleManifest struct {
	Version string `json:"version"`
	Server  struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcp_config"`
	} `json:"server"`
	UserConfig map[string]struct {
		Default any `json:"default"`
	} `json:"user_config"`
	Compatibility struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
}

// TestMCPBManifest validates packaging/mcpb/manifest.json with the mcpb CLI.
func TestMCPBManifest(t *testing.T) {
	cli := mcpbCLI(t)
	out, err := exec.Command(cli, "validate", filepath.Join("mcpb", "manifest.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("mcpb validate mcpb/manifest.json: %v\n%s", err, out)
	}
}

// unzip extracts a bundle into dir, keeping the files' modes.
func unzip(t *testing.T, bundle, dir string) []string {
	t.Helper()
	zr, err := zip.OpenReader(bundle)
	if err != nil {
		t.Fatalf("%s: %v", bundle, err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		if strings.Contains(f.Name, "..") || strings.HasPrefix(f.Name, "/") {
			t.Fatalf("%s: entry %q outside the bundle", bundle, f.Name)
		}
		names = append(names, f.Name)
		path := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, f.Mode().Perm())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, r); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(names)
	return names
}

// TestMCPBBundles checks every bundle make mcpb built: its manifest
// validates, names its own platform and the release's version, and holds
// the binary; then it starts this platform's bundle the way Claude Desktop
// does (the manifest's command, args and env, ${__dirname} and user_config
// defaults filled in) and runs an MCP session with it.
func TestMCPBBundles(t *testing.T) {
	cli := mcpbCLI(t)
	m, _ := readDist(t)
	for _, p := range platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		t.Run(p, func(t *testing.T) {
			bundle := requireFile(t, filepath.Join(distDir, "mcpb", fmt.Sprintf("tmux-mcp_%s_%s_%s.mcpb", m.Version, goos, goarch)), "mcpb")
			dir := t.TempDir()
			if got, want := unzip(t, bundle, dir), []string{"manifest.json", "server/tmux-mcp"}; !slices.Equal(got, want) {
				t.Errorf("bundle holds %v, want %v", got, want)
			}
			if out, err := exec.Command(cli, "validate", filepath.Join(dir, "manifest.json")).CombinedOutput(); err != nil {
				t.Fatalf("mcpb validate: %v\n%s", err, out)
			}
			var man bundleManifest
			readJSON(t, filepath.Join(dir, "manifest.json"), &man)
			if man.Version != m.Version || !slices.Equal(man.Compatibility.Platforms, []string{goos}) {
				t.Errorf("manifest version %q, platforms %v; want %q, [%s]", man.Version, man.Compatibility.Platforms, m.Version, goos)
			}
			fi, err := os.Stat(filepath.Join(dir, man.Server.EntryPoint))
			if err != nil || fi.Mode().Perm()&0o111 == 0 {
				t.Fatalf("entry point %s: %v, mode %v: want an executable", man.Server.EntryPoint, err, fi.Mode())
			}
			if goos != runtime.GOOS || goarch != runtime.GOARCH {
				return
			}
			fill := func(s string) string {
				s = strings.ReplaceAll(s, "${__dirname}", dir)
				for k, v := range man.UserConfig {
					s = strings.ReplaceAll(s, "${user_config."+k+"}", fmt.Sprint(v.Default))
				}
				if strings.Contains(s, "${") {
					t.Fatalf("manifest value %q has a variable this test does not fill", s)
				}
				return s
			}
			tm := tmuxtest.New(t)
			tm.Start("main")
			env := serverEnv(tm)
			for k, v := range man.Server.MCPConfig.Env {
				env = append(env, k+"="+fill(v))
			}
			var args []string
			for _, a := range man.Server.MCPConfig.Args {
				args = append(args, fill(a))
			}
			if got := serveSession(t, dir, fill(man.Server.MCPConfig.Command), args, env); got != m.Version {
				t.Errorf("initialize serverInfo.version = %q, want %q", got, m.Version)
			}
		})
	}
}
