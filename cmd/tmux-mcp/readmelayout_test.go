package main

import (
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
