package packaging

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	schemaPath     = filepath.Join("registry", "server.schema.json")
	serverJSONPath = filepath.Join(root, "server.json")
	launcherPath   = filepath.Join("npm", "tmux-mcp", "package.json")
)

// registrySchema compiles the copy of the registry's server.json schema,
// with format assertions on (uri, email).
func registrySchema(t *testing.T) (*jsonschema.Schema, string) {
	t.Helper()
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	id, _ := doc.(map[string]any)["$id"].(string)
	if id == "" {
		t.Fatalf("%s has no $id", schemaPath)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compile %s: %v", schemaPath, err)
	}
	return s, id
}

func validateServerJSON(s *jsonschema.Schema, b []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// TestSchemaCopy checks that the schema copy is the one its README records.
func TestSchemaCopy(t *testing.T) {
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	readme, err := os.ReadFile(filepath.Join("registry", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(sum[:]); !strings.Contains(string(readme), "`"+got+"`") {
		t.Errorf("%s has sha256 %s, which registry/README.md does not record: update its table with the copy's source and date", schemaPath, got)
	}
}

// serverEntry is the part of server.json the consistency checks read.
type serverEntry struct {
	Schema   string `json:"$schema"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Packages []struct {
		RegistryType    string `json:"registryType"`
		RegistryBaseURL string `json:"registryBaseUrl"`
		Identifier      string `json:"identifier"`
		Version         string `json:"version"`
		Transport       struct {
			Type string `json:"type"`
		} `json:"transport"`
	} `json:"packages"`
}

// TestServerJSON validates server.json against the registry's schema and
// checks what the registry checks beyond it: the npm package it names
// claims the server's name (mcpName), and versions are exact.
func TestServerJSON(t *testing.T) {
	s, id := registrySchema(t)
	var launcher struct {
		Name    string `json:"name"`
		MCPName string `json:"mcpName"`
	}
	readJSON(t, launcherPath, &launcher)

	check := func(t *testing.T, path, wantVersion string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := validateServerJSON(s, b); err != nil {
			t.Fatalf("%s does not validate against %s:\n%v", path, schemaPath, err)
		}
		var e serverEntry
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		if e.Schema != id {
			t.Errorf("%s: $schema = %q, want the schema copy's $id %q", path, e.Schema, id)
		}
		if e.Name != launcher.MCPName {
			t.Errorf("%s: name = %q, want %s's mcpName %q (the registry's proof of ownership)", path, e.Name, launcherPath, launcher.MCPName)
		}
		if e.Version != wantVersion {
			t.Errorf("%s: version = %q, want %q", path, e.Version, wantVersion)
		}
		exact := regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)
		if len(e.Packages) != 1 {
			t.Fatalf("%s: %d packages, want the npm package only", path, len(e.Packages))
		}
		p := e.Packages[0]
		got := []string{p.RegistryType, p.RegistryBaseURL, p.Identifier, p.Version, p.Transport.Type}
		want := []string{"npm", "https://registry.npmjs.org", launcher.Name, wantVersion, "stdio"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: package (type, registry, identifier, version, transport) = %q, want %q", path, got, want)
		}
		if !exact.MatchString(p.Version) {
			t.Errorf("%s: package version %q is not an exact semantic version", path, p.Version)
		}
	}
	t.Run("committed", func(t *testing.T) { check(t, serverJSONPath, "0.0.0") })
	t.Run("dist", func(t *testing.T) {
		path := requireFile(t, filepath.Join(distDir, "registry", "server.json"), "npm-pack")
		m, _ := readDist(t)
		check(t, path, m.Version)
	})
}

// TestServerJSONSchemaRejects checks that the schema copy, as compiled,
// catches what the registry refuses: the validation above is not vacuous.
func TestServerJSONSchemaRejects(t *testing.T) {
	s, _ := registrySchema(t)
	b, err := os.ReadFile(serverJSONPath)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(m map[string]any)
	}{
		{"no name", func(m map[string]any) { delete(m, "name") }},
		{"name without a namespace", func(m map[string]any) { m["name"] = "tmux-mcp" }},
		{"description over 100 characters", func(m map[string]any) { m["description"] = strings.Repeat("x", 101) }},
		{"package version latest", func(m map[string]any) { pkg(m)["version"] = "latest" }},
		{"package without transport", func(m map[string]any) { delete(pkg(m), "transport") }},
		{"repository URL not a URI", func(m map[string]any) { m["repository"].(map[string]any)["url"] = "not a uri" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			tt.mutate(m)
			mb, _ := json.Marshal(m)
			if err := validateServerJSON(s, mb); err == nil {
				t.Errorf("server.json with %s validates, want a schema error", tt.name)
			}
		})
	}
}

func pkg(m map[string]any) map[string]any {
	return m["packages"].([]any)[0].(map[string]any)
}
