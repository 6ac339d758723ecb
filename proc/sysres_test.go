package proc

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

func TestDarwinSystemResources(t *testing.T) {
	ttys := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("/dev/ttys%03d", i))
		}
		return out
	}
	// What a Mac answers: sysctl -n kern.tty.ptmx_max kern.num_files
	// kern.maxfiles, and the /dev/ttys* nodes.
	mac := map[string]uint32{"kern.tty.ptmx_max": 511, "kern.num_files": 7342, "kern.maxfiles": 245760}
	tests := []struct {
		name    string
		sysctls map[string]uint32
		ttys    []string
		globErr error
		want    Resources
	}{
		{"a Mac", mac, ttys(12), nil, Resources{PTYs: 12, PTYMax: 511, FilesAllocated: 7342, FilesMax: 245760}},
		{"no ptys in use", mac, nil, nil, Resources{PTYMax: 511, FilesAllocated: 7342, FilesMax: 245760}},
		{"sysctls unreadable", nil, ttys(3), nil, Resources{PTYs: 3}},
		{"/dev unreadable", mac, nil, filepath.ErrBadPattern, Resources{PTYMax: 511, FilesAllocated: 7342, FilesMax: 245760}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sysctl := func(name string) (uint32, error) {
				if v, ok := tt.sysctls[name]; ok {
					return v, nil
				}
				return 0, errors.New("no such sysctl")
			}
			var globbed string
			glob := func(p string) ([]string, error) { globbed = p; return tt.ttys, tt.globErr }
			got := darwinSystemResources(sysctl, glob)
			if got.SampledAt.IsZero() {
				t.Error("SampledAt is zero")
			}
			got.SampledAt = tt.want.SampledAt
			if got != tt.want {
				t.Errorf("darwinSystemResources() = %+v, want %+v", got, tt.want)
			}
			if globbed != darwinPTYGlob {
				t.Errorf("globbed %q, want %q", globbed, darwinPTYGlob)
			}
		})
	}
}

// TestDarwinPTYGlob: the pattern counts pseudo-terminal nodes only.
func TestDarwinPTYGlob(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/dev/ttys000", true},
		{"/dev/ttys127", true},
		{"/dev/ttys1000", true},
		{"/dev/tty", false},
		{"/dev/ttyp0", false}, // a BSD-style pty, unused on macOS
		{"/dev/tty.Bluetooth-Incoming-Port", false},
		{"/dev/ptmx", false},
		{"/dev/ttysa", false},
	}
	for _, tt := range tests {
		if got, _ := filepath.Match(darwinPTYGlob, tt.path); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", darwinPTYGlob, tt.path, got, tt.want)
		}
	}
}
