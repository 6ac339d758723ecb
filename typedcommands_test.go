package tmuxmcp

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// One way to spell a tmux command: the tools and the job engine send
// typed commands only (supervisor/cmd_*.go), never an argv of their own.
// The supervisor's methods that send an argv as given are unexported (do,
// doBlocking, doSequence) but one, the journal's door Server.Replay; the
// test type-checks tools/, mcpserver/, guard/, drive/ and jobs/ (go/types, with the export data of
// what they import) and fails on any reference to a door however it is
// made: a call (with the argv in a literal, a variable or a spread), a
// method value or expression, an interface or a type parameter with the
// method, a struct embedding the server, reflection, or go:linkname.
// TestTypedCommandsCatchesEachForm plants each form.

const supervisorPath = "github.com/tmux-mcp/tmux-mcp/supervisor"

// rawDoors are the exported methods of supervisor.Server that send an
// argv as given; hiddenDoors must stay unexported.
var (
	rawDoors    = []string{"Replay"}
	hiddenDoors = []string{"Do", "DoBlocking", "DoSequence"}
)

// goPackage is one package as go list sees it.
type goPackage struct {
	path, export, dir string
	files             []string
}

// typeWorld is what the check needs of the build: the packages under
// check, and an importer that reads every import's export data.
type typeWorld struct {
	fset  *token.FileSet
	imp   types.Importer
	pkgs  []goPackage
	doors map[string]*types.Signature // rawDoors' signatures
}

// loadTypes lists patterns and their dependencies with their export data
// (go list -export builds what the build cache lacks).
func loadTypes(t *testing.T, patterns ...string) *typeWorld {
	t.Helper()
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}\t{{.Dir}}\t{{join .GoFiles \",\"}}\t{{.DepOnly}}"}, patterns...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	w := &typeWorld{fset: token.NewFileSet(), doors: map[string]*types.Signature{}}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("go list line %q", line)
		}
		exports[f[0]] = f[1]
		if f[4] == "false" {
			w.pkgs = append(w.pkgs, goPackage{path: f[0], export: f[1], dir: f[2], files: strings.Split(f[3], ",")})
		}
	}
	w.imp = importer.ForCompiler(w.fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	sup, err := w.imp.Import(supervisorPath)
	if err != nil {
		t.Fatal(err)
	}
	server, _ := sup.Scope().Lookup("Server").(*types.TypeName)
	if server == nil {
		t.Fatal("supervisor.Server not found")
	}
	mset := types.NewMethodSet(types.NewPointer(server.Type()))
	for _, name := range hiddenDoors {
		if mset.Lookup(sup, name) != nil {
			t.Errorf("supervisor.Server.%s is exported: the tools could send an argv through it; keep it unexported", name)
		}
	}
	for _, name := range rawDoors {
		sel := mset.Lookup(sup, name)
		if sel == nil {
			t.Fatalf("supervisor.Server.%s not found: update rawDoors", name)
		}
		w.doors[name] = sel.Obj().Type().(*types.Signature)
	}
	return w
}

// violations type-checks the package path made of files and returns
// every reference to a raw door, and every type error (code that
// reaches for an unexported door does not compile).
func (w *typeWorld) violations(path string, files []*ast.File) []string {
	var out []string
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: w.imp, Error: func(err error) { out = append(out, err.Error()) }}
	conf.Check(path, w.fset, files, info) //nolint:errcheck // every error is in out
	for _, f := range files {
		for _, imp := range f.Imports {
			if imp.Path.Value == `"unsafe"` {
				out = append(out, fmt.Sprintf("%s: imports unsafe (go:linkname reaches unexported methods)", w.fset.Position(imp.Pos())))
			}
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				if strings.HasPrefix(c.Text, "//go:linkname") {
					out = append(out, fmt.Sprintf("%s: %s", w.fset.Position(c.Pos()), c.Text))
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			x, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			var obj types.Object
			if sel := info.Selections[x]; sel != nil {
				obj = sel.Obj()
			} else {
				obj = info.Uses[x.Sel]
			}
			if why := w.door(obj); why != "" {
				out = append(out, fmt.Sprintf("%s: %s", w.fset.Position(x.Pos()), why))
			}
			return true
		})
	}
	return out
}

// door returns why a reference to obj steps around the typed commands,
// or "".
func (w *typeWorld) door(obj types.Object) string {
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() == nil {
		return ""
	}
	sig := fn.Type().(*types.Signature)
	if fn.Pkg().Path() == "reflect" && (fn.Name() == "MethodByName" || fn.Name() == "Method") {
		return "reflect." + fn.Name() + " reaches methods by name; call a typed command"
	}
	want, ok := w.doors[fn.Name()]
	if !ok || sig.Recv() == nil {
		return ""
	}
	recv := sig.Recv().Type()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	switch {
	case fn.Pkg().Path() == supervisorPath && isNamed(recv, "Server"):
		return "supervisor.Server." + fn.Name() + " sends an argv as given; give the command a typed method in supervisor/cmd_*.go"
	case types.IsInterface(recv) && types.Identical(dropRecv(sig), dropRecv(want)):
		return "an interface with supervisor.Server's " + fn.Name() + " sends an argv as given; give the command a typed method in supervisor/cmd_*.go"
	}
	return ""
}

func isNamed(t types.Type, name string) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == name
}

func dropRecv(s *types.Signature) *types.Signature {
	return types.NewSignatureType(nil, nil, nil, s.Params(), s.Results(), s.Variadic())
}

