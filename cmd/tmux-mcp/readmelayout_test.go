package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeLayoutNamesEveryPackage checks that the README's Layout
// section gives every Go package of the module (every folder with Go
// files) a line of its own, and names no folder that is gone.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## Layout")
	if start < 0 {
		t.Fatal("README.md has no ## Layout section")
	}
	section := text[start:]
	open := strings.Index(section, "```\n")
	end := strings.Index(section[open+4:], "```")
	if open < 0 || end < 0 {
		t.Fatal("the Layout section has no code block")
	}
	named := map[string]bool{}
	for _, line := range strings.Split(section[open+4:open+4+end], "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasSuffix(f[0], "/") && !strings.HasPrefix(line, " ") {
			named[strings.TrimSuffix(f[0], "/")] = true
		}
	}
	packages := map[string]bool{}
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "../.." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			rel, err := filepath.Rel("../..", filepath.Dir(path))
			if err != nil {
				return err
			}
			packages[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range packages {
		if !named[p] {
			t.Errorf("README.md Layout has no line for package %s/", p)
		}
	}
	for p := range named {
		if _, err := os.Stat(filepath.Join("../..", p)); err != nil {
			t.Errorf("README.md Layout names %s/, which does not exist", p)
		}
	}
}

// TestEveryPackageHasADoc checks that every package of the module has a
// package comment (its doc map, what `go doc` shows first): in a non-test
// file, or, for a package of tests only, in one of its tests.
func TestEveryPackageHasADoc(t *testing.T) {
	type pkg struct{ code, doc, testDoc bool }
	pkgs := map[string]*pkg{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "../.." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		p := pkgs[dir]
		if p == nil {
			p = &pkg{}
			pkgs[dir] = p
		}
		test := strings.HasSuffix(path, "_test.go")
		documented := f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != ""
		switch {
		case !test:
			p.code = true
			p.doc = p.doc || documented
		default:
			p.testDoc = p.testDoc || documented
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) == 0 {
		t.Fatal("no Go packages found")
	}
	for dir, p := range pkgs {
		if (p.code && !p.doc) || (!p.code && !p.testDoc) {
			t.Errorf("package in %s has no package comment", dir)
		}
	}
}
