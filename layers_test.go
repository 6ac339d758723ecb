package tmuxmcp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlySupervisorUsesTheWire enforces the layering: outside tests, the
// tools, the guards, pane driving, the jobs engine and the binary may use
// the wire's model types, IDs, error classes and notification names, but
// never its transports or clients. Every tmux call goes through the
// supervisor.
func TestOnlySupervisorUsesTheWire(t *testing.T) {
	const wire = "github.com/tmux-mcp/tmux-mcp/tmux"
	allowed := func(name string) bool {
		switch {
		case strings.HasPrefix(name, "Err"), strings.HasPrefix(name, "Notify"):
			return true
		}
		switch name {
		case "Session", "Window", "Pane", "ServerInfo", "SessionID", "WindowID", "PaneID", "Socket",
			"Notification", "NotificationType", "HiddenSession", "ClassName", "IsServerDown",
			"CommandError", "ConnLostError", "Version", "Capabilities", "NameRewritten",
			// The record codec reads output; it talks to nothing.
			"RecordFormat", "ParseRecord", "ParseRecords", "EnvironmentArgs", "ParseEnvironment",
			"SocketDirFor", // a path rule: starts and reaches no tmux
			// The trust rule for a socket path reads the file system only
			// (list_servers checks candidates before anything connects).
			"CheckSocket",
			// The environment rule for tmux processes: names, no tmux.
			"ServerEnvNames", "CheckPassEnv":
			return true
		}
		return false
	}
	files, err := filepath.Glob("tools/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, glob := range []string{"drive/*.go", "jobs/*.go", "guard/*.go", "mcpserver/*.go", "cmd/*/*.go"} {
		more, _ := filepath.Glob(glob)
		files = append(files, more...)
	}
	if len(files) == 0 {
		t.Fatal("no files found in tools, drive, jobs, guard, mcpserver and cmd")
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		local := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == wire {
				local = "tmux"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == local && !allowed(sel.Sel.Name) {
				t.Errorf("%s: uses tmux.%s; only the supervisor may talk to tmux", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// TestTelemetryHasItsPlace enforces where package telemetry sits: above
// the supervisor, whose events it turns into metrics, and beside the
// tools, which it never imports (cmd/tmux-mcp hands its options to them).
// Outside tests, telemetry imports no package of this module but
// supervisor, and only cmd/ imports telemetry.
func TestTelemetryHasItsPlace(t *testing.T) {
	const module = "github.com/tmux-mcp/tmux-mcp"
	const telemetry = module + "/telemetry"
	var seen int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(path)
		inTelemetry := strings.HasPrefix(rel, "telemetry/")
		if inTelemetry {
			seen++
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case inTelemetry && (p == module || strings.HasPrefix(p, module+"/")) && p != module+"/supervisor":
				t.Errorf("%s imports %s; telemetry may import only %s/supervisor of this module", rel, p, module)
			case p == telemetry && !strings.HasPrefix(rel, "cmd/"):
				t.Errorf("%s imports %s; only cmd/ may", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no files found in telemetry")
	}
}

// layers ranks the module's packages: a package may import only packages
// of a lower rank (outside tests), so import arrows point down and no
// circle can form. A package not listed takes the rank of its nearest
// listed parent folder.
var layers = map[string]int{
	"tmux": 0, "proc": 0, "supervisor/marks": 0, "journal/filelock": 0, "shellquote": 0, "httpmcp": 0, "scripts/internal/loadtest": 0,
	"agent": 1, "supervisor/capture": 1, "supervisor/death": 1, "supervisor/ratelimit": 1, "agent/agentstub": 1, "jobrecord": 1, "internal/e2etest": 1, "hosts": 1,
	"supervisor": 2, "taskext": 2, "view": 2,
	"journal": 3, "telemetry": 3, "diagnostics": 3, "drive": 3, "guard": 3,
	"jobs":      4,
	"mcpserver": 5, "conformance": 5,
	"tooldef": 6,
	"tools":   7,
	"cmd":     8, "scripts": 8, "packaging": 8,
}

// rankOf returns the rank of the package in folder rel, and the folder
// that gave it.
func rankOf(rel string) (int, string, bool) {
	for p := rel; p != "." && p != ""; p = filepath.ToSlash(filepath.Dir(p)) {
		if r, ok := layers[p]; ok {
			return r, p, true
		}
	}
	return 0, "", false
}

// TestImportsPointDown enforces the layering of the whole module: the
// wire and the platform seams at the bottom, the supervisor's subsystems
// and the job's one record (jobrecord) above them, then the supervisor
// (beside it the tasks layer and the view, which use the record), its
// users (journal, telemetry, diagnostics, pane driving, the guards), the
// jobs engine, the MCP server's machinery (mcpserver), the tools, and the
// binaries at the top. A package may import a package of a lower rank,
// or a package within its own folder (tmux/native from tmux), never one
// beside or above.
func TestImportsPointDown(t *testing.T) {
	const module = "github.com/tmux-mcp/tmux-mcp/"
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(filepath.Dir(path))
		if rel == "." {
			return nil // this package: the module's map, no code
		}
		from, fromRoot, ok := rankOf(rel)
		if !ok {
			t.Errorf("%s: package folder %s has no rank in layers; give it one", path, rel)
			return nil
		}
		seen[fromRoot] = true
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, isModule := strings.CutPrefix(p, module)
			if !isModule || dep == rel || strings.HasPrefix(dep, rel+"/") {
				continue
			}
			to, toRoot, ok := rankOf(dep)
			if !ok {
				t.Errorf("%s imports %s, which has no rank in layers", path, dep)
				continue
			}
			if to >= from && !strings.HasPrefix(dep, fromRoot+"/") {
				t.Errorf("%s (%s, rank %d) imports %s (%s, rank %d): imports point down only", path, fromRoot, from, dep, toRoot, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"supervisor", "tmux", "supervisor/capture", "tools", "cmd"} {
		if !seen[p] {
			t.Errorf("no file of %s was checked", p)
		}
	}
}
