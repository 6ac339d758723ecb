package loadtest

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "smoke")
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	err := WriteReport(dir, map[string]int{"calls": 3}, File{"a.csv", text("t\n1\n")}, File{"report.html", text("<p>")})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, want string }{
		{"report.json", "{\n  \"calls\": 3\n}\n"},
		{"a.csv", "t\n1\n"},
		{"report.html", "<p>"},
	}
	for _, tt := range tests {
		got, err := os.ReadFile(filepath.Join(dir, tt.name))
		if err != nil || string(got) != tt.want {
			t.Errorf("%s = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	var back map[string]int
	if b, _ := os.ReadFile(filepath.Join(dir, "report.json")); json.Unmarshal(b, &back) != nil || back["calls"] != 3 {
		t.Errorf("report.json does not decode to calls 3: %v", back)
	}
}

func TestWriteReportErrors(t *testing.T) {
	dir := t.TempDir()
	broken := errors.New("broken")
	tests := []struct {
		name   string
		report any
		files  []File
		want   string
	}{
		{"a writer fails", 1, []File{{"report.html", func(io.Writer) error { return broken }}}, "write report.html: broken"},
		{"the report does not encode", func() {}, nil, "encode report"},
	}
	for _, tt := range tests {
		err := WriteReport(dir, tt.report, tt.files...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: WriteReport = %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}
