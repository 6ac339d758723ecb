package jobs

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestJobsImportsOnlyTheSupervisor keeps the arrows pointing down: outside
// tests, the engine imports no package of this module but the supervisor,
// its capture caps (supervisor/capture: the tail a record keeps), the
// wire's model (tmux), the job's record (jobrecord), pane driving
// (drive, which reads a job's line) and the process tree (proc); tools and cmd
// import it, never the other way. layers_test.go at the module root ranks the whole module.
func TestJobsImportsOnlyTheSupervisor(t *testing.T) {
	const module = "github.com/tmux-mcp/tmux-mcp"
	allowed := map[string]bool{module + "/supervisor": true, module + "/supervisor/capture": true, module + "/tmux": true,
		module + "/jobrecord": true, module + "/drive": true, module + "/proc": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		seen++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if (p == module || strings.HasPrefix(p, module+"/")) && !allowed[p] {
				t.Errorf("%s imports %s; jobs may import only the supervisor of this module", path, p)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no files found")
	}
}
