package tmux

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSubpackagesSitBelow enforces the wire's layering: its sub-packages
// native, codec and spawn import nothing of tmux-mcp (outside their tests), and
// nothing outside tmux imports them (tests included): they are
// the wire's own, and only package tmux builds on them.
func TestSubpackagesSitBelow(t *testing.T) {
	const module = "github.com/tmux-mcp/tmux-mcp"
	const wire = module + "/tmux"
	below := map[string]bool{wire + "/native": true, wire + "/codec": true, wire + "/spawn": true}
	var seen int
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		dir := module + "/" + filepath.ToSlash(filepath.Dir(rel))
		inWire := dir == wire || strings.HasPrefix(dir, wire+"/")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if below[dir] {
			seen++
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case below[dir] && !strings.HasSuffix(path, "_test.go") && (p == module || strings.HasPrefix(p, module+"/")):
				t.Errorf("%s imports %s; the wire's sub-packages import nothing of tmux-mcp", rel, p)
			case below[p] && !inWire:
				t.Errorf("%s imports %s; only tmux may", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no files found in native, codec and spawn")
	}
}