// TestToolsUseTypedCommands: no file of tools/, mcpserver/, guard/, drive/
// or jobs/ (and their sub-packages) reaches a raw door of the supervisor.
func TestToolsUseTypedCommands(t *testing.T) {
	w := loadTypes(t, "./tools/...", "./mcpserver/...", "./guard/...", "./drive/...", "./jobs/...")
	checked := map[string]bool{}
	for _, p := range w.pkgs {
		var files []*ast.File
		for _, name := range p.files {
			f, err := parser.ParseFile(w.fset, filepath.Join(p.dir, name), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		for _, v := range w.violations(p.path, files) {
			t.Error(v)
		}
		checked[strings.TrimPrefix(p.path, "github.com/tmux-mcp/tmux-mcp/")] = true
	}
	for _, p := range []string{"tools", "mcpserver", "jobs", "guard", "drive"} {
		if !checked[p] {
			t.Errorf("package %s was not checked", p)
		}
	}
}

// TestTypedCommandsCatchesEachForm plants, in a package of its own, each
// way tools code could send an argv of its own, and wants the check to
// find every one; and a file of typed commands only passes.
func TestTypedCommandsCatchesEachForm(t *testing.T) {
	w := loadTypes(t, "./tools")
	const head = `package planted

import (
	"context"
	"reflect"

	"github.com/tmux-mcp/tmux-mcp/supervisor"
)

var (
	_ = reflect.TypeOf
	_ context.Context
	_ *supervisor.Server
)
`
	forms := []struct{ name, body, want string }{
		{"a call with a literal argv", `func f(ctx context.Context, srv *supervisor.Server) { srv.Replay(ctx, []string{"kill-server"}) }`, "sends an argv as given"},
		{"an argv in a variable", `func f(ctx context.Context, srv *supervisor.Server) {
	argv := []string{"kill-server"}
	srv.Replay(ctx, argv)
}`, "sends an argv as given"},
		{"an argv spread from parts", `func f(ctx context.Context, srv *supervisor.Server, rest []string) {
	srv.Replay(ctx, append([]string{"set-option"}, rest...))
}`, "sends an argv as given"},
		{"a method value", `func f(ctx context.Context, srv *supervisor.Server) {
	send := srv.Replay
	send(ctx, []string{"kill-server"})
}`, "sends an argv as given"},
		{"a method expression", `func f(ctx context.Context, srv *supervisor.Server) {
	(*supervisor.Server).Replay(srv, ctx, []string{"kill-server"})
}`, "sends an argv as given"},
		{"a helper through an interface", `type sender interface {
	Replay(ctx context.Context, argv []string) ([]byte, error)
}

func send(ctx context.Context, s sender, argv ...string) { s.Replay(ctx, argv) }

func f(ctx context.Context, srv *supervisor.Server) { send(ctx, srv, "kill-server") }`, "sends an argv as given"},
		{"a type assertion to an interface", `func f(ctx context.Context, srv any) {
	srv.(interface {
		Replay(context.Context, []string) ([]byte, error)
	}).Replay(ctx, []string{"kill-server"})
}`, "sends an argv as given"},
		{"a type parameter", `func f[S interface {
	Replay(context.Context, []string) ([]byte, error)
}](ctx context.Context, s S) {
	s.Replay(ctx, []string{"kill-server"})
}`, "sends an argv as given"},
		{"an embedding", `type wrapped struct{ *supervisor.Server }

func f(ctx context.Context, w wrapped) { w.Replay(ctx, []string{"kill-server"}) }`, "sends an argv as given"},
		{"reflection", `func f(ctx context.Context, srv *supervisor.Server) {
	reflect.ValueOf(srv).MethodByName("Re" + "play")
}`, "reflect.MethodByName"},
		{"an unexported door", `func f(ctx context.Context, srv *supervisor.Server) { srv.do(ctx, "kill-server") }`, "cannot refer to unexported method do"},
		{"go:linkname", `import _ "unsafe"

//go:linkname do github.com/tmux-mcp/tmux-mcp/supervisor.(*Server).do
func do(s *supervisor.Server, ctx context.Context, args ...string) ([]byte, error)`, "//go:linkname"},
	}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			src := head + "\n" + form.body + "\n"
			if body, ok := strings.CutPrefix(form.body, `import _ "unsafe"`); ok {
				src = strings.Replace(head, "import (", "import (\n\t_ \"unsafe\"", 1) + body + "\n"
			}
			f, err := parser.ParseFile(w.fset, "planted.go", src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			got := w.violations("planted", []*ast.File{f})
			if !slices.ContainsFunc(got, func(v string) bool { return strings.Contains(v, form.want) }) {
				t.Errorf("violations %q, want one saying %q, in:\n%s", got, form.want, form.body)
			}
		})
	}
	typed := `func f(ctx context.Context, srv *supervisor.Server) error {
	_, _, err := srv.NewSession(ctx, supervisor.NewSessionOptions{Name: "x"})
	if err != nil {
		return err
	}
	return srv.SetOption(ctx, supervisor.OptionScope{Global: true}, "status", "off")
}`
	f, err := parser.ParseFile(w.fset, "typed.go", head+"\n"+typed+"\n", parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.violations("planted", []*ast.File{f}); len(got) != 0 {
		t.Errorf("typed commands only: %q, want no violation", got)
	}
}
