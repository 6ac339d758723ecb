package packaging

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/tmux/tmuxtest"
)

// platforms are the GOOS/GOARCH pairs every release carries.
var platforms = []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"}

// byType returns the artifacts of one type, keyed by GOOS/GOARCH.
func byType(arts []artifact, typ string) map[string]artifact {
	out := map[string]artifact{}
	for _, a := range arts {
		if a.Type == typ {
			out[a.Goos+"/"+a.Goarch] = a
		}
	}
	return out
}

func keys(m map[string]artifact) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestBinaries checks each platform's binary: the right object format and
// CPU, and on Linux statically linked (no ELF interpreter), so that it
// runs on any distribution.
func TestBinaries(t *testing.T) {
	_, arts := readDist(t)
	bins := byType(arts, "Binary")
	if got := keys(bins); !slices.Equal(got, platforms) {
		t.Fatalf("binaries for %v, want %v", got, platforms)
	}
	for p, a := range bins {
		path := filepath.Join(root, a.Path)
		switch p {
		case "linux/amd64", "linux/arm64":
			f, err := elf.Open(path)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			want := map[string]elf.Machine{"linux/amd64": elf.EM_X86_64, "linux/arm64": elf.EM_AARCH64}[p]
			if f.Machine != want {
				t.Errorf("%s: ELF machine %v, want %v", p, f.Machine, want)
			}
			for _, prog := range f.Progs {
				if prog.Type == elf.PT_INTERP {
					t.Errorf("%s: dynamically linked (has an ELF interpreter), want static (CGO_ENABLED=0)", p)
				}
			}
			f.Close()
		case "darwin/amd64", "darwin/arm64":
			f, err := macho.Open(path)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			want := map[string]macho.Cpu{"darwin/amd64": macho.CpuAmd64, "darwin/arm64": macho.CpuArm64}[p]
			if f.Cpu != want {
				t.Errorf("%s: Mach-O CPU %v, want %v", p, f.Cpu, want)
			}
			f.Close()
		}
	}
}

// TestChecksumsAndSBOMs checks that checksums.txt lists every archive
// with its SHA-256, and that each archive has an SPDX SBOM that lists the
// modules inside the binary.
func TestChecksumsAndSBOMs(t *testing.T) {
	m, arts := readDist(t)
	archives := byType(arts, "Archive")
	if got := keys(archives); !slices.Equal(got, platforms) {
		t.Fatalf("archives for %v, want %v", got, platforms)
	}
	sums := map[string]string{}
	f, err := os.Open(requireFile(t, filepath.Join(distDir, "checksums.txt"), "release-snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt: line %q is not <sha256>  <name>", sc.Text())
		}
		sums[name] = sum
	}
	for p, a := range archives {
		wantName := fmt.Sprintf("tmux-mcp_%s_%s.tar.gz", m.Version, strings.ReplaceAll(p, "/", "_"))
		if a.Name != wantName {
			t.Errorf("%s archive = %s, want %s", p, a.Name, wantName)
		}
		b, err := os.ReadFile(filepath.Join(root, a.Path))
		if err != nil {
			t.Fatal(err)
		}
		got := sha256.Sum256(b)
		if sums[a.Name] != hex.EncodeToString(got[:]) {
			t.Errorf("checksums.txt: %s = %q, want %x", a.Name, sums[a.Name], got)
		}
	}
	sboms := 0
	for _, a := range arts {
		if a.Type != "SBOM" {
			continue
		}
		sboms++
		var doc struct {
			SPDXVersion string `json:"spdxVersion"`
			Packages    []struct {
				Name string `json:"name"`
			} `json:"packages"`
		}
		readJSON(t, filepath.Join(root, a.Path), &doc)
		var names []string
		for _, p := range doc.Packages {
			names = append(names, p.Name)
		}
		if doc.SPDXVersion == "" || !slices.Contains(names, "go.etcd.io/bbolt") || !slices.Contains(names, "github.com/mark3labs/mcp-go") {
			t.Errorf("%s: spdxVersion %q, packages %v: want an SPDX document listing the binary's modules (bbolt, mcp-go)", a.Name, doc.SPDXVersion, names)
		}
		if _, ok := sums[a.Name]; !ok {
			t.Errorf("checksums.txt does not list %s", a.Name)
		}
	}
	if sboms != len(archives) {
		t.Errorf("%d SBOMs for %d archives, want one each", sboms, len(archives))
	}
}

// untar extracts a .tar.gz into dir and returns the names it held.
func untar(t *testing.T, archive, dir string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", archive, err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		if h.Typeflag != tar.TypeReg || strings.Contains(h.Name, "..") || strings.HasPrefix(h.Name, "/") {
			t.Fatalf("%s: entry %q (type %c), want regular files inside the archive", archive, h.Name, h.Typeflag)
		}
		names = append(names, h.Name)
		path := filepath.Join(dir, h.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, os.FileMode(h.Mode).Perm())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(names)
	return names
}

// TestArchiveVersion unpacks the linux/amd64 archive and runs
// `tmux-mcp version` from it: the release's version and commit, and a
// date, stamped at link time.
func TestArchiveVersion(t *testing.T) {
	m, arts := readDist(t)
	a, ok := byType(arts, "Archive")["linux/amd64"]
	if !ok {
		t.Fatal("no linux/amd64 archive in dist/artifacts.json")
	}
	dir := t.TempDir()
	names := untar(t, filepath.Join(root, a.Path), dir)
	if want := []string{"README.md", "SECURITY.md", "tmux-mcp"}; !slices.Equal(names, want) {
		t.Errorf("archive holds %v, want %v", names, want)
	}
	cmd := exec.Command(filepath.Join(dir, "tmux-mcp"), "version")
	cmd.Env = append(tmuxtest.Env(), "TMUX_MCP_TMUX_BIN="+tmuxtest.Binary(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tmux-mcp version: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var version, commit, date string
	if _, err := fmt.Sscanf(lines[0], "tmux-mcp %s (commit %s built %s", &version, &commit, &date); err != nil {
		t.Fatalf("tmux-mcp version = %q, want tmux-mcp <version> (commit <sha>, built <date>)", lines[0])
	}
	commit, date = strings.TrimSuffix(commit, ","), strings.TrimSuffix(date, ")")
	if version != m.Version || commit != m.Commit {
		t.Errorf("tmux-mcp version: version %q commit %q, want %q %q (dist/metadata.json)", version, commit, m.Version, m.Commit)
	}
	if _, err := time.Parse(time.RFC3339, date); err != nil {
		t.Errorf("tmux-mcp version: built %q, want an RFC 3339 date: %v", date, err)
	}
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "tmux ") {
		t.Errorf("tmux-mcp version = %q, want the tmux version on the second line", out)
	}
}
