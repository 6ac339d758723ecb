package packaging

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// releaseCheckEnv, when "1", turns a missing artifact into a failure
// (make release-check sets it after building them all).
const releaseCheckEnv = "TMUX_MCP_RELEASE_CHECK"

// root is the repository's root, from this package's directory.
const root = ".."

// distDir is goreleaser's output directory.
var distDir = filepath.Join(root, "dist")

// requireFile returns path when it exists. Otherwise it skips the test,
// naming the make target that builds the file, or fails it under
// make release-check.
func requireFile(t *testing.T, path, target string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv(releaseCheckEnv) == "1" {
			t.Fatalf("%s: %v (make %s should have built it)", path, err, target)
		}
		t.Skipf("%s not built: run make %s (make release-check builds everything and runs these tests)", path, target)
	}
	return path
}

// metadata is what goreleaser writes to dist/metadata.json.
type metadata struct {
	ProjectName string `json:"project_name"`
	Version     string `json:"version"`
	Commit      string `json:"commit"`
	Date        string `json:"date"`
}

// artifact is one entry of dist/artifacts.json.
type artifact struct {
	Name   string         `json:"name"`
	Path   string         `json:"path"`
	Goos   string         `json:"goos"`
	Goarch string         `json:"goarch"`
	Type   string         `json:"type"`
	Extra  map[string]any `json:"extra"`
}

// readDist reads dist/metadata.json and dist/artifacts.json.
func readDist(t *testing.T) (metadata, []artifact) {
	t.Helper()
	var m metadata
	readJSON(t, requireFile(t, filepath.Join(distDir, "metadata.json"), "release-snapshot"), &m)
	var a []artifact
	readJSON(t, requireFile(t, filepath.Join(distDir, "artifacts.json"), "release-snapshot"), &a)
	return m, a
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
