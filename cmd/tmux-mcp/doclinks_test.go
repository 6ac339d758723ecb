package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink    = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`^#{1,6} (.*)$`)
	mdFence   = regexp.MustCompile("^(```|~~~)")
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// TestDocLinks checks that every relative link in the README and the
// manuals leads to a file that exists and, for a Markdown file, to a
// heading it has (GitHub's anchors).
func TestDocLinks(t *testing.T) {
	root := "../.."
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "RELEASING.md")}, docs...)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		b, _ := os.ReadFile(path)
		inFence := false
		for _, l := range strings.Split(string(b), "\n") {
			if mdFence.MatchString(l) {
				inFence = !inFence
				continue
			}
			if m := mdHeading.FindStringSubmatch(l); m != nil && !inFence {
				s := strings.ToLower(strings.TrimSpace(m[1]))
				a[strings.ReplaceAll(slugDrop.ReplaceAllString(s, ""), " ", "-")] = true
			}
		}
		anchors[path] = a
		return a
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s: link %q: %v", f, target, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
				t.Errorf("%s: link %q: %s has no heading for #%s", f, target, dest, anchor)
			}
		}
	}
}
